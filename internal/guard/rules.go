package guard

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// errNoTarget is a request without a program to execute.
var errNoTarget = errors.New("no program to run")

// resolve checks req and resolves its paths through their links, as the kernel will when
// it opens them: the denied directories (those inside another denied one dropped), the
// read-only ones (likewise), the allowed paths with the target among them. The target
// itself stays as given, to be executed under the name its caller chose.
func resolve(req request) (request, error) {
	if req.Target == "" {
		return request{}, errNoTarget
	}
	if len(req.Deny) == 0 {
		return request{}, errors.New("nothing to deny")
	}
	deny, err := realPaths("deny", req.Deny)
	if err != nil {
		return request{}, err
	}
	if len(deny) == 0 {
		return request{}, errors.New("nothing to deny: every denied directory is gone")
	}
	readOnly, err := realPaths("read-only", req.ReadOnly)
	if err != nil {
		return request{}, err
	}
	allow, err := realPaths("allow", append(slices.Clone(req.Allow), req.Target))
	if err != nil {
		return request{}, err
	}
	if slices.Contains(deny, "/") {
		return request{}, errors.New("deny /: nothing would be left to run")
	}
	out := request{Deny: outermost(deny), Allow: allow, ReadOnly: outermost(readOnly), Target: req.Target}
	return out, checkNesting(out)
}

// checkNesting refuses a resolved req whose rules would grant what it keeps back: an
// allowed path holding a denied or read-only directory, a read-only one holding a denied
// directory.
func checkNesting(req request) error {
	return errors.Join(
		holding("allowed", req.Allow, "denied", req.Deny),
		holding("allowed", req.Allow, "read-only", req.ReadOnly),
		holding("read-only", req.ReadOnly, "denied", req.Deny))
}

// holding says which of outer (of kind what) holds one of inner (of kind kind), nil if none.
func holding(what string, outer []string, kind string, inner []string) error {
	for _, i := range inner {
		for _, o := range outer {
			if within(i, o) {
				return fmt.Errorf("%s %s holds %s %s", what, o, kind, i)
			}
		}
	}
	return nil
}

// realPaths is paths, each absolute and existing, resolved through its links. A denied
// directory gone since the spec was made (another project's tree, removed when it
// finished) holds nothing to deny: it is left out, not an error.
func realPaths(what string, paths []string) ([]string, error) {
	real := make([]string, 0, len(paths))
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			return nil, fmt.Errorf("%s %q: not an absolute path", what, p)
		}
		r, err := filepath.EvalSymlinks(p)
		if what == "deny" && errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		real = append(real, r)
	}
	return real, nil
}

// outermost is dirs without those inside another of them, sorted, each once.
func outermost(dirs []string) []string {
	slices.Sort(dirs)
	dirs = slices.Compact(dirs)
	var out []string
	for _, d := range dirs {
		if !slices.ContainsFunc(out, func(o string) bool { return within(d, o) }) {
			out = append(out, d)
		}
	}
	return out
}

// within reports whether path is dir or lies below it.
func within(path, dir string) bool {
	if dir == "/" || path == dir {
		return true
	}
	return strings.HasPrefix(path, dir+"/")
}

// rulePaths is every path the guarded process may use in full, for a resolved req: each
// entry of each ancestor of a denied or read-only directory that is neither on the way down
// to one nor a link into or onto one, and the allowed paths. A read-only directory inside
// a denied one lies on no way of its own: nothing beside it is allowed.
func rulePaths(req request) ([]string, error) {
	kept := slices.Clone(req.Deny)
	for _, r := range req.ReadOnly {
		if !slices.ContainsFunc(req.Deny, func(d string) bool { return within(r, d) }) {
			kept = append(kept, r)
		}
	}
	onWay := map[string]bool{}
	for _, d := range kept {
		for a := filepath.Dir(d); !onWay[a]; a = filepath.Dir(a) {
			onWay[a] = true
		}
	}
	var paths []string
	for _, a := range slices.Sorted(maps.Keys(onWay)) {
		entries, err := os.ReadDir(a)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			p := filepath.Join(a, e.Name())
			if onWay[p] || slices.Contains(kept, p) {
				continue
			}
			if e.Type()&os.ModeSymlink != 0 && !harmlessLink(p, kept) {
				continue
			}
			paths = append(paths, p)
		}
	}
	return append(paths, req.Allow...), nil
}

// harmlessLink reports whether the link at path leads somewhere that holds none of dirs
// (denied or read-only) and lies in none: a rule on it would allow its target in full. A dangling link leads
// nowhere, and is left out too.
func harmlessLink(path string, dirs []string) bool {
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		return false
	}
	for _, d := range dirs {
		if within(d, target) || within(target, d) {
			return false
		}
	}
	return true
}
