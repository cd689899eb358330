package terraform

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"sync"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/dirhash"
)

const fakeAddr = "registry.terraform.io/acme/thing"

// writePackage writes a provider package (one executable file) at dir and returns its h1.
func writePackage(t *testing.T, dir, content string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeExecutable(t, filepath.Join(dir, "terraform-provider-thing_v1.0.0"), content)
	sum, err := dirhash.HashDir(dir, "", dirhash.Hash1)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

func pkgPath(root, version, platform string) string {
	return filepath.Join(root, filepath.FromSlash(fakeAddr), version, platform)
}

func lockText(version string, hashes ...string) string {
	s := fmt.Sprintf("provider %q {\n  version = %q\n  hashes = [\n", fakeAddr, version)
	for _, h := range hashes {
		s += fmt.Sprintf("    %q,\n", h)
	}
	return s + "  ]\n}\n"
}

func TestReadLocks(t *testing.T) {
	dir := writeFiles(t, map[string]string{".terraform.lock.hcl": lockText("1.0.0", "h1:abc=", "zh:def") + `
provider "registry.terraform.io/hashicorp/null" {
  version     = "3.2.1"
  constraints = "~> 3.0"
  hashes      = ["h1:null="]
}
provider "../../etc" { version = "1.0.0" }
provider "registry.terraform.io/a/b" { hashes = ["h1:x="] }
provider "registry.terraform.io/a/c" { version = "../.." }
`})
	want := map[string]providerLock{
		fakeAddr:                               {version: "1.0.0", hashes: []string{"h1:abc=", "zh:def"}},
		"registry.terraform.io/hashicorp/null": {version: "3.2.1", hashes: []string{"h1:null="}},
	}
	if got := readLocks(dir); !reflect.DeepEqual(got, want) {
		t.Errorf("readLocks = %+v, want %+v", got, want)
	}
	for name, files := range map[string]map[string]string{
		"missing": {"main.tf": ""},
		"broken":  {".terraform.lock.hcl": "provider {"},
	} {
		if got := readLocks(writeFiles(t, files)); len(got) != 0 {
			t.Errorf("%s lock file: readLocks = %v, want nothing vouched", name, got)
		}
	}
}

// TestPluginView: a view links exactly the cached packages the lock file vouches for; a
// link it had before goes (terraform would unpack into the cache through one it rejects);
// a package terraform installed into it stays.
func TestPluginView(t *testing.T) {
	cache, view := t.TempDir(), filepath.Join(t.TempDir(), "view")
	good := writePackage(t, pkgPath(cache, "1.0.0", "linux_amd64"), "good")
	writePackage(t, pkgPath(cache, "1.0.0", "darwin_arm64"), "other platform, other checksum")
	writePackage(t, pkgPath(cache, "2.0.0", "linux_amd64"), "other version")
	// Left by an earlier init: a link to a package the lock file no longer vouches for,
	// and a package terraform installed into the view itself.
	if err := os.MkdirAll(filepath.Dir(pkgPath(view, "2.0.0", "linux_amd64")), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(pkgPath(cache, "2.0.0", "linux_amd64"), pkgPath(view, "2.0.0", "linux_amd64")); err != nil {
		t.Fatal(err)
	}
	own := writePackage(t, pkgPath(view, "1.0.0", "windows_amd64"), "installed by terraform")

	locks := map[string]providerLock{fakeAddr: {version: "1.0.0", hashes: []string{"zh:ignored", good, own}}}
	if err := preparePluginView(view, cache, locks); err != nil {
		t.Fatal(err)
	}
	got := listView(t, view)
	want := []string{
		fakeAddr + "/1.0.0/linux_amd64 -> " + pkgPath(cache, "1.0.0", "linux_amd64"),
		fakeAddr + "/1.0.0/windows_amd64 (dir)",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("view:\n%q\nwant\n%q", got, want)
	}

	// Nothing vouched (no lock file): no link at all.
	if err := preparePluginView(view, cache, nil); err != nil {
		t.Fatal(err)
	}
	if got := listView(t, view); !reflect.DeepEqual(got, want[1:]) {
		t.Errorf("view without locks: %q, want %q", got, want[1:])
	}
}

func listView(t *testing.T, view string) []string {
	t.Helper()
	var out []string
	err := walkPackages(view, func(rel string, d fs.DirEntry) error {
		s := filepath.ToSlash(rel) + " (dir)"
		if d.Type()&fs.ModeSymlink != 0 {
			target, err := os.Readlink(filepath.Join(view, rel))
			if err != nil {
				return err
			}
			s = filepath.ToSlash(rel) + " -> " + target
		}
		out = append(out, s)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// TestPromotePackages: what terraform installed into a view, and the lock file vouches
// for, is copied into the cache; links, packages the lock does not vouch for and packages
// the cache already has are not.
func TestPromotePackages(t *testing.T) {
	cache, view := t.TempDir(), t.TempDir()
	installed := writePackage(t, pkgPath(view, "1.0.0", "linux_amd64"), "installed")
	unvouched := pkgPath(view, "1.0.0", "darwin_arm64")
	writePackage(t, unvouched, "not in the lock file")
	inCache := writePackage(t, pkgPath(view, "1.0.0", "windows_amd64"), "newer bytes")
	writePackage(t, pkgPath(cache, "1.0.0", "windows_amd64"), "cached first")
	// terraform links a package of an unpacked filesystem mirror instead of copying it
	mirror := filepath.Join(t.TempDir(), "mirror")
	linked := writePackage(t, mirror, "mirror")
	if err := os.Symlink(mirror, pkgPath(view, "1.0.0", "linux_arm64")); err != nil {
		t.Fatal(err)
	}
	locks := map[string]providerLock{fakeAddr: {version: "1.0.0", hashes: []string{installed, inCache, linked}}}
	if err := promotePackages(view, cache, locks); err != nil {
		t.Fatal(err)
	}
	got := listView(t, cache)
	want := []string{fakeAddr + "/1.0.0/linux_amd64 (dir)", fakeAddr + "/1.0.0/windows_amd64 (dir)"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("cache: %q, want %q", got, want)
	}
	if sum, _ := dirhash.HashDir(pkgPath(cache, "1.0.0", "linux_amd64"), "", dirhash.Hash1); sum != installed {
		t.Errorf("promoted package differs from the installed one")
	}
	info, err := os.Stat(filepath.Join(pkgPath(cache, "1.0.0", "linux_amd64"), "terraform-provider-thing_v1.0.0"))
	if err != nil || info.Mode().Perm() != 0o755 {
		t.Errorf("promoted binary: %v %v, want mode 0755", info, err)
	}
	if data, _ := os.ReadFile(filepath.Join(pkgPath(cache, "1.0.0", "windows_amd64"), "terraform-provider-thing_v1.0.0")); string(data) != "cached first" {
		t.Errorf("a cached package changed: %q", data)
	}
	assertNoTemp(t, cache)
}

// TestPromoteConcurrently: many inits promoting the same package at once leave one
// complete copy and nothing else.
func TestPromoteConcurrently(t *testing.T) {
	cache := t.TempDir()
	var sums []string
	var views []string
	for range 8 {
		view := t.TempDir()
		sums = append(sums, writePackage(t, pkgPath(view, "1.0.0", "linux_amd64"), "the same provider"))
		views = append(views, view)
	}
	locks := map[string]providerLock{fakeAddr: {version: "1.0.0", hashes: sums[:1]}}
	var wg sync.WaitGroup
	errs := make([]error, len(views))
	for i, view := range views {
		wg.Go(func() { errs[i] = promotePackages(view, cache, locks) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("promotion %d: %v", i, err)
		}
	}
	if got := listView(t, cache); len(got) != 1 {
		t.Fatalf("cache: %q, want one package", got)
	}
	if sum, _ := dirhash.HashDir(pkgPath(cache, "1.0.0", "linux_amd64"), "", dirhash.Hash1); sum != sums[0] {
		t.Errorf("cached package is not intact")
	}
	assertNoTemp(t, cache)
}

func assertNoTemp(t *testing.T, cache string) {
	t.Helper()
	entries, err := os.ReadDir(cache)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != "registry.terraform.io" {
			t.Errorf("left in the cache: %s", e.Name())
		}
	}
}

// TestPackageHashNoticesChanges: the memo recomputes a checksum when a file changes.
func TestPackageHashNoticesChanges(t *testing.T) {
	dir := t.TempDir()
	first := writePackage(t, dir, "v1")
	if got, err := packageHash(dir); err != nil || got != first {
		t.Fatalf("packageHash = %s, %v; want %s", got, err, first)
	}
	second := writePackage(t, dir, "version two")
	if got, err := packageHash(dir); err != nil || got != second || got == first {
		t.Fatalf("after a change packageHash = %s, %v; want %s", got, err, second)
	}
}

// TestManagedInitUsesView: with the shared cache terraform's cache is the project's view.
// (Inits still take turns: init also sets up the state backend, where backends race.)
func TestManagedInitUsesView(t *testing.T) {
	tmp := t.TempDir()
	dump := filepath.Join(tmp, "cachedir")
	bin := writeFake(t, filepath.Join(tmp, "bin"), "terraform", "1.5.7", map[string]string{
		"init": `printf %s "$TF_PLUGIN_CACHE_DIR" > "$DUMP"`,
	})
	cache := t.TempDir()
	r, err := NewRunner(tmp, Binary{Path: bin, Flavor: FlavorTerraform}, RunnerOptions{
		Env: map[string]string{"DUMP": dump, "TF_PLUGIN_CACHE_DIR": cache}, PluginCache: cache})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10e9)
	defer cancel()
	if err := r.Init(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(dump)
	if want := filepath.Join(tmp, ".terraform", viewName); err != nil || string(got) != want {
		t.Errorf("TF_PLUGIN_CACHE_DIR = %q (%v), want the view %s", got, err, want)
	}
}

// TestRemoveStaleTemp: copies a dead process left behind go; a live one's stays.
func TestRemoveStaleTemp(t *testing.T) {
	cache := t.TempDir()
	now := time.Now()
	for name, age := range map[string]time.Duration{tmpPrefix + "dead": 48 * time.Hour, tmpPrefix + "live": time.Minute, "registry.terraform.io": 48 * time.Hour} {
		p := filepath.Join(cache, name)
		if err := os.Mkdir(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, now.Add(-age), now.Add(-age)); err != nil {
			t.Fatal(err)
		}
	}
	removeStaleTemp(cache, now)
	var left []string
	entries, _ := os.ReadDir(cache)
	for _, e := range entries {
		left = append(left, e.Name())
	}
	if want := []string{tmpPrefix + "live", "registry.terraform.io"}; !reflect.DeepEqual(left, want) {
		t.Errorf("left %q, want %q", left, want)
	}
}
