package doctor

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/policy"
	"github.com/tfgate/tfgate/internal/stage"
)

// checkPolicies compiles the working tree's policies as plan does and runs their tests as
// `tfgate policy test` does.
func checkPolicies(ctx context.Context, o Options, cfg *config.Config) Finding {
	f := Finding{Check: "policies", Essential: true}
	paths, err := stage.WorktreePolicyPaths(o.Root, cfg)
	if err != nil {
		// No policies is a choice, not a broken setup: every plan passes the policy check.
		f.Status, f.Message = OK, "no policies: every plan passes the policy check"
		return f
	}
	src := policy.Source{FS: os.DirFS(o.Root), Paths: paths}
	if _, err := policy.Load(ctx, src, policy.Options{}); err != nil {
		f.Status, f.Message = Fail, "the policies do not compile:\n"+err.Error()
		f.Fix = "fix each file:line named above; `tfgate policy test` checks them"
		return f
	}
	if !hasTests(o.Root, paths) {
		f.Status, f.Message = OK, fmt.Sprintf("the policies in %s compile; they have no tests (rules named test_* in *_test.rego)", strings.Join(paths, ", "))
		return f
	}
	var out bytes.Buffer
	passed, failed, err := policy.Test(ctx, src, &out, false)
	switch {
	case err != nil:
		f.Status, f.Message = Fail, "the policy tests do not run: "+err.Error()
		f.Fix = "run `tfgate policy test -v` and fix what it names"
	case failed > 0:
		f.Status, f.Message = Fail, fmt.Sprintf("%d of %d policy tests fail:\n%s", failed, passed+failed, strings.TrimSpace(out.String()))
		f.Fix = "fix the policies or their tests; `tfgate policy test -v` runs them"
	default:
		f.Status, f.Message = OK, fmt.Sprintf("the policies in %s compile and their %d tests pass", strings.Join(paths, ", "), passed)
	}
	return f
}

// hasTests reports whether a *_test.rego file lies under one of paths.
func hasTests(root string, paths []string) bool {
	found := false
	for _, p := range paths {
		_ = filepath.WalkDir(filepath.Join(root, filepath.FromSlash(p)), func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(d.Name(), "_test.rego") {
				found = true
				return fs.SkipAll
			}
			return nil
		})
	}
	return found
}

// displayPath is path relative to root when inside it.
func displayPath(root, path string) string {
	if rel, err := filepath.Rel(root, path); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return path
}
