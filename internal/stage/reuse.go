package stage

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"

	"github.com/tfgate/tfgate/internal/project"
	"github.com/tfgate/tfgate/internal/report"
)

// A push to a pull request reuses a project's earlier plan when nothing it depends on
// changed (docs/busy-repositories.md). The run decides (pipeline, on gate's rule); this
// is the stage that asks it, once the project's inputs are hashed, and what the policies
// read beside a plan, summed so that the next push can tell.

// ReuseCandidate is what the plan stage knows of a project when it asks whether its
// earlier plan may be reused: its inputs as hashed for its bundle, and the directory its
// bundle goes to.
type ReuseCandidate struct {
	Project   project.Project
	InputHash string
	PolicySum string // PolicyInputSum of the project in this run
	Dir       string // the project's bundle directory, empty
}

// Reuser reissues the project's earlier plan into c.Dir and returns its result when it
// may be reused; ok false plans the project.
type Reuser func(ctx context.Context, c ReuseCandidate) (res report.Project, ok bool)

// reusePlan is the stage that asks opts.Reuse; a reused plan ends the project's stages.
func reusePlan(ctx context.Context, r *ProjectRun) error {
	if r.Opts.Reuse == nil || r.Opts.OutDir == "" || r.inputHash == "" {
		return nil
	}
	res, ok := r.Opts.Reuse(ctx, ReuseCandidate{Project: r.Project, InputHash: r.inputHash,
		PolicySum: r.Opts.Policies.InputSum(r.Project, r.Opts.ChangedFiles, r.Opts.Author), Dir: r.Dir})
	if ok {
		r.Result, r.reused = res, true
	}
	return nil
}

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
