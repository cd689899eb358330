package github

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	gh "github.com/google/go-github/v60/github"
)

// AuthenticatedUser is GET /user. An installation token (GITHUB_TOKEN) gets 403.
func (c *Client) AuthenticatedUser(ctx context.Context) (User, error) {
	u, _, err := c.gh.Users.Get(ctx, "")
	if err != nil {
		return User{}, wrap("get authenticated user", err)
	}
	return user(u), nil
}

func comment(ic *gh.IssueComment) Comment {
	return Comment{ID: ic.GetID(), Body: ic.GetBody(), Author: user(ic.User), HTMLURL: ic.GetHTMLURL(),
		UpdatedAt: ic.GetUpdatedAt().Time}
}

func (c *Client) ListIssueComments(ctx context.Context, repo Repo, number int) ([]Comment, error) {
	var out []Comment
	err := paginate(func(lo gh.ListOptions) (*gh.Response, error) {
		cs, resp, err := c.gh.Issues.ListComments(ctx, repo.Owner, repo.Name, number, &gh.IssueListCommentsOptions{ListOptions: lo})
		for _, ic := range cs {
			out = append(out, comment(ic))
		}
		return resp, err
	})
	return out, wrap(fmt.Sprintf("list comments of %s#%d", repo, number), err)
}

// CreateIssueComment posts once: see createOnce.
func (c *Client) CreateIssueComment(ctx context.Context, repo Repo, number int, body string) (Comment, error) {
	return createOnce(ctx, c, fmt.Sprintf("comment on %s#%d", repo, number),
		func(ctx context.Context) (Comment, error) {
			ic, _, err := c.gh.Issues.CreateComment(ctx, repo.Owner, repo.Name, number, &gh.IssueComment{Body: &body})
			if err != nil {
				return Comment{}, err
			}
			return comment(ic), nil
		},
		func(ctx context.Context, id Identity) (Comment, bool, error) {
			return c.findComment(ctx, repo, number, body, id)
		})
}

func (c *Client) EditIssueComment(ctx context.Context, repo Repo, id int64, body string) (Comment, error) {
	ic, _, err := c.gh.Issues.EditComment(ctx, repo.Owner, repo.Name, id, &gh.IssueComment{Body: &body})
	if err != nil {
		return Comment{}, wrap(fmt.Sprintf("edit comment %d in %s", id, repo), err)
	}
	return comment(ic), nil
}

func (c *Client) DeleteIssueComment(ctx context.Context, repo Repo, id int64) error {
	_, err := c.gh.Issues.DeleteComment(ctx, repo.Owner, repo.Name, id)
	return wrap(fmt.Sprintf("delete comment %d in %s", id, repo), err)
}

func (c *Client) CreateStatus(ctx context.Context, repo Repo, sha string, st Status) (User, error) {
	s := &gh.RepoStatus{State: &st.State, Context: &st.Context}
	if st.Description != "" {
		s.Description = &st.Description
	}
	if st.TargetURL != "" {
		s.TargetURL = &st.TargetURL
	}
	// Setting a status again is harmless (the newest counts): retried like any call.
	created, _, err := c.gh.Repositories.CreateStatus(idempotent(ctx), repo.Owner, repo.Name, sha, s)
	if err != nil {
		return User{}, wrap(fmt.Sprintf("set status %s on %s@%s", st.Context, repo, sha), err)
	}
	creator := user(created.GetCreator())
	c.learnIdentity(creator)
	return creator, nil
}

func (c *Client) ListReviews(ctx context.Context, repo Repo, number int) ([]Review, error) {
	var out []Review
	err := paginate(func(lo gh.ListOptions) (*gh.Response, error) {
		rs, resp, err := c.gh.PullRequests.ListReviews(ctx, repo.Owner, repo.Name, number, &lo)
		for _, r := range rs {
			out = append(out, Review{ID: r.GetID(), User: user(r.User), State: r.GetState(),
				CommitID: r.GetCommitID(), SubmittedAt: r.GetSubmittedAt().Time})
		}
		return resp, err
	})
	return out, wrap(fmt.Sprintf("list reviews of %s#%d", repo, number), err)
}

// CollaboratorPermission is login's permission in repo: admin, write, read or none.
func (c *Client) CollaboratorPermission(ctx context.Context, repo Repo, login string) (string, error) {
	p, _, err := c.gh.Repositories.GetPermissionLevel(ctx, repo.Owner, repo.Name, login)
	if err != nil {
		return "", wrap(fmt.Sprintf("get permission of %s in %s", login, repo), err)
	}
	return p.GetPermission(), nil
}

func (c *Client) ListPullFiles(ctx context.Context, repo Repo, number int) ([]string, error) {
	var out []string
	err := paginate(func(lo gh.ListOptions) (*gh.Response, error) {
		fs, resp, err := c.gh.PullRequests.ListFiles(ctx, repo.Owner, repo.Name, number, &lo)
		for _, f := range fs {
			out = append(out, f.GetFilename())
		}
		return resp, err
	})
	return out, wrap(fmt.Sprintf("list files of %s#%d", repo, number), err)
}

