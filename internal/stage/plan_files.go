package stage

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"strings"

	"github.com/tfgate/tfgate/internal/bundle"
	"github.com/tfgate/tfgate/internal/policy"
	"github.com/tfgate/tfgate/internal/project"
)

// Where a plan run's files go and which files a project's plan covers.

// Outside drops the files under outDir (an --out inside the repository): bundles being
// written are not inputs of the projects they describe.
func Outside(files []string, root, outDir string) []string {
	rel, err := filepath.Rel(root, outDir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return files
	}
	prefix := filepath.ToSlash(rel) + "/"
	kept := files[:0:0]
	for _, f := range files {
		if !strings.HasPrefix(f, prefix) {
			kept = append(kept, f)
		}
	}
	return kept
}

// BundleDirs names each project's bundle directory. Names that sanitise to the same
// directory ("a/b" and "a_b") get a hash suffix each, so no bundle overwrites another.
func BundleDirs(projects []project.Project) []string {
	dirs := make([]string, len(projects))
	count := map[string]int{}
	for i, p := range projects {
		dirs[i] = bundle.DirName(p.Name, p.Workspace)
		count[dirs[i]]++
	}
	for i, p := range projects {
		if count[dirs[i]] > 1 {
			sum := sha256.Sum256([]byte(p.Name + "\x00" + p.Workspace))
			dirs[i] += "-" + hex.EncodeToString(sum[:4])
		}
	}
	return dirs
}

// ProjectFiles are the changed files inside the project's dir or its local modules.
func ProjectFiles(p project.Project, files []string) []string {
	out := []string{}
	for _, f := range files {
		for _, dir := range append([]string{p.Dir}, p.Modules...) {
			if dir == "." || strings.HasPrefix(f, dir+"/") {
				out = append(out, f)
				break
			}
		}
	}
	return out
}

func writeBundle(ctx context.Context, r *ProjectRun) error {
	if r.Opts.OutDir == "" {
		return nil
	}
	c := r.Result.Changes
	tfVersion := c.TerraformVersion
	if tfVersion == "" && r.Opts.Binary.Version != nil {
		tfVersion = r.Opts.Binary.Version.String()
	}
	m, err := bundle.Write(ctx, r.Dir, bundle.Manifest{
		Project: r.Project.Name, Dir: r.Project.Dir, Workspace: r.Project.Workspace, Commit: r.Opts.Commit, PlannedCommit: r.Opts.PlannedCommit, Dirty: r.Opts.Dirty,
		PR: r.Opts.PR, Applicable: !r.Opts.Fork && !r.Opts.Dirty,
		Inputs: r.inputs, InputHash: r.inputHash, TerraformVersion: tfVersion, TerraformFlavor: r.Opts.Binary.Flavor,
		HasChanges: c.Summary.HasChanges(), Summary: c.Summary, ChangesDigest: r.digest, Policy: PolicyVerdict(r.Result.Policy),
		CreatedAt: r.Opts.Now().UTC(), TfgateVersion: r.Opts.TfgateVersion,
		Unapplied: r.Opts.Unapplied[r.Project.Name], UnappliedUnknown: r.Opts.UnappliedUnknown,
		PolicySum: r.Opts.Policies.InputSum(r.Project, r.Opts.ChangedFiles, r.Opts.Author),
		EnvSum:    EnvSum(r.Opts.TerraformEnv, r.Opts.PlanKey),
	})
	if err != nil {
		return err
	}
	r.Result.Bundle = filepath.Join(r.Dir, m.PlanFile)
	if r.Opts.PlanKey != "" {
		if err := bundle.Seal(ctx, r.Dir, r.Opts.PlanKey); err != nil {
			return err
		}
		r.Result.Bundle = r.Dir
	}
	return nil
}

// PolicyVerdict is what the bundle records of the policies' result (already masked): the
// gate judges the plan by it. nil when no policies are configured.
func PolicyVerdict(res *policy.Result) *bundle.PolicyVerdict {
	if res == nil {
		return nil
	}
	v := &bundle.PolicyVerdict{Evaluated: true, Denied: res.Denied(), Warnings: res.Count(policy.LevelWarn)}
	for _, f := range res.Findings {
		if f.Level == policy.LevelDeny {
			v.Denies = append(v.Denies, f.Policy()+": "+f.Text())
		}
	}
	if res.Err != nil {
		v.Error = res.Err.Error()
	}
	if a := res.Approval; a != nil && res.Err == nil {
		v.Approval = &bundle.Approval{Required: a.Required, Lower: a.Lower, Teams: a.Teams, Reasons: a.Reasons}
	}
	return v
}
