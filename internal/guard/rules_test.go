package guard

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// layout is a checkout to deny inside a temporary directory, with company around it:
//
//	base/repo/{secret.txt, .git/config, scoped/work.txt}   the checkout (denied)
//	base/outside/{other.txt, link → ../repo/secret.txt}   beside it
//	base/up → base, base/down → repo/scoped               links onto an ancestor, into the checkout
//	base/usr → /usr, base/dangling → nowhere               links elsewhere, to nothing
type layout struct {
	base, repo, scoped, outside string
}

func newLayout(t testing.TB) layout {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	l := layout{base: base, repo: filepath.Join(base, "repo"), outside: filepath.Join(base, "outside")}
	l.scoped = filepath.Join(l.repo, "scoped")
	files := map[string]string{
		"repo/secret.txt":      "secret\n",
		"repo/.git/config":     "[core]\n",
		"repo/scoped/work.txt": "work\n",
		"outside/other.txt":    "other\n",
	}
	for name, body := range files {
		p := filepath.Join(base, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"outside/link": "../repo/secret.txt",
		"up":           base,
		"down":         "repo/scoped",
		"usr":          "/usr",
		"dangling":     "nowhere",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(base, name)); err != nil {
			t.Fatal(err)
		}
	}
	return l
}

// The rules allow what lies beside the way down to the checkout, never the way itself, the
// checkout, or a link into it or onto the way; and the allowed paths, the target among them.
func TestRulePaths(t *testing.T) {
	l := newLayout(t)
	req, err := resolve(request{Deny: []string{l.repo}, Allow: []string{l.scoped}, Target: "/bin/sh"})
	if err != nil {
		t.Fatal(err)
	}
	paths, err := rulePaths(req)
	if err != nil {
		t.Fatal(err)
	}
	sh, _ := filepath.EvalSymlinks("/bin/sh")
	for _, want := range []string{l.outside, filepath.Join(l.base, "usr"), l.scoped, sh, "/usr", "/etc"} {
		if !slices.Contains(paths, want) {
			t.Errorf("no rule for %s; rules: %v", want, paths)
		}
	}
	refused := []string{"/", filepath.Dir(l.base), l.base, l.repo, filepath.Join(l.base, "up"), filepath.Join(l.base, "down"), filepath.Join(l.base, "dangling")}
	for _, p := range paths {
		if slices.Contains(refused, p) || strings.HasPrefix(p, l.repo+"/") && p != l.scoped {
			t.Errorf("a rule for %s", p)
		}
	}
}

// A read-only directory is kept from the rules in full as a denied one is, with its way
// down; inside a denied directory it opens nothing beside it.
func TestRulePathsReadOnly(t *testing.T) {
	l := newLayout(t)
	link := filepath.Join(l.base, "to-outside")
	if err := os.Symlink(l.outside, link); err != nil {
		t.Fatal(err)
	}
	inside := filepath.Join(l.repo, ".git")
	req, err := resolve(request{Deny: []string{l.repo}, ReadOnly: []string{l.outside, inside}, Target: "/bin/sh"})
	if err != nil {
		t.Fatal(err)
	}
	paths, err := rulePaths(req)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(paths, filepath.Join(l.base, "usr")) {
		t.Errorf("no rule for %s, beside both; rules: %v", filepath.Join(l.base, "usr"), paths)
	}
	for _, p := range paths {
		if within(p, l.outside) || within(p, l.repo) || p == link {
			t.Errorf("a rule in full for %s", p)
		}
	}
}

func TestResolveRefuses(t *testing.T) {
	l := newLayout(t)
	cases := []struct {
		name string
		req  request
		want string
	}{
		{"no target", request{Deny: []string{l.repo}}, "no program"},
		{"nothing denied", request{Target: "/bin/sh"}, "nothing to deny"},
		{"relative", request{Deny: []string{"repo"}, Target: "/bin/sh"}, "not an absolute path"},
		{"all gone", request{Deny: []string{filepath.Join(l.base, "gone")}, Target: "/bin/sh"}, "every denied directory is gone"},
		{"allow missing", request{Deny: []string{l.repo}, Allow: []string{filepath.Join(l.base, "gone")}, Target: "/bin/sh"}, "no such file"},
		{"root", request{Deny: []string{"/"}, Target: "/bin/sh"}, "nothing would be left"},
		{"allow holds deny", request{Deny: []string{l.repo}, Allow: []string{l.base}, Target: "/bin/sh"}, "holds denied"},
		{"allow through a link", request{Deny: []string{l.repo}, Allow: []string{filepath.Join(l.base, "up")}, Target: "/bin/sh"}, "holds denied"},
		{"read-only missing", request{Deny: []string{l.repo}, ReadOnly: []string{filepath.Join(l.base, "gone")}, Target: "/bin/sh"}, "no such file"},
		{"read-only holds deny", request{Deny: []string{l.repo}, ReadOnly: []string{l.base}, Target: "/bin/sh"}, "read-only " + l.base + " holds denied"},
		{"allow holds read-only", request{Deny: []string{l.repo}, Allow: []string{l.base}, ReadOnly: []string{l.outside}, Target: "/bin/sh"}, "holds read-only"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := resolve(c.req)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("resolve = %v, want an error saying %q", err, c.want)
			}
		})
	}
}

// A denied directory gone since the spec was made (another project's tree, removed when it
// finished) holds nothing to deny: the others still are.
func TestResolveDropsGone(t *testing.T) {
	l := newLayout(t)
	req, err := resolve(request{Deny: []string{l.repo, filepath.Join(l.base, "gone")}, Target: "/bin/sh"})
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := filepath.EvalSymlinks(l.repo); len(req.Deny) != 1 || req.Deny[0] != want {
		t.Errorf("deny = %v, want [%s]", req.Deny, want)
	}
}

// A denied directory inside another is dropped: its parent, denied, must not be listed as
// an ancestor whose other entries are allowed.
func TestResolveNestedDeny(t *testing.T) {
	l := newLayout(t)
	req, err := resolve(request{Deny: []string{filepath.Join(l.repo, ".git"), l.repo, l.repo}, Target: "/bin/sh"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(req.Deny, []string{l.repo}) {
		t.Errorf("deny = %v, want [%s]", req.Deny, l.repo)
	}
}
