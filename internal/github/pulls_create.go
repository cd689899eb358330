package github

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	gh "github.com/google/go-github/v60/github"
)

// FoldBackAPI are the calls drift's fold-back pull requests make (tfgate drift
// --fold-back-pr): a commit written through the Git data API (a tree on a base tree, a
// commit, a branch reference) and a pull request opened, edited or closed. They need
// contents: write and pull-requests: write. Client implements it.
type FoldBackAPI interface {
	// ListOpenPulls lists the repository's open pull requests, every page.
	ListOpenPulls(ctx context.Context, repo Repo) ([]Pull, error)
	// GetBranch is the commit branch points at; found is false when there is no such branch.
	GetBranch(ctx context.Context, repo Repo, branch string) (sha string, found bool, err error)
	GetCommit(ctx context.Context, repo Repo, sha string) (GitCommit, error)
	// CreateTree writes files (as UTF-8 text) over baseTree and returns the new tree's SHA.
	CreateTree(ctx context.Context, repo Repo, baseTree string, files []TreeFile) (string, error)
	// CreateCommit writes a commit of tree on parents and returns its SHA.
	CreateCommit(ctx context.Context, repo Repo, message, tree string, parents []string) (string, error)
	// CreateBranch creates branch at sha; a branch that exists already is an error that
	// errors.Is ErrRefExists.
	CreateBranch(ctx context.Context, repo Repo, branch, sha string) error
	// MoveBranch points branch at sha, forced (the caller made sure the branch is its own).
	MoveBranch(ctx context.Context, repo Repo, branch, sha string) error
	// DeleteBranch deletes branch (the caller made sure it is its own).
	DeleteBranch(ctx context.Context, repo Repo, branch string) error
	// ListClosedPulls lists the closed pull requests from branch of the repository.
	ListClosedPulls(ctx context.Context, repo Repo, branch string) ([]Pull, error)
	// CreatePull opens a pull request from head to base. When GitHub answers that one is
	// open for head already (a lost answer retried, or a race), that one is returned.
	CreatePull(ctx context.Context, repo Repo, p NewPull) (Pull, error)
	// EditPull changes a pull request's title, body or state (nil: unchanged).
	EditPull(ctx context.Context, repo Repo, number int, title, body, state *string) (Pull, error)
	CreateIssueComment(ctx context.Context, repo Repo, number int, body string) (Comment, error)
}

var _ FoldBackAPI = (*Client)(nil)

// ErrRefExists is GitHub's 422 "Reference already exists".
var ErrRefExists = fmt.Errorf("reference already exists")

// Pull is a pull request with what fold-back reads of it besides PullRequest: its body and
// page.
type Pull struct {
	PullRequest
	Body    string
	HTMLURL string
}

// GitCommit is a commit as the Git data API gives it.
type GitCommit struct {
	SHA, Tree, Message string
	Parents            []string
}

// TreeFile is one file of a new tree: its path in the repository, mode (100644, 100755)
// and whole content.
type TreeFile struct {
	Path, Mode, Content string
}

// NewPull is a pull request to open.
type NewPull struct {
	Title, Head, Base, Body string
}

func pull(pr *gh.PullRequest) Pull {
	return Pull{PullRequest: pullRequest(pr), Body: pr.GetBody(), HTMLURL: pr.GetHTMLURL()}
}

func (c *Client) ListOpenPulls(ctx context.Context, repo Repo) ([]Pull, error) {
	return c.listPulls(ctx, repo, "open", "")
}

func (c *Client) ListClosedPulls(ctx context.Context, repo Repo, branch string) ([]Pull, error) {
	return c.listPulls(ctx, repo, "closed", repo.Owner+":"+branch)
}

func (c *Client) listPulls(ctx context.Context, repo Repo, state, head string) ([]Pull, error) {
	var out []Pull
	err := paginate(func(lo gh.ListOptions) (*gh.Response, error) {
		prs, resp, err := c.gh.PullRequests.List(ctx, repo.Owner, repo.Name,
			&gh.PullRequestListOptions{State: state, Head: head, ListOptions: lo})
		for _, pr := range prs {
			out = append(out, pull(pr))
		}
		return resp, err
	})
	return out, wrap(fmt.Sprintf("list %s pull requests of %s", state, repo), err)
}

// GetBranch is GET /repos/{owner}/{repo}/git/ref/heads/{branch}. go-github sends the
// branch's slashes plain, which GitHub takes.
func (c *Client) GetBranch(ctx context.Context, repo Repo, branch string) (string, bool, error) {
	ref, _, err := c.gh.Git.GetRef(ctx, repo.Owner, repo.Name, "heads/"+branch)
	if HTTPStatus(err) == http.StatusNotFound {
		return "", false, nil
	}
	if err != nil {
		return "", false, wrap(fmt.Sprintf("get branch %s of %s", branch, repo), err)
	}
	return ref.GetObject().GetSHA(), true, nil
}

