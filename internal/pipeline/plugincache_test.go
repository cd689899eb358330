package pipeline

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tfgate/tfgate/internal/bundle"
	"github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/project"
	"github.com/tfgate/tfgate/internal/report"
	"github.com/tfgate/tfgate/internal/stage"
	"github.com/tfgate/tfgate/internal/terraform"
	"github.com/tfgate/tfgate/internal/testenv"
	"github.com/tfgate/tfgate/internal/testprovider"
)

// cacheProject is a project on fakecloud; %d makes each one's object its own.
const cacheProject = `terraform {
  required_providers {
    fakecloud = { source = "tfgate/fakecloud" }
  }
}

provider "fakecloud" {
  dir = "objects"
}

resource "fakecloud_object" "o" {
  name    = "o%d"
  content = "planned through the shared plugin cache"
}
`

// cacheFixture is a repository of n fakecloud projects, each with the same committed
// .terraform.lock.hcl, and a packed filesystem mirror serving fakecloud as a registry would
// (a zip, which terraform unpacks into the cache; from an unpacked mirror it would only link).
type cacheFixture struct {
	bin      terraform.Binary
	env      map[string]string
	packed   testprovider.Packed
	lock     []byte
	root     string
	projects []project.Project
	data     string // the projects' data directories (PlanOptions.keepDataDirs)
}

func newCacheFixture(tb testing.TB, n int) *cacheFixture {
	tb.Helper()
	return newCacheFixtureLocked(tb, n, true)
}

// newCacheFixtureLocked is newCacheFixture, with or without the committed lock files.
func newCacheFixtureLocked(tb testing.TB, n int, locked bool) *cacheFixture {
	tb.Helper()
	f := &cacheFixture{bin: testBinary(tb)}
	tmp := tb.TempDir()
	var err error
	if f.packed, err = testprovider.WritePacked(testenv.Plugins(tb), filepath.Join(tmp, "mirror")); err != nil {
		tb.Fatal(err)
	}
	tfrc := filepath.Join(tmp, "cli.tfrc")
	if err := os.WriteFile(tfrc, []byte(testprovider.CLIConfig(f.packed.Dir)), 0o644); err != nil {
		tb.Fatal(err)
	}
	f.env = testenv.RunEnv()
	f.env["TF_CLI_CONFIG_FILE"] = tfrc
	f.env["HOME"] = tmp
	f.lock = lockFile(tb, f)
	files := map[string]string{}
	for i := range n {
		files[fmt.Sprintf("p%02d/main.tf", i)] = fmt.Sprintf(cacheProject, i)
		if locked {
			files[fmt.Sprintf("p%02d/.terraform.lock.hcl", i)] = string(f.lock)
		}
	}
	f.root = testenv.WriteTree(tb, files)
	f.data = tb.TempDir()
	if f.projects, err = project.Discover(context.Background(), f.root, config.Default()); err != nil || len(f.projects) != n {
		tb.Fatalf("discover: %v (%d projects, want %d)", err, len(f.projects), n)
	}
	return f
}

// locks holds the lock file terraform writes for fakecloud, by the provider's checksum:
// generated once, as a team generates theirs once and commits it.
var locks = struct {
	sync.Mutex
	m map[[32]byte][]byte
}{m: map[[32]byte][]byte{}}

func lockFile(tb testing.TB, f *cacheFixture) []byte {
	tb.Helper()
	locks.Lock()
	defer locks.Unlock()
	if lock := locks.m[f.packed.SHA256]; lock != nil {
		return lock
	}
	dir := testenv.WriteTree(tb, map[string]string{"main.tf": fmt.Sprintf(cacheProject, 0)})
	cmd := exec.Command(f.bin.Path, "init", "-input=false", "-no-color")
	cmd.Dir = dir
	for k, v := range f.env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("terraform init for the lock file: %v\n%s", err, out)
	}
	lock, err := os.ReadFile(filepath.Join(dir, ".terraform.lock.hcl"))
	if err != nil {
		tb.Fatal(err)
	}
	locks.m[f.packed.SHA256] = lock
	return lock
}

