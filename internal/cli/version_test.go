package cli

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"
)

// TestVersionStamped checks what the release build stamps (goreleaser's ldflags set
// Version, Commit and Date) reaches both formats of `tfgate version`.
func TestVersionStamped(t *testing.T) {
	old := [3]string{Version, Commit, Date}
	t.Cleanup(func() { Version, Commit, Date = old[0], old[1], old[2] })
	Version, Commit, Date = "v1.2.3", "0123456789abcdef0123456789abcdef01234567", "2026-01-02T03:04:05Z"

	code, out, errOut := run(t, nil, "version")
	if code != 0 {
		t.Fatalf("tfgate version: exit %d: %s", code, errOut)
	}
	want := "tfgate v1.2.3 (" + runtime.Version() + ", " + runtime.GOOS + "/" + runtime.GOARCH +
		", commit 0123456789abcdef0123456789abcdef01234567, built 2026-01-02T03:04:05Z)\n"
	if out != want {
		t.Errorf("tfgate version printed %q, want %q", out, want)
	}

	code, out, errOut = run(t, nil, "version", "--format", "json")
	if code != 0 {
		t.Fatalf("tfgate version --format json: exit %d: %s", code, errOut)
	}
	var got map[string]string
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("tfgate version --format json printed %q: %v", out, err)
	}
	for k, v := range map[string]string{"version": "v1.2.3", "commit": Commit, "date": Date,
		"go": runtime.Version(), "os": runtime.GOOS, "arch": runtime.GOARCH} {
		if got[k] != v {
			t.Errorf("json %q = %q, want %q", k, got[k], v)
		}
	}
	if len(got) != 6 {
		t.Errorf("json has keys %v, want exactly version, commit, date, go, os, arch", got)
	}

	code, _, errOut = run(t, nil, "version", "--format", "yaml")
	if code != 1 || !strings.Contains(errOut, `--format "yaml": want one of text, json`) {
		t.Errorf("tfgate version --format yaml: exit %d, %q; want 1 and the choices", code, errOut)
	}
}
