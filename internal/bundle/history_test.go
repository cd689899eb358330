package bundle

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/tfgate/tfgate/internal/github"
)

// The GitHub store records every publication of the plans it fetched, from the list it
// read (no request more): the repository's own, of the wanted name, oldest first, up to
// the one fetched. Only those can be fetched again, and an expired one cannot.
func TestGitHubStorePublished(t *testing.T) {
	day := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	name := "tfgate-plan-" + testCommit
	good := uploadLayout(t)
	api := fakeArtifacts{list: []github.Artifact{
		{ID: 7, Name: name, CreatedAt: day.Add(2 * time.Hour), RunID: 70},
		{ID: 2, Name: name, CreatedAt: day, Expired: true},
		{ID: 5, Name: name, CreatedAt: day.Add(time.Hour), RunID: 50},
		{ID: 6, Name: name, CreatedAt: day.Add(time.Hour), RunID: 60},                                // same second: by id
		{ID: 8, Name: name, CreatedAt: day.Add(3 * time.Hour), RepositoryID: 1, HeadRepositoryID: 2}, // a fork's
		{ID: 9, Name: name + "-other", CreatedAt: day.Add(4 * time.Hour)},
	}, zips: map[int64][]byte{7: good, 5: good}}
	s := GitHubStore(&api, testRepo)
	h := s.(History)
	w := Want{HeadSHA: testCommit}
	if got := h.Published(w); len(got) != 0 {
		t.Fatalf("before a fetch: %+v", got)
	}
	ctx := context.Background()
	if _, err := s.Fetch(ctx, w, filepath.Join(t.TempDir(), "f")); err != nil {
		t.Fatal(err)
	}
	if got := h.Published(Want{HeadSHA: testCommit, ArtifactName: "other"}); len(got) != 0 {
		t.Fatalf("another name: %+v", got)
	}
	pubs := h.Published(w)
	var ids []int64
	for _, p := range pubs {
		ids = append(ids, p.ID)
	}
	if !slices.Equal(ids, []int64{2, 5, 6, 7}) || !pubs[0].Expired || pubs[1].RunID != 50 || !pubs[3].CreatedAt.Equal(day.Add(2*time.Hour)) {
		t.Fatalf("published %+v", pubs)
	}
	api.downloaded = nil
	dir, err := h.FetchPublished(ctx, pubs[1], filepath.Join(t.TempDir(), "seen"))
	if err != nil || !slices.Equal(api.downloaded, []int64{5}) {
		t.Fatalf("fetch 5: %v, downloaded %v", err, api.downloaded)
	}
	if dirs, err := List(ctx, dir); err != nil || len(dirs) != 2 {
		t.Fatalf("listed %v, %v", dirs, err)
	}
	if _, err := h.FetchPublished(ctx, pubs[0], filepath.Join(t.TempDir(), "x")); !errors.Is(err, ErrNoBundle) {
		t.Errorf("expired: %v", err)
	}
	if _, err := h.FetchPublished(ctx, Publication{Name: name, ID: 8}, filepath.Join(t.TempDir(), "y")); err == nil {
		t.Error("a fork's artifact was fetched")
	}
	if !slices.Equal(api.downloaded, []int64{5}) {
		t.Errorf("downloaded %v", api.downloaded)
	}
}