func pullRequest(pr *gh.PullRequest) PullRequest {
	base := pr.GetBase().GetRepo().GetFullName()
	head := pr.GetHead().GetRepo().GetFullName()
	return PullRequest{
		Number: pr.GetNumber(), Title: pr.GetTitle(), State: pr.GetState(),
		// The list endpoints (pull-request-simple) carry merged_at but no merged.
		Merged:         pr.GetMerged() || pr.MergedAt != nil,
		MergeCommitSHA: pr.GetMergeCommitSHA(),
		HeadSHA:        pr.GetHead().GetSHA(), HeadRef: pr.GetHead().GetRef(), HeadRepo: head,
		BaseRef: pr.GetBase().GetRef(), BaseSHA: pr.GetBase().GetSHA(),
		Author: user(pr.User),
		Fork:   head == "" || !strings.EqualFold(head, base),
	}
}

func (c *Client) GetPull(ctx context.Context, repo Repo, number int) (PullRequest, error) {
	pr, _, err := c.gh.PullRequests.Get(ctx, repo.Owner, repo.Name, number)
	if err != nil {
		return PullRequest{}, wrap(fmt.Sprintf("get pull request %s#%d", repo, number), err)
	}
	return pullRequest(pr), nil
}

func (c *Client) ListCommitPulls(ctx context.Context, repo Repo, sha string) ([]PullRequest, error) {
	var out []PullRequest
	err := paginate(func(lo gh.ListOptions) (*gh.Response, error) {
		prs, resp, err := c.gh.PullRequests.ListPullRequestsWithCommit(ctx, repo.Owner, repo.Name, sha, &lo)
		for _, pr := range prs {
			out = append(out, pullRequest(pr))
		}
		return resp, err
	})
	return out, wrap(fmt.Sprintf("list pull requests of commit %s in %s", sha, repo), err)
}

func issue(i *gh.Issue) Issue {
	out := Issue{Number: i.GetNumber(), Title: i.GetTitle(), Body: i.GetBody(), State: i.GetState(),
		Author: user(i.User), HTMLURL: i.GetHTMLURL()}
	for _, l := range i.Labels {
		out.Labels = append(out.Labels, l.GetName())
	}
	return out
}

func (c *Client) ListIssues(ctx context.Context, repo Repo, f IssueFilter) ([]Issue, error) {
	var out []Issue
	err := paginate(func(lo gh.ListOptions) (*gh.Response, error) {
		is, resp, err := c.gh.Issues.ListByRepo(ctx, repo.Owner, repo.Name, &gh.IssueListByRepoOptions{
			State: f.State, Labels: f.Labels, Creator: f.Creator, ListOptions: lo})
		for _, i := range is {
			if !i.IsPullRequest() {
				out = append(out, issue(i))
			}
		}
		return resp, err
	})
	return out, wrap(fmt.Sprintf("list issues of %s", repo), err)
}

func issueRequest(r IssueRequest) *gh.IssueRequest {
	return &gh.IssueRequest{Title: r.Title, Body: r.Body, State: r.State, Labels: r.Labels}
}

// CreateIssue creates once: see createOnce.
func (c *Client) CreateIssue(ctx context.Context, repo Repo, r IssueRequest) (Issue, error) {
	return createOnce(ctx, c, fmt.Sprintf("create issue in %s", repo),
		func(ctx context.Context) (Issue, error) {
			i, _, err := c.gh.Issues.Create(ctx, repo.Owner, repo.Name, issueRequest(r))
			if err != nil {
				return Issue{}, err
			}
			return issue(i), nil
		},
		func(ctx context.Context, id Identity) (Issue, bool, error) {
			return c.findIssue(ctx, repo, r, id)
		})
}

func (c *Client) EditIssue(ctx context.Context, repo Repo, number int, r IssueRequest) (Issue, error) {
	i, _, err := c.gh.Issues.Edit(ctx, repo.Owner, repo.Name, number, issueRequest(r))
	if err != nil {
		return Issue{}, wrap(fmt.Sprintf("edit issue %s#%d", repo, number), err)
	}
	return issue(i), nil
}

func (c *Client) ListLabels(ctx context.Context, repo Repo) ([]Label, error) {
	var out []Label
	err := paginate(func(lo gh.ListOptions) (*gh.Response, error) {
		ls, resp, err := c.gh.Issues.ListLabels(ctx, repo.Owner, repo.Name, &lo)
		for _, l := range ls {
			out = append(out, Label{Name: l.GetName(), Color: l.GetColor(), Description: l.GetDescription()})
		}
		return resp, err
	})
	return out, wrap(fmt.Sprintf("list labels of %s", repo), err)
}

