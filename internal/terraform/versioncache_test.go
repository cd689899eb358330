package terraform

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func probes(t *testing.T, calls string) int {
	t.Helper()
	data, err := os.ReadFile(calls)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(data), "\n")
}

// writeCountingFake writes a fake whose `version -json` records the call in calls.
func writeCountingFake(t *testing.T, path, ver, calls string) {
	t.Helper()
	writeExecutable(t, path, "#!/bin/sh\necho probe >> '"+calls+"'\n"+
		"echo '{\"terraform_version\":\""+ver+"\",\"platform\":\"linux_amd64\",\"provider_selections\":{}}'\n")
}

func TestVersionCache(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	bin := filepath.Join(root, "bin", "terraform")
	calls := filepath.Join(root, "calls")
	cache := filepath.Join(root, "cache", "tfgate", "versions.json")
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	writeCountingFake(t, bin, "1.6.2", calls)
	resolve := func() string {
		t.Helper()
		b, err := Resolve(context.Background(), ResolveOptions{PathEnv: filepath.Dir(bin), VersionCache: cache})
		if err != nil {
			t.Fatal(err)
		}
		return b.Version.String()
	}

	if v := resolve(); v != "1.6.2" || probes(t, calls) != 1 {
		t.Fatalf("first resolve: version %s after %d probes, want 1.6.2 after 1", v, probes(t, calls))
	}
	if _, err := os.Stat(cache); err != nil {
		t.Fatalf("no cache file written: %v", err)
	}
	if v := resolve(); v != "1.6.2" || probes(t, calls) != 1 {
		t.Fatalf("second resolve: version %s after %d probes, want the cached 1.6.2 and no new probe", v, probes(t, calls))
	}

	// An upgrade in place changes the size or the modification time: asked again.
	writeCountingFake(t, bin, "1.7.10", calls)
	future := time.Now().Add(time.Minute)
	if err := os.Chtimes(bin, future, future); err != nil {
		t.Fatal(err)
	}
	if v := resolve(); v != "1.7.10" || probes(t, calls) != 2 {
		t.Fatalf("after an upgrade: version %s after %d probes, want 1.7.10 after 2", v, probes(t, calls))
	}

	// A corrupt cache is an empty one, and is replaced.
	if err := os.WriteFile(cache, []byte(`{"binaries": {"`), 0o644); err != nil {
		t.Fatal(err)
	}
	if v := resolve(); v != "1.7.10" || probes(t, calls) != 3 {
		t.Fatalf("with a corrupt cache: version %s after %d probes, want 1.7.10 after 3", v, probes(t, calls))
	}
	if v := resolve(); v != "1.7.10" || probes(t, calls) != 3 {
		t.Fatalf("after the corrupt cache was replaced: version %s after %d probes, want no new probe", v, probes(t, calls))
	}
	// A cache that cannot be written (its directory is a file) only costs the probe.
	if v, err := Resolve(context.Background(), ResolveOptions{PathEnv: filepath.Dir(bin), VersionCache: filepath.Join(calls, "versions.json")}); err != nil || v.Version.String() != "1.7.10" {
		t.Fatalf("unwritable cache: %v %v", v, err)
	}
	// Leftover temporary files would pile up in the cache directory.
	entries, _ := os.ReadDir(filepath.Dir(cache))
	if len(entries) != 1 {
		t.Errorf("cache directory holds %d entries, want only versions.json", len(entries))
	}
}

// A symlink retargeted to another binary must not keep the first one's version.
func TestVersionCacheSymlink(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	calls := filepath.Join(root, "calls")
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	writeCountingFake(t, a, "1.6.2", calls)
	writeCountingFake(t, b, "1.8.0", calls)
	link := filepath.Join(root, "bin", "terraform")
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(root, "versions.json")
	for _, target := range []string{a, b, a} {
		os.Remove(link)
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
		got, err := Resolve(context.Background(), ResolveOptions{Override: link, VersionCache: cache})
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{a: "1.6.2", b: "1.8.0"}[target]
		if got.Version.String() != want {
			t.Errorf("link to %s: version %s, want %s", filepath.Base(target), got.Version, want)
		}
	}
	if n := probes(t, calls); n != 2 {
		t.Errorf("%d probes, want 2 (the third resolve is cached)", n)
	}
}
