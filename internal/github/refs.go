package github

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	gh "github.com/google/go-github/v60/github"
)

// Ref is a git reference: its full name (refs/heads/…) and the commit it points at.
type Ref struct {
	Name string
	SHA  string
}

// ListMatchingRefs is GET /repos/{owner}/{repo}/git/matching-refs/{ref}: every reference
// whose name starts with refs/ + prefix (prefix as GitHub wants it: heads/<branch>…), all
// pages. The prefix goes into the path as one segment, its slashes escaped, as GitHub's own
// clients send a path parameter.
func (c *Client) ListMatchingRefs(ctx context.Context, repo Repo, prefix string) ([]Ref, error) {
	prefix = strings.TrimPrefix(prefix, "refs/")
	var out []Ref
	err := paginate(func(lo gh.ListOptions) (*gh.Response, error) {
		u := fmt.Sprintf("repos/%s/%s/git/matching-refs/%s?per_page=%d&page=%d", url.PathEscape(repo.Owner),
			url.PathEscape(repo.Name), url.PathEscape(prefix), lo.PerPage, lo.Page)
		req, err := c.gh.NewRequest("GET", u, nil)
		if err != nil {
			return nil, err
		}
		var refs []*gh.Reference
		resp, err := c.gh.Do(ctx, req, &refs)
		for _, r := range refs {
			out = append(out, Ref{Name: r.GetRef(), SHA: r.GetObject().GetSHA()})
		}
		return resp, err
	})
	return out, wrap(fmt.Sprintf("list the references %s* of %s", "refs/"+prefix, repo), err)
}