func (c *Client) CreateLabel(ctx context.Context, repo Repo, l Label) error {
	gl := &gh.Label{Name: &l.Name}
	if l.Color != "" {
		gl.Color = &l.Color
	}
	if l.Description != "" {
		gl.Description = &l.Description
	}
	// Sent again after a lost answer, a label GitHub did create is a 422 "already exists".
	_, _, err := c.gh.Issues.CreateLabel(idempotent(ctx), repo.Owner, repo.Name, gl)
	return wrap(fmt.Sprintf("create label %q in %s", l.Name, repo), err)
}

// ListArtifacts uses the name filter GitHub has (go-github v60 does not expose it).
func (c *Client) ListArtifacts(ctx context.Context, repo Repo, name string, runID int64) ([]Artifact, error) {
	path := fmt.Sprintf("repos/%s/%s/actions/artifacts", url.PathEscape(repo.Owner), url.PathEscape(repo.Name))
	if runID != 0 {
		path = fmt.Sprintf("repos/%s/%s/actions/runs/%d/artifacts", url.PathEscape(repo.Owner), url.PathEscape(repo.Name), runID)
	}
	var out []Artifact
	err := paginate(func(lo gh.ListOptions) (*gh.Response, error) {
		q := url.Values{}
		if name != "" {
			q.Set("name", name)
		}
		q.Set("per_page", fmt.Sprint(lo.PerPage))
		q.Set("page", fmt.Sprint(lo.Page))
		req, err := c.gh.NewRequest(http.MethodGet, path+"?"+q.Encode(), nil)
		if err != nil {
			return nil, err
		}
		var list gh.ArtifactList
		resp, err := c.gh.Do(ctx, req, &list)
		for _, a := range list.Artifacts {
			run := a.GetWorkflowRun()
			out = append(out, Artifact{ID: a.GetID(), Name: a.GetName(), RunID: run.GetID(),
				SizeBytes: a.GetSizeInBytes(), Expired: a.GetExpired(), CreatedAt: a.GetCreatedAt().Time,
				RepositoryID: run.GetRepositoryID(), HeadRepositoryID: run.GetHeadRepositoryID(), HeadSHA: run.GetHeadSHA()})
		}
		return resp, err
	})
	return out, wrap(fmt.Sprintf("list artifacts %q of %s", name, repo), err)
}

// DownloadArtifact follows GitHub's redirect to the archive without sending the token to
// the storage host.
func (c *Client) DownloadArtifact(ctx context.Context, repo Repo, id int64) ([]byte, error) {
	what := fmt.Sprintf("download artifact %d of %s", id, repo)
	u, _, err := c.gh.Actions.DownloadArtifact(ctx, repo.Owner, repo.Name, id, 1)
	if err != nil {
		return nil, wrap(what, err)
	}
	b, err := c.fetchBlob(ctx, u.String())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return b, nil
}

// fetchBlob downloads from storage; a body that stops halfway (StallError) is fetched again
// after a backoff, like a stall before the answer, up to Options.MaxAttempts in all.
func (c *Client) fetchBlob(ctx context.Context, u string) ([]byte, error) {
	backoff := c.o.Backoff
	for attempt := 1; ; attempt++ {
		b, midway, err := c.fetchBlobOnce(ctx, u)
		var stall *StallError
		// (A stall before the answer was retried by the transport already.)
		if err == nil || !midway || !errors.As(err, &stall) || attempt >= c.o.MaxAttempts {
			return b, err
		}
		if serr := sleep(ctx, jitter(backoff)); serr != nil {
			return nil, err
		}
		backoff *= 2
		c.n.retries.Add(1)
	}
}

// fetchBlobOnce is one download; midway reports an error while reading the body.
func (c *Client) fetchBlobOnce(ctx context.Context, u string) (b []byte, midway bool, err error) {
	req, err := http.NewRequestWithContext(streamed(ctx), http.MethodGet, u, nil)
	if err != nil {
		return nil, false, errors.New("the storage URL GitHub redirected to is not a valid URL")
	}
	resp, err := c.plain.Do(req)
	if err != nil {
		return nil, false, unsigned(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, false, fmt.Errorf("storage answered %s", resp.Status)
	}
	b, err = io.ReadAll(io.LimitReader(resp.Body, c.o.MaxArtifact+1))
	if err != nil {
		return nil, true, err
	}
	if int64(len(b)) > c.o.MaxArtifact {
		return nil, false, fmt.Errorf("larger than %d bytes", c.o.MaxArtifact)
	}
	return b, false, nil
}

// unsigned is err without the query of the storage URL it names: the signature there is a
// credential (anyone holding it can download the archive), and errors reach the log.
func unsigned(err error) error {
	var ue *url.Error
	if !errors.As(err, &ue) {
		return err
	}
	where := "the storage URL"
	if p, perr := url.Parse(ue.URL); perr == nil {
		p.RawQuery, p.Fragment, p.User = "", "", nil
		where = p.String()
	}
	return fmt.Errorf("%s %s: %w", ue.Op, where, ue.Err)
}
