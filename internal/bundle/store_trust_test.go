package bundle

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tfgate/tfgate/internal/github"
)

type listOnly struct{ list []github.Artifact }

func (l listOnly) ListArtifacts(context.Context, github.Repo, string, int64) ([]github.Artifact, error) {
	return l.list, nil
}
func (l listOnly) DownloadArtifact(context.Context, github.Repo, int64) ([]byte, error) {
	return nil, errors.New("must not download an untrusted artifact")
}

// An artifact of the right name that a fork's run uploaded, or a run for another commit,
// is never taken for the reviewed plan: its code chose the name.
func TestGitHubStoreIgnoresForeignArtifacts(t *testing.T) {
	head := strings.Repeat("a", 40)
	name := "tfgate-plan-" + head
	now := time.Now()
	for what, a := range map[string]github.Artifact{
		"fork":            {ID: 1, Name: name, CreatedAt: now, RepositoryID: 1, HeadRepositoryID: 2, HeadSHA: head},
		"undescribed run": {ID: 3, Name: name, CreatedAt: now, HeadSHA: head},
		"other commit":    {ID: 2, Name: name, CreatedAt: now, RepositoryID: 1, HeadRepositoryID: 1, HeadSHA: strings.Repeat("b", 40)},
	} {
		t.Run(what, func(t *testing.T) {
			s := GitHubStore(listOnly{[]github.Artifact{a}}, github.Repo{Owner: "acme", Name: "infra"})
			_, err := s.Fetch(context.Background(), Want{PR: 1, HeadSHA: head}, filepath.Join(t.TempDir(), "d"))
			if !errors.Is(err, ErrNoBundle) || !strings.Contains(err.Error(), "were ignored") {
				t.Fatalf("Fetch = %v, want ErrNoBundle naming the ignored artifact", err)
			}
		})
	}
}
