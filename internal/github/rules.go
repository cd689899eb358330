package github

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	gh "github.com/google/go-github/v60/github"
)

// ErrUnreadable is wrapped by the errors of the setup reads (classic branch protection,
// Actions secrets) when GitHub refuses the token: 403, or the 404 it answers a token without
// admin rights to branch protection. It means "could not check", never "not set".
var ErrUnreadable = errors.New("the token may not read this")

// ErrNotProtected is classic branch protection's 404 "Branch not protected": the branch has
// no classic protection (rulesets may still protect it).
var ErrNotProtected = errors.New("branch not protected")

// BranchRule is one active rule that applies to a branch, from any ruleset (repository or
// organization) whose enforcement is active.
type BranchRule struct {
	Type      string // e.g. required_status_checks, merge_queue, pull_request
	RulesetID int64
	Source    string // the ruleset's source: "owner/repo" or the organization
	// RequiredChecks are the contexts of a required_status_checks rule.
	RequiredChecks []string
}

// BranchRules is GET /repos/{owner}/{repo}/rules/branches/{branch}: every active rule that
// applies to branch, all pages. It needs only read access ("Metadata: read"). go-github v60's
// GetRulesForBranch refuses rule types it does not know (merge_queue among them) and reads
// one page, so the rules are decoded here.
func (c *Client) BranchRules(ctx context.Context, repo Repo, branch string) ([]BranchRule, error) {
	var out []BranchRule
	err := paginate(func(lo gh.ListOptions) (*gh.Response, error) {
		u := fmt.Sprintf("repos/%s/%s/rules/branches/%s?per_page=%d&page=%d", url.PathEscape(repo.Owner), url.PathEscape(repo.Name),
			url.PathEscape(branch), lo.PerPage, lo.Page)
		req, err := c.gh.NewRequest(http.MethodGet, u, nil)
		if err != nil {
			return nil, err
		}
		var rules []struct {
			Type       string          `json:"type"`
			RulesetID  int64           `json:"ruleset_id"`
			Source     string          `json:"ruleset_source"`
			Parameters json.RawMessage `json:"parameters"`
		}
		resp, err := c.gh.Do(ctx, req, &rules)
		if err != nil {
			return resp, err
		}
		for _, r := range rules {
			br := BranchRule{Type: r.Type, RulesetID: r.RulesetID, Source: r.Source}
			if r.Type == "required_status_checks" && len(r.Parameters) > 0 {
				var p struct {
					Checks []struct {
						Context string `json:"context"`
					} `json:"required_status_checks"`
				}
				if err := json.Unmarshal(r.Parameters, &p); err != nil {
					return resp, fmt.Errorf("rule required_status_checks of ruleset %d: %w", r.RulesetID, err)
				}
				for _, ch := range p.Checks {
					br.RequiredChecks = append(br.RequiredChecks, ch.Context)
				}
			}
			out = append(out, br)
		}
		return resp, nil
	})
	return out, wrap(fmt.Sprintf("get the rules of branch %s in %s", branch, repo), err)
}

// ClassicRequiredChecks is GET /repos/{owner}/{repo}/branches/{branch}/protection/required_status_checks:
// the contexts classic branch protection requires. A branch without classic protection (or
// without required checks) is an error wrapping ErrNotProtected; a token that may not read
// protection (GITHUB_TOKEN: 403; a user without admin rights: 404) one wrapping ErrUnreadable.
func (c *Client) ClassicRequiredChecks(ctx context.Context, repo Repo, branch string) ([]string, error) {
	what := fmt.Sprintf("get the required status checks of branch %s in %s (classic branch protection)", branch, repo)
	rc, _, err := c.gh.Repositories.GetRequiredStatusChecks(ctx, repo.Owner, repo.Name, branch)
	switch {
	case err == nil:
	case refused(err):
		return nil, wrap(what, fmt.Errorf("%w (GitHub answered 403: reading branch protection needs admin rights, \"Administration: read\"): %w", ErrUnreadable, err))
	case errors.Is(err, gh.ErrBranchNotProtected):
		return nil, wrap(what, fmt.Errorf("%w: %w", ErrNotProtected, err))
	case HTTPStatus(err) == http.StatusNotFound:
		var er *gh.ErrorResponse
		if errors.As(err, &er) && (er.Message == "Branch not protected" || er.Message == "Required status checks not enabled") {
			return nil, wrap(what, fmt.Errorf("%w: %w", ErrNotProtected, err))
		}
		return nil, wrap(what, fmt.Errorf("%w (GitHub answered 404, as it does to a token without admin rights): %w", ErrUnreadable, err))
	default:
		return nil, wrap(what, err)
	}
	var out []string
	seen := map[string]bool{}
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	if rc.Contexts != nil {
		for _, s := range *rc.Contexts {
			add(s)
		}
	}
	if rc.Checks != nil {
		for _, ch := range *rc.Checks {
			add(ch.Context)
		}
	}
	return out, nil
}

// RepoSecretNames is GET /repos/{owner}/{repo}/actions/secrets: the names of the
// repository's Actions secrets (never their values), all pages. GitHub's description asks
// for collaborator access (write; "Secrets: read" for a fine-grained token); GITHUB_TOKEN
// never has it: the error then wraps ErrUnreadable.
func (c *Client) RepoSecretNames(ctx context.Context, repo Repo) ([]string, error) {
	what := fmt.Sprintf("list the Actions secrets of %s", repo)
	var out []string
	err := paginate(func(lo gh.ListOptions) (*gh.Response, error) {
		ss, resp, err := c.gh.Actions.ListRepoSecrets(ctx, repo.Owner, repo.Name, &lo)
		if ss != nil {
			for _, s := range ss.Secrets {
				out = append(out, s.Name)
			}
		}
		return resp, err
	})
	switch {
	case err == nil:
		return out, nil
	case refused(err) || HTTPStatus(err) == http.StatusNotFound:
		return nil, wrap(what, fmt.Errorf("%w (GitHub answered %d: listing secrets needs a collaborator's token): %w", ErrUnreadable, HTTPStatus(err), err))
	}
	return nil, wrap(what, err)
}
