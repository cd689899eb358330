package github

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	gh "github.com/google/go-github/v60/github"
)

// The calls that keep open pull requests told when the default branch moves under their
// plans: each planned pull request carries one label per project it plans (tfaction's
// model), so that the pull requests a merge makes stale are found by label — calls that
// grow with the pull requests related to the merge, not with every open one.

// ProjectLabelPrefix starts every label tfgate puts on a pull request for a project.
const ProjectLabelPrefix = "tfgate:"

// MaxLabelChars is GitHub's limit on a label name, in characters.
const MaxLabelChars = 50

// ManyProjectsLabel stands for every project on a pull request that plans more than
// MaxProjectLabels of them (GitHub allows 100 labels on an issue, and people's own labels
// need room): such a pull request is related to every change.
const ManyProjectsLabel = ProjectLabelPrefix + "*"

// FreshPlanLabel on a pull request makes every plan of it plan every project afresh,
// reusing no plan of an earlier push (docs/busy-repositories.md). Plan keeps it: it is
// no project's.
const FreshPlanLabel = ProjectLabelPrefix + "fresh-plan"

// MaxProjectLabels is how many project labels tfgate puts on one pull request.
const MaxProjectLabels = 50

// ProjectLabel is the label of project name on the pull requests that plan it:
// "tfgate:<name>", or, when that is longer than GitHub's 50 characters, the name's end
// after a short hash of the whole name ("tfgate:1a2b3c4d…prod/network"): still readable,
// and two long names never share one label.
func ProjectLabel(name string) string {
	l := ProjectLabelPrefix + name
	// A comma would split the label in the issues list's labels= filter.
	if utf8.RuneCountInString(l) <= MaxLabelChars && !strings.Contains(name, ",") {
		return l
	}
	sum := sha256.Sum256([]byte(name))
	head := ProjectLabelPrefix + hex.EncodeToString(sum[:])[:8] + "…"
	r := []rune(strings.ReplaceAll(name, ",", "_"))
	keep := min(len(r), MaxLabelChars-utf8.RuneCountInString(head))
	return head + string(r[len(r)-keep:])
}

func (c *Client) ListIssueLabels(ctx context.Context, repo Repo, number int) ([]string, error) {
	var out []string
	err := paginate(func(lo gh.ListOptions) (*gh.Response, error) {
		ls, resp, err := c.gh.Issues.ListLabelsByIssue(ctx, repo.Owner, repo.Name, number, &lo)
		for _, l := range ls {
			out = append(out, l.GetName())
		}
		return resp, err
	})
	return out, wrap(fmt.Sprintf("list the labels of %s#%d", repo, number), err)
}

// AddLabels sends {"labels": [...]}: go-github's bare array is no longer in GitHub's
// description of the call.
func (c *Client) AddLabels(ctx context.Context, repo Repo, number int, labels []string) error {
	u := fmt.Sprintf("repos/%s/%s/issues/%d/labels", url.PathEscape(repo.Owner), url.PathEscape(repo.Name), number)
	req, err := c.gh.NewRequest(http.MethodPost, u, map[string][]string{"labels": labels})
	if err == nil {
		_, err = c.gh.Do(ctx, req, nil)
	}
	return wrap(fmt.Sprintf("label %s#%d %s", repo, number, strings.Join(labels, ", ")), err)
}

func (c *Client) RemoveLabel(ctx context.Context, repo Repo, number int, label string) error {
	_, err := c.gh.Issues.RemoveLabelForIssue(ctx, repo.Owner, repo.Name, number, label)
	if HTTPStatus(err) == http.StatusNotFound {
		return nil // not (or no longer) on it
	}
	return wrap(fmt.Sprintf("remove label %s from %s#%d", label, repo, number), err)
}

func (c *Client) ListLabelledPulls(ctx context.Context, repo Repo, label string) ([]int, error) {
	var out []int
	err := paginate(func(lo gh.ListOptions) (*gh.Response, error) {
		is, resp, err := c.gh.Issues.ListByRepo(ctx, repo.Owner, repo.Name, &gh.IssueListByRepoOptions{
			State: "open", Labels: []string{label}, ListOptions: lo})
		for _, i := range is {
			if i.IsPullRequest() {
				out = append(out, i.GetNumber())
			}
		}
		return resp, err
	})
	return out, wrap(fmt.Sprintf("list the open pull requests labelled %s in %s", label, repo), err)
}

func (c *Client) DispatchWorkflow(ctx context.Context, repo Repo, workflow, ref string, inputs map[string]any) error {
	u := fmt.Sprintf("repos/%s/%s/actions/workflows/%s/dispatches", url.PathEscape(repo.Owner), url.PathEscape(repo.Name), url.PathEscape(workflow))
	body := map[string]any{"ref": ref}
	if inputs != nil {
		body["inputs"] = inputs
	}
	req, err := c.gh.NewRequest(http.MethodPost, u, body)
	if err == nil {
		_, err = c.gh.Do(ctx, req, nil)
	}
	return wrap(fmt.Sprintf("start workflow %s on %s in %s", workflow, ref, repo), err)
}
