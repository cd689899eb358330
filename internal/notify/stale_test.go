package notify

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/github/githubtest"
	"github.com/tfgate/tfgate/internal/render"
)

// noCreator is a client whose status writes come back without a creator (GitHub's
// description allows a null one): tfgate must then learn who it writes as otherwise.
type noCreator struct{ *github.Client }

func (c noCreator) CreateStatus(ctx context.Context, repo github.Repo, sha string, st github.Status) (github.User, error) {
	_, err := c.Client.CreateStatus(ctx, repo, sha, st)
	return github.User{}, err
}

// TestTellStaleCalls: five calls per pull request (status, then its comments' list and the
// plan comment's edit), and who tfgate writes as is learnt once a run — not GET /user (a
// 403 under GITHUB_TOKEN) for every pull request told.
func TestTellStaleCalls(t *testing.T) {
	s := githubtest.New(t)
	repo := github.Repo{Owner: "acme", Name: "infra"}
	var heads []string
	var numbers []int
	for i := 0; i < 3; i++ {
		head := fmt.Sprintf("%040d", 300+i)
		n := s.AddPull("acme/infra", githubtest.Pull{HeadSHA: head, HeadRef: fmt.Sprintf("b%d", i)})
		s.AddComment("acme/infra", n, githubtest.Bot, fmt.Sprintf("<!-- tfgate:plan pr=%d part=1/1 -->\n## tfgate plan\n\n---\nfooter", n))
		heads, numbers = append(heads, head), append(numbers, n)
	}
	c, err := github.New(github.Options{BaseURL: s.URL(), Token: githubtest.InstallationToken})
	if err != nil {
		t.Fatal(err)
	}
	gh := &GitHub{API: noCreator{c}}
	st := render.Stale{Branch: "main", Projects: []string{"app"}, Merge: 7, Commit: strings.Repeat("c", 40)}
	for i, n := range numbers {
		if err := TellStale(context.Background(), gh, repo, n, heads[i], st, func(w string) { t.Error(w) }); err != nil {
			t.Fatal(err)
		}
		if cs := s.Comments("acme/infra", n); !strings.Contains(cs[0].Body, render.StaleBannerOpen) {
			t.Errorf("#%d: no banner:\n%s", n, cs[0].Body)
		}
	}
	counts := s.Counts()
	// (The client learnt the login from the first status's creator beneath the wrapper;
	// without it, GET /user once.)
	if counts["GET /user"] > 1 || s.Requests() > 1+3*3 {
		t.Errorf("%d calls, GET /user %d times; want at most 10, GET /user at most once: %v", s.Requests(), counts["GET /user"], counts)
	}
}
