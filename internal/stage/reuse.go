package stage

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/tfgate/tfgate/internal/project"
)

// What the policies read beside a plan, summed so that a later push of the pull request
// can tell whether they would judge its reused plan otherwise (docs/busy-repositories.md;
// the reuse itself is the plan run's, pipeline/plan_reuse.go).

// InputSum sums what the policies read of project p beside its plan: the policy files, the
// name they know it by, its changed files and the author. "" without policies, and when
// the policy files could not be summed.
func (p Policies) InputSum(pr project.Project, changed []string, author string) string {
	if p.Engine == nil || p.sum == "" {
		return ""
	}
	h := sha256.New()
	fmt.Fprintf(h, "policies\x00%s\nproject\x00%s\x00%s\x00%s\nauthor\x00%s\n", p.sum,
		p.ProjectName(pr.Name, pr.Dir, pr.Workspace), pr.Dir, pr.Workspace, author)
	for _, f := range ProjectFiles(pr, changed) {
		fmt.Fprintf(h, "changed\x00%s\n", f)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// policyFilesSum sums every file under paths in fsys (the policies, their data, the price
// catalogue), path and content; "" when one cannot be read (InputSum is then "": no reuse).
func policyFilesSum(fsys fs.FS, paths []string) string {
	h := sha256.New()
	for _, root := range slices.Sorted(slices.Values(paths)) {
		err := fs.WalkDir(fsys, path.Clean(root), func(name string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			f, err := fsys.Open(name)
			if err != nil {
				return err
			}
			defer f.Close()
			fmt.Fprintf(h, "%s\x00", name)
			_, err = io.Copy(h, f)
			h.Write([]byte{0})
			return err
		})
		if err != nil {
			return ""
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// EnvSum sums what terraform's environment (env) gives a plan beside its files: the
// TF_VAR_* values and the TF_CLI_ARGS* arguments, name and value. A later push reuses the
// plan only while it is the same: a CI secret or variable changed between two pushes
// changes what terraform would plan. Never "" (an earlier bundle without it re-plans).
//
// With a key (TFGATE_PLAN_KEY, whose bundles are encrypted) it is an HMAC-SHA256 under a
// key derived from it, as plan.Digest is: the clear manifest gives no way to test guesses
// of a secret; without one the plan file itself holds the variables' values in clear.
func EnvSum(env map[string]string, key string) string {
	var names []string
	for name := range env {
		if strings.HasPrefix(name, "TF_VAR_") || strings.HasPrefix(name, "TF_CLI_ARGS") {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	h := sha256.New()
	if key != "" {
		derived := sha256.Sum256([]byte("tfgate environment sum\x00" + key))
		h = hmac.New(sha256.New, derived[:])
	}
	for _, name := range names {
		fmt.Fprintf(h, "%s\x00%s\x00", name, env[name])
	}
	return hex.EncodeToString(h.Sum(nil))
}
