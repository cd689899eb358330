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
// whose name starts with refs/ + prefix (prefix as GitHub wants it: heads/<branch>…). The
// prefix goes into the path as one segment, its slashes escaped, as GitHub's own clients send
// a path parameter. GitHub's description gives the call no page parameters but a Link
// header: a next page it links is followed.
func (c *Client) ListMatchingRefs(ctx context.Context, repo Repo, prefix string) ([]Ref, error) {
	prefix = strings.TrimPrefix(prefix, "refs/")
	u := fmt.Sprintf("repos/%s/%s/git/matching-refs/%s", url.PathEscape(repo.Owner), url.PathEscape(repo.Name), url.PathEscape(prefix))
	var out []Ref
	for page := 1; ; {
		p := u
		if page > 1 {
			p = fmt.Sprintf("%s?page=%d", u, page)
		}
		req, err := c.gh.NewRequest("GET", p, nil)
		if err != nil {
			return nil, wrap("list the references refs/"+prefix+"* of "+repo.String(), err)
		}
		var refs []*gh.Reference
		resp, err := c.gh.Do(ctx, req, &refs)
		if err != nil {
			return nil, wrap("list the references refs/"+prefix+"* of "+repo.String(), err)
		}
		for _, r := range refs {
			out = append(out, Ref{Name: r.GetRef(), SHA: r.GetObject().GetSHA()})
		}
		if resp.NextPage == 0 || resp.NextPage <= page {
			return out, nil
		}
		page = resp.NextPage
	}
}
