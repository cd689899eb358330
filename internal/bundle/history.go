package bundle

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/tfgate/tfgate/internal/github"
)

// Publication is one upload of a commit's plans: an Actions artifact of the wanted name
// from one of the repository's own runs for that commit, as GitHub records it. Each plan
// run uploads its own (a re-plan of the same commit, another run, another artifact).
type Publication struct {
	Name      string // the artifact's
	ID        int64
	RunID     int64
	CreatedAt time.Time // GitHub's clock, to the second
	Expired   bool      // its retention ran out: it can no longer be read
}

// History is a Store that knows each time a commit's plans were published. The GitHub
// store is one; a directory (--plans DIR) is not: it holds one plan and no record of when
// it was shown.
type History interface {
	Store
	// Published are the publications of the plans w names, as the last Fetch that found
	// them listed them: oldest first (by GitHub's created_at, then id), up to the one it
	// fetched, which is last; none before a Fetch found them. It makes no request.
	Published(w Want) []Publication
	// FetchPublished unpacks publication p (one of Published) into dest, an empty or
	// missing directory, as Fetch does.
	FetchPublished(ctx context.Context, p Publication, dest string) (string, error)
}

var _ History = (*githubStore)(nil)

// remember records the publications of list called name up to fetched, the one Fetch took.
func (s *githubStore) remember(list []github.Artifact, name string, fetched github.Artifact) {
	var out []Publication
	for _, a := range list {
		if a.Name != name || later(a, fetched) {
			continue
		}
		out = append(out, Publication{Name: name, ID: a.ID, RunID: a.RunID, CreatedAt: a.CreatedAt.UTC(), Expired: a.Expired})
	}
	slices.SortFunc(out, func(a, b Publication) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	s.mu.Lock()
	if s.published == nil {
		s.published = map[string][]Publication{}
	}
	s.published[name] = out
	s.mu.Unlock()
}

// later reports whether a was created after b (by created_at, then id).
func later(a, b github.Artifact) bool {
	return a.CreatedAt.After(b.CreatedAt) || (a.CreatedAt.Equal(b.CreatedAt) && a.ID > b.ID)
}

func (s *githubStore) Published(w Want) []Publication {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.published[w.artifactName()])
}

func (s *githubStore) FetchPublished(ctx context.Context, p Publication, dest string) (string, error) {
	s.mu.Lock()
	name, known := p.Name, slices.Contains(s.published[p.Name], p)
	s.mu.Unlock()
	switch {
	case !known:
		return "", fmt.Errorf("plan artifact %q id %d is not one a fetch found", name, p.ID)
	case p.Expired:
		return "", fmt.Errorf("plan artifact %q (id %d, run %d) has expired: %w", name, p.ID, p.RunID, ErrNoBundle)
	}
	return s.unpack(ctx, name, github.Artifact{ID: p.ID, RunID: p.RunID, Name: name}, dest)
}