// plan plans every project from a fresh checkout with the cache in dir.
func (f *cacheFixture) plan(tb testing.TB, cache string, parallel int) time.Duration {
	tb.Helper()
	f.fresh(tb)
	return f.run(tb, stage.PlanOptions{Env: stage.Env{Parallel: parallel}, PluginCacheDir: cache})
}

// fresh makes the projects a fresh checkout, as in every CI job: no data directories. The
// runs never make a .terraform in the projects (datadir.go).
func (f *cacheFixture) fresh(tb testing.TB) {
	tb.Helper()
	for _, p := range f.projects {
		if _, err := os.Lstat(filepath.Join(f.root, p.Dir, ".terraform")); err == nil {
			tb.Fatalf("%s/.terraform exists: terraform's data directory must be outside the work tree", p.Dir)
		}
	}
	if err := os.RemoveAll(f.data); err != nil {
		tb.Fatal(err)
	}
}

// run plans every project with opts' Parallel, PluginCacheDir and extra Env, and fails
// unless each plan succeeds.
func (f *cacheFixture) run(tb testing.TB, opts stage.PlanOptions) time.Duration {
	tb.Helper()
	env := maps.Clone(f.env)
	maps.Copy(env, opts.TerraformEnv)
	opts.Root, opts.Projects, opts.Binary, opts.TerraformEnv, opts.KeepDataDirs = f.root, f.projects, f.bin, env, f.data
	start := time.Now()
	run, err := stage.Plan(context.Background(), opts)
	took := time.Since(start)
	if err != nil {
		tb.Fatal(err)
	}
	for _, p := range run.Projects {
		if p.Status != report.StatusPlanned || p.Changes == nil || p.Changes.Summary.Add != 1 {
			tb.Fatalf("%s: %s %s", p.Name, p.Status, p.Error)
		}
	}
	return took
}

