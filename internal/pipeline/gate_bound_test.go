package pipeline

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tfgate/tfgate/internal/bundle"
	"github.com/tfgate/tfgate/internal/gate"
	"github.com/tfgate/tfgate/internal/github"
)

// fakeHistory is a bundle.History whose publications are fixed; each FetchPublished writes
// one bundle manifest of project app with the publication's digest.
type fakeHistory struct {
	bundle.Store
	pubs    []bundle.Publication
	digests map[int64]string
	fail    error
	fetched []int64
}

func (f *fakeHistory) Published(w bundle.Want) []bundle.Publication {
	if w.ArtifactName != "tfgate-plan-"+gateHead {
		return nil
	}
	return f.pubs
}

func (f *fakeHistory) FetchPublished(ctx context.Context, p bundle.Publication, dest string) (string, error) {
	f.fetched = append(f.fetched, p.ID)
	if f.fail != nil {
		return "", f.fail
	}
	m := bundle.Manifest{SchemaVersion: bundle.SchemaVersion, Project: "app", Dir: "app", Workspace: "default", Commit: gateHead,
		Applicable: true, Inputs: map[string]string{}, InputHash: bundle.InputHash(map[string]string{}), PlanFile: bundle.PlanFile,
		PlanSHA256: strings.Repeat("0", 64), ChangesDigest: f.digests[p.ID]}
	dir := filepath.Join(dest, "app")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, bundle.PlanFile), []byte("plan"), 0o600); err != nil {
		return "", err
	}
	if _, err := bundle.Write(ctx, dir, m); err != nil {
		return "", err
	}
	return dest, nil
}

// planHistory downloads only the earlier plans that approvals which would count were given
// on, each once; an expired one is unreadable; a download that fails is an error; without
// a record (a directory, a merge queue's commit) approvals are not bound.
func TestPlanHistory(t *testing.T) {
	t0 := time.Date(2024, 5, 1, 9, 0, 0, 0, time.UTC)
	minute := func(i int) time.Time { return t0.Add(time.Duration(i) * time.Minute) }
	pubs := []bundle.Publication{{ID: 1, CreatedAt: minute(0), Expired: true}, {ID: 2, CreatedAt: minute(10)}, {ID: 3, CreatedAt: minute(20)}, {ID: 4, CreatedAt: minute(30)}}
	approve := func(login string, i int, commit string) gate.Review {
		return gate.Review{ID: int64(i), Login: login, State: gate.Approved, CommitID: commit, SubmittedAt: minute(i)}
	}
	reviews := []gate.Review{
		approve("bob", 12, gateHead), approve("carol", 15, gateHead), // plan 2, fetched once
		approve("erin", 25, gateHead), // read access: plan 3 is not fetched
		approve("dave", 25, gateHead), // the author: nor for him
		approve("frank", 25, gateOld), // an older commit: nor for him
		approve("gina", 5, gateHead),  // plan 1, expired
		approve("hank", 35, gateHead), // the current plan
	}
	facts := gate.Facts{Permissions: map[string]string{"bob": "write", "carol": "admin", "erin": "read", "dave": "write",
		"frank": "write", "gina": "write", "hank": "write"}}
	run := func(store bundle.Store, queue string) (*gate.Plans, error) {
		a := &runFacts{gatherer: gatherer{plans: store, gh: &GitHubRun{}}, pr: github.PullRequest{Number: 7, HeadSHA: gateHead}, queue: queue}
		a.pr.Author.Login = "Dave"
		a.targets = []target{{projectCase: projectCase{bundle: &bundle.Manifest{Project: "app"}}}}
		return a.planHistory(context.Background(), reviews, facts)
	}
	h := &fakeHistory{pubs: pubs, digests: map[int64]string{2: strings.Repeat("d", 64)}}
	ps, err := run(h, "")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(h.fetched, []int64{2}) {
		t.Errorf("fetched %v, want [2]", h.fetched)
	}
	if len(ps.Published) != 4 || !ps.Published[3].Equal(minute(30)) {
		t.Errorf("published %v", ps.Published)
	}
	if got := ps.Seen[1].Projects["app"].Digest; got != strings.Repeat("d", 64) {
		t.Errorf("plan 2 of app: %q", got)
	}
	if ps.Seen[0].Unreadable == "" {
		t.Errorf("the expired plan is not unreadable: %+v", ps.Seen[0])
	}
	if _, ok := ps.Seen[2]; ok {
		t.Error("plan 3 was read: no approval that counts was given on it")
	}

	broken := &fakeHistory{pubs: pubs, fail: errors.New("GitHub answered 502")}
	if _, err := run(broken, ""); err == nil || !strings.Contains(err.Error(), "502") {
		t.Errorf("a failed download: %v", err)
	}
	if ps, err := run(bundle.DirStore(t.TempDir()), ""); ps != nil || err != nil {
		t.Errorf("a directory: %+v, %v", ps, err)
	}
	if ps, err := run(h, gateOld); ps != nil || err != nil {
		t.Errorf("a merge queue's commit: %+v, %v", ps, err)
	}
	if _, err := run(&fakeHistory{}, ""); err == nil {
		t.Error("no publication known of fetched plans: no error")
	}
}
