package setup

import (
	"strings"
	"testing"
)

// A release build pins its own release, by tag or by commit; a development build writes the
// examples' major tag and refuses a SHA pin, as does a release that does not know its commit.
func TestActionFor(t *testing.T) {
	sha := "0123456789abcdef0123456789abcdef01234567"
	for _, tc := range []struct {
		version, commit, pin string
		want                 Action
		err                  string
	}{
		{version: "v1.4.2", commit: sha, pin: PinTag, want: Action{Ref: "v1.4.2"}},
		{version: "v1.4.2", commit: sha, pin: PinSHA, want: Action{Ref: sha, Comment: "v1.4.2"}},
		{version: "v1.5.0-rc.1", commit: sha, pin: PinTag, want: Action{Ref: "v1.5.0-rc.1"}},
		{version: "v1.4.2", pin: PinSHA, err: "does not know the commit"},
		{version: "v1.4.2", commit: sha, pin: "branch", err: `--pin "branch"`},
		// Development builds: unstamped, a Go pseudo-version (go build in a clone, go install
		// @main), a modified tree, a goreleaser snapshot, the action's source build of @v1.
		{version: "dev", commit: sha, pin: PinTag, want: Action{Ref: ExampleRef, Dev: true}},
		{version: "v0.0.0-20261204221630-a5530b8d1e2f", pin: PinTag, want: Action{Ref: ExampleRef, Dev: true}},
		{version: "v1.4.3-0.20261204221630-a5530b8d1e2f+dirty", pin: PinTag, want: Action{Ref: ExampleRef, Dev: true}},
		{version: "v1.4.2+dirty", pin: PinTag, want: Action{Ref: ExampleRef, Dev: true}},
		{version: "v1.4.3-snapshot-a5530b8", pin: PinTag, want: Action{Ref: ExampleRef, Dev: true}},
		{version: "v1", pin: PinTag, want: Action{Ref: ExampleRef, Dev: true}},
		{version: "dev", commit: sha, pin: PinSHA, err: "development build (dev)"},
	} {
		got, err := ActionFor(tc.version, tc.commit, tc.pin)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ActionFor(%q, %q, %s) = %+v, %v; want an error with %q", tc.version, tc.commit, tc.pin, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ActionFor(%q, %q, %s) = %+v, %v; want %+v", tc.version, tc.commit, tc.pin, got, err, tc.want)
		}
	}
}

// Every `uses:` of the action in the written workflows names the pinned ref, with the tag as
// a comment when pinned to a commit; nothing builds from source or needs Go.
func TestWorkflowsPinTheAction(t *testing.T) {
	sha := strings.Repeat("ab", 20)
	for _, a := range []Action{{}, {Ref: "v1.4.2"}, {Ref: sha, Comment: "v1.4.2"}} {
		o := opts
		o.Action = a
		files, err := Files(o)
		if err != nil {
			t.Fatal(err)
		}
		want := "uses: tfgate/tfgate@v1\n"
		if a.Ref != "" {
			want = a.uses()
		}
		for _, f := range files[:len(Workflows)] {
			text := string(f.Content)
			if n, all := strings.Count(text, want), strings.Count(text, "uses: tfgate/tfgate@"); n == 0 || n != all {
				t.Errorf("%s pinned to %+v: %d of %d uses of the action are %q", f.Path, a, n, all, strings.TrimSpace(want))
			}
			var steps strings.Builder // the workflow without its comments
			for _, l := range strings.Split(text, "\n") {
				if !strings.HasPrefix(strings.TrimSpace(l), "#") {
					steps.WriteString(l + "\n")
				}
			}
			for _, bad := range []string{"version: source", "setup-go"} {
				if strings.Contains(steps.String(), bad) {
					t.Errorf("%s holds %q: the written workflows download a release", f.Path, bad)
				}
			}
		}
	}
}
