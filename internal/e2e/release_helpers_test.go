package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tfgate/tfgate/internal/github/githubtest"
)

// testRelease is tfgate built from this checkout as a release of tfgate/tfgate: the stamped
// binary, and the assets goreleaser publishes for this machine (the archive, checksums.txt).
type testRelease struct {
	Version string // the tag, v1.2.3
	Commit  string // the commit its tag points at
	Binary  []byte
	Archive []byte
	Layout  goreleaserLayout
}

// builtReleases holds the releases built by this test process, by version: each is a link of
// tfgate (the Go build cache holds the packages), done once.
var builtReleases struct {
	sync.Mutex
	m map[string]testRelease
}

// release builds (once per process) tfgate stamped as release version of commit, as
// .goreleaser.yaml stamps and packs it.
func (e actEnv) release(t *testing.T, version, commit string) testRelease {
	t.Helper()
	builtReleases.Lock()
	defer builtReleases.Unlock()
	if r, ok := builtReleases.m[version]; ok && r.Commit == commit {
		return r
	}
	layout := releaseLayout(t, e.root)
	bin := e.buildTfgate(t, "-X github.com/tfgate/tfgate/internal/cli.Version="+version+
		" -X github.com/tfgate/tfgate/internal/cli.Commit="+commit+
		" -X github.com/tfgate/tfgate/internal/cli.Date=2026-01-02T03:04:05Z")
	readme, err := os.ReadFile(filepath.Join(e.root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	r := testRelease{Version: version, Commit: commit, Binary: bin, Layout: layout,
		Archive: tarGz(t, map[string][]byte{"tfgate": bin, "README.md": readme})}
	if builtReleases.m == nil {
		builtReleases.m = map[string]testRelease{}
	}
	builtReleases.m[version] = r
	return r
}

// buildTfgate builds tfgate from this checkout with the action's source build's flags (so
// the host's Go build cache serves it) plus ldflags, and returns the binary.
func (e actEnv) buildTfgate(t *testing.T, ldflags string) []byte {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "tfgate")
	start := time.Now()
	cmd := exec.Command("go", "build", "-ldflags", strings.TrimSpace("-s -w "+ldflags), "-o", bin, "./cmd/tfgate")
	cmd.Dir = e.root
	cmd.Env = append(os.Environ(), append([]string{"CGO_ENABLED=0"}, e.goEnv...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build tfgate: %v\n%s", err, out)
	}
	t.Logf("built tfgate (%s) in %v", ldflags, time.Since(start).Round(time.Millisecond))
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// archiveName is the release's archive for this machine.
func (r testRelease) archiveName() string {
	return r.Layout.archive(strings.TrimPrefix(r.Version, "v"))
}

// serve publishes the release on api as tfgate/tfgate's, its tag on its commit, with the
// archive and a checksums.txt listing it (and another platform's archive, as goreleaser's
// does).
func (r testRelease) serve(api *githubtest.Server) {
	api.AddRelease("tfgate/tfgate", githubtest.Release{Tag: r.Version, Commit: r.Commit, Assets: []githubtest.Asset{
		{Name: r.archiveName(), ContentType: "application/gzip", Data: r.Archive},
		{Name: "checksums.txt", ContentType: "text/plain", Data: []byte(checksums(map[string][]byte{
			r.archiveName(): r.Archive,
			r.Layout.archiveFor(strings.TrimPrefix(r.Version, "v"), "darwin", "arm64"): []byte("another platform"),
		}))},
	}})
}

// checksums is a checksums.txt as goreleaser writes it: "<sha256>  <name>" a line.
func checksums(files map[string][]byte) string {
	var b strings.Builder
	for _, name := range slices.Sorted(maps.Keys(files)) {
		sum := sha256.Sum256(files[name])
		fmt.Fprintf(&b, "%s  %s\n", hex.EncodeToString(sum[:]), name)
	}
	return b.String()
}

// releasedAction is the action as a release of it is checked out on a runner, without tfgate's
// source: it can only download tfgate, never build it.
func (e actEnv) releasedAction(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "tfgate-action")
	copyFile(t, filepath.Join(e.root, "action.yml"), filepath.Join(dir, "action.yml"))
	return dir
}

// pathWithoutGo is $PATH without the directories that hold a go command: a runner without Go.
func pathWithoutGo() string {
	var keep []string
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(dir, "go")); err != nil {
			keep = append(keep, dir)
		}
	}
	return strings.Join(keep, string(filepath.ListSeparator))
}