// checkCache asserts that the cache holds one provider package, complete: its one file is
// the provider binary, byte for byte the mirror's, executable — nothing half-written,
// nothing linked, nothing left over.
func (f *cacheFixture) checkCache(tb testing.TB, cache string) {
	tb.Helper()
	var found []string
	err := filepath.WalkDir(cache, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == cache {
			return err
		}
		rel, _ := filepath.Rel(cache, path)
		if !d.IsDir() || strings.HasPrefix(d.Name(), ".") {
			found = append(found, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	want := strings.Join([]string{testprovider.Address, f.packed.Version, f.packed.Platform, f.packed.Binary}, "/")
	if len(found) != 1 || found[0] != want {
		tb.Fatalf("cache holds %q, want exactly [%s]", found, want)
	}
	path := filepath.Join(cache, filepath.FromSlash(want))
	info, err := os.Lstat(path)
	if err != nil {
		tb.Fatal(err)
	}
	if !info.Mode().IsRegular() || info.Mode().Perm()&0o100 == 0 {
		tb.Fatalf("cached provider %s: mode %v, want an executable file", want, info.Mode())
	}
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	if sha256.Sum256(data) != f.packed.SHA256 {
		tb.Fatalf("cached provider %s (%d bytes) differs from the mirror's", want, len(data))
	}
}

// checkLocks asserts that every project's lock file is the committed one, byte for byte.
func (f *cacheFixture) checkLocks(tb testing.TB) {
	tb.Helper()
	for _, p := range f.projects {
		got, err := os.ReadFile(filepath.Join(f.root, p.Dir, ".terraform.lock.hcl"))
		if err != nil {
			tb.Fatal(err)
		}
		if !bytes.Equal(got, f.lock) {
			tb.Fatalf("%s/.terraform.lock.hcl changed:\n%s\nwant:\n%s", p.Dir, got, f.lock)
		}
	}
}

// linkedFromCache counts the projects whose installed provider is the cache's package.
func (f *cacheFixture) linkedFromCache(tb testing.TB, cache string) int {
	tb.Helper()
	n := 0
	for _, p := range f.projects {
		matches, err := filepath.Glob(filepath.Join(f.data, bundle.DirName(p.Name, p.Workspace), "providers", filepath.FromSlash(testprovider.Address), "*", "*"))
		if err != nil || len(matches) != 1 {
			tb.Fatalf("%s: installed providers %v (%v)", p.Dir, matches, err)
		}
		real, err := filepath.EvalSymlinks(matches[0])
		if err != nil {
			tb.Fatal(err)
		}
		realCache, _ := filepath.EvalSymlinks(cache)
		if strings.HasPrefix(real, realCache+string(filepath.Separator)) {
			n++
		}
	}
	return n
}

// TestPluginCacheColdWarm plans 40 projects two at a time with a cold cache, then again
// from fresh checkouts with the cache warm and the mirror's package gone: the warm run
// fetches nothing. Each time every plan succeeds, the cache holds one intact provider, and
// no lock file changes.
func TestPluginCacheColdWarm(t *testing.T) {
	f := newCacheFixture(t, 40)
	cache := filepath.Join(t.TempDir(), "plugins") // created by the run
	if sum, err := testprovider.ZipSHA256(f.packed.Zip); err != nil || sum != f.packed.SHA256 {
		t.Fatalf("the mirror's zip: %v", err)
	}

	cold := f.plan(t, cache, 2)
	f.checkCache(t, cache)
	f.checkLocks(t)
	// Only the projects that started before the provider was cached have their own copy.
	if n := f.linkedFromCache(t, cache); n < len(f.projects)-2 {
		t.Errorf("cold run: %d of %d projects use the cached provider, want all but the first two at most", n, len(f.projects))
	}

	// The mirror still lists the version, but its package is gone: any fetch fails.
	if err := os.WriteFile(f.packed.Zip, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	warm := f.plan(t, cache, 2)
	f.checkCache(t, cache)
	f.checkLocks(t)
	if n := f.linkedFromCache(t, cache); n != len(f.projects) {
		t.Errorf("warm run: %d of %d projects use the cached provider, want all", n, len(f.projects))
	}
	t.Logf("40 projects, --parallel 2: cold cache %v, warm cache %v", cold.Round(time.Millisecond), warm.Round(time.Millisecond))

	// The proof that the warm run took the provider from the cache: with an empty one the
	// same plan fails on the mirror's empty package.
	run, err := stage.Plan(context.Background(), stage.PlanOptions{Env: stage.Env{Root: f.root, TerraformEnv: maps.Clone(f.env), Parallel: 1},
		Projects: f.projects[:1], Binary: f.bin, PluginCacheDir: t.TempDir()})
	if err != nil || run.Projects[0].Status != report.StatusFailed || !strings.Contains(run.Projects[0].Error, "zip") {
		t.Fatalf("plan with an empty cache and no package in the mirror: %v %s %s, want it to fail", err, run.Projects[0].Status, run.Projects[0].Error)
	}
}

// TestPluginCacheConcurrent: 20 projects sharing one provider through the cache, four at a
// time, three times from a cold cache (run it with -race, as make test does); the cache
// and the lock files stay intact each time.
func TestPluginCacheConcurrent(t *testing.T) {
	f := newCacheFixture(t, 20)
	for round := range 3 {
		cache := filepath.Join(t.TempDir(), "plugins")
		took := f.plan(t, cache, 4)
		f.checkCache(t, cache)
		f.checkLocks(t)
		t.Logf("round %d: 20 projects, --parallel 4, cold cache: %v", round+1, took.Round(time.Millisecond))
	}
}

// TestPluginCacheWithoutLockFiles: without lock files terraform installs every provider
// for real, even one in its cache — over the cached binary, while other projects' plans
// run it, when terraform writes its own cache. Here terraform never writes the shared one:
// 20 projects four at a time all plan, the cache stays intact, and the lock files terraform
// writes are the ones it would write without a cache.
func TestPluginCacheWithoutLockFiles(t *testing.T) {
	f := newCacheFixtureLocked(t, 20, false)
	cache := filepath.Join(t.TempDir(), "plugins")
	f.plan(t, cache, 4)
	f.checkCache(t, cache)
	f.checkLocks(t)
}