func (c *Client) GetCommit(ctx context.Context, repo Repo, sha string) (GitCommit, error) {
	cm, _, err := c.gh.Git.GetCommit(ctx, repo.Owner, repo.Name, sha)
	if err != nil {
		return GitCommit{}, wrap(fmt.Sprintf("get commit %s of %s", sha, repo), err)
	}
	out := GitCommit{SHA: cm.GetSHA(), Tree: cm.GetTree().GetSHA(), Message: cm.GetMessage()}
	for _, p := range cm.Parents {
		out.Parents = append(out.Parents, p.GetSHA())
	}
	return out, nil
}

func (c *Client) CreateTree(ctx context.Context, repo Repo, baseTree string, files []TreeFile) (string, error) {
	entries := make([]*gh.TreeEntry, len(files))
	for i, f := range files {
		entries[i] = &gh.TreeEntry{Path: gh.String(f.Path), Mode: gh.String(f.Mode), Type: gh.String("blob"), Content: gh.String(f.Content)}
	}
	// Sent again after a 5xx: git names a tree by its content, the same tree again.
	t, _, err := c.gh.Git.CreateTree(idempotent(ctx), repo.Owner, repo.Name, baseTree, entries)
	if err != nil {
		return "", wrap(fmt.Sprintf("create a tree in %s", repo), err)
	}
	return t.GetSHA(), nil
}

func (c *Client) CreateCommit(ctx context.Context, repo Repo, message, tree string, parents []string) (string, error) {
	cm := &gh.Commit{Message: gh.String(message), Tree: &gh.Tree{SHA: gh.String(tree)}}
	for _, p := range parents {
		cm.Parents = append(cm.Parents, &gh.Commit{SHA: gh.String(p)})
	}
	// Sent again after a 5xx: a commit made twice leaves one unreferenced, harmless.
	out, _, err := c.gh.Git.CreateCommit(idempotent(ctx), repo.Owner, repo.Name, cm, nil)
	if err != nil {
		return "", wrap(fmt.Sprintf("create a commit in %s", repo), err)
	}
	return out.GetSHA(), nil
}

func (c *Client) CreateBranch(ctx context.Context, repo Repo, branch, sha string) error {
	// Sent again after a 5xx: a creation GitHub did answers "Reference already exists", which
	// the caller checks (the branch at sha: done).
	_, _, err := c.gh.Git.CreateRef(idempotent(ctx), repo.Owner, repo.Name,
		&gh.Reference{Ref: gh.String("refs/heads/" + branch), Object: &gh.GitObject{SHA: gh.String(sha)}})
	if HTTPStatus(err) == http.StatusUnprocessableEntity && strings.Contains(err.Error(), "Reference already exists") {
		return fmt.Errorf("create branch %s in %s: %w", branch, repo, ErrRefExists)
	}
	return wrap(fmt.Sprintf("create branch %s in %s", branch, repo), err)
}

func (c *Client) MoveBranch(ctx context.Context, repo Repo, branch, sha string) error {
	_, _, err := c.gh.Git.UpdateRef(ctx, repo.Owner, repo.Name,
		&gh.Reference{Ref: gh.String("refs/heads/" + branch), Object: &gh.GitObject{SHA: gh.String(sha)}}, true)
	return wrap(fmt.Sprintf("move branch %s of %s", branch, repo), err)
}

func (c *Client) DeleteBranch(ctx context.Context, repo Repo, branch string) error {
	_, err := c.gh.Git.DeleteRef(ctx, repo.Owner, repo.Name, "heads/"+branch)
	return wrap(fmt.Sprintf("delete branch %s of %s", branch, repo), err)
}

func (c *Client) CreatePull(ctx context.Context, repo Repo, p NewPull) (Pull, error) {
	// Sent again after a 5xx: one GitHub did opened answers 422, and is found by its head.
	pr, _, err := c.gh.PullRequests.Create(idempotent(ctx), repo.Owner, repo.Name, &gh.NewPullRequest{
		Title: gh.String(p.Title), Head: gh.String(p.Head), Base: gh.String(p.Base), Body: gh.String(p.Body),
		MaintainerCanModify: gh.Bool(false)})
	if err == nil {
		return pull(pr), nil
	}
	if HTTPStatus(err) == http.StatusUnprocessableEntity && strings.Contains(err.Error(), "A pull request already exists") {
		open, lerr := c.listPulls(ctx, repo, "open", repo.Owner+":"+p.Head)
		if lerr == nil && len(open) > 0 {
			return open[0], nil
		}
	}
	if HTTPStatus(err) == http.StatusForbidden && strings.Contains(err.Error(), "not permitted to create or approve pull requests") {
		err = fmt.Errorf("%w (allow it in the repository's Settings → Actions → General, or use a GitHub App's token)", err)
	}
	return Pull{}, wrap(fmt.Sprintf("open a pull request from %s in %s", p.Head, repo), err)
}

func (c *Client) EditPull(ctx context.Context, repo Repo, number int, title, body, state *string) (Pull, error) {
	pr, _, err := c.gh.PullRequests.Edit(ctx, repo.Owner, repo.Name, number, &gh.PullRequest{Title: title, Body: body, State: state})
	if err != nil {
		return Pull{}, wrap(fmt.Sprintf("edit pull request %s#%d", repo, number), err)
	}
	return pull(pr), nil
}
