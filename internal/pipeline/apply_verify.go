package pipeline

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tfgate/tfgate/internal/bundle"
	"github.com/tfgate/tfgate/internal/gate"
	"github.com/tfgate/tfgate/internal/project"
	"github.com/tfgate/tfgate/internal/stage"
)

// Verifying each bundle against the merge commit before anything is applied.

// loadBundles fetches the bundles planned for the pull request's head and matches them to
// the targets by project and workspace.
func (a *review) loadBundles(ctx context.Context) error {
	scratch, err := os.MkdirTemp("", "tfgate-apply-")
	if err != nil {
		return err
	}
	a.scratch = scratch
	// A merge queue planned the very commit that landed: its bundles come first. Else the
	// bundles reviewed on the pull request's head.
	dir, err := a.plans.Fetch(ctx, a.want(a.run.Commit), filepath.Join(scratch, "fetched-commit"))
	if errors.Is(err, bundle.ErrNoBundle) && a.run.Commit != a.pr.HeadSHA && a.gh.ArtifactName == "" {
		dir, err = a.plans.Fetch(ctx, a.want(a.pr.HeadSHA), filepath.Join(scratch, "fetched-head"))
	}
	if errors.Is(err, bundle.ErrNoBundle) || errors.Is(err, bundle.ErrUnsafeArchive) {
		// No plan was reviewed, or what claims to be one was built to escape its directory:
		// a refusal of every project, not an error to retry.
		a.refuseAll(gate.NoPlans(err.Error()))
		return nil
	}
	if err != nil {
		return fmt.Errorf("fetch the reviewed plans from %s: %w", a.plans, err)
	}
	dirs, err := bundle.List(ctx, dir)
	if err != nil {
		return err
	}
	type found struct {
		m   bundle.Manifest
		dir string
	}
	byKey := map[string]found{}
	for _, d := range dirs {
		m, err := bundle.Read(ctx, d)
		if err != nil {
			return fmt.Errorf("%s: %w", a.plans, err)
		}
		key := m.Project + "\x00" + m.Workspace
		if _, dup := byKey[key]; dup {
			return fmt.Errorf("%s holds two bundles of project %s (workspace %s): refusing to guess which was reviewed", a.plans, m.Project, m.Workspace)
		}
		byKey[key] = found{m, d}
	}
	for i := range a.targets {
		t := &a.targets[i]
		if f, ok := byKey[t.p.Name+"\x00"+t.p.Workspace]; ok && t.review == "" {
			t.bundle, t.dir = &f.m, f.dir
			if f.m.Commit == a.run.Commit && a.run.Commit != a.pr.HeadSHA {
				a.queue = a.run.Commit // planned in the merge queue on exactly this commit
			}
		}
	}
	return nil
}

// want names the bundles planned on commit sha for the pull request.
func (a *runFacts) want(sha string) bundle.Want {
	w := bundle.Want{PR: a.pr.Number, HeadSHA: sha, ArtifactName: a.gh.ArtifactName}
	if w.ArtifactName == "" {
		w.ArtifactName = "tfgate-plan-" + sha
	}
	return w
}

// verify checks one bundle against the merge commit: the plan file is the one planned
// (sha256, and it decrypts), the project's inputs are those the plan was made from, the
// terraform version is the one that planned it. It gathers the facts; gate.AcceptBundle
// judges them: what does not hold is a problem (a refusal). A bundle that cannot be opened
// at all (no key, wrong key), or inputs that cannot be read, are a failure.
func (a *review) verify(ctx context.Context, t *target) {
	if t.bundle == nil {
		return // the gate refuses a project without a bundle
	}
	f, failure := a.bundleFacts(ctx, t)
	t.problems = append(t.problems, gate.AcceptBundle(f)...)
	t.failure = failure
}

// bundleFacts reads what bundle acceptance judges of t's bundle, opening its plan file
// (t.opened) on the way. It stops at the first failure, leaving the rest unread.
func (a *review) bundleFacts(ctx context.Context, t *target) (gate.BundleFacts, string) {
	m := t.bundle
	f := gate.BundleFacts{ProjectDir: t.p.Dir, BundleDir: m.Dir, PR: m.PR, MergedPR: a.pr.Number,
		PoliciesRequired: a.policies, PolicyJudged: m.Policy != nil && (m.Policy.Evaluated || m.Policy.Error != "")}
	scratch := filepath.Join(a.scratch, "open", bundle.DirName(t.p.Name, t.p.Workspace))
	if err := os.MkdirAll(scratch, 0o700); err != nil {
		return f, err.Error()
	}
	opened, err := bundle.Open(ctx, t.dir, a.req.PlanKey, scratch)
	switch {
	case errors.Is(err, bundle.ErrTampered):
		f.Open, f.Opened = gate.OpenTampered, err.Error()
		return f, ""
	case errors.Is(err, bundle.ErrUnencrypted):
		f.Open, f.Opened = gate.OpenUnencrypted, err.Error()
		return f, ""
	case errors.Is(err, bundle.ErrMalformed):
		f.Open, f.Opened = gate.OpenMalformed, err.Error()
		return f, ""
	case err != nil:
		return f, err.Error()
	}
	t.opened = opened
	files, err := project.InputFiles(ctx, a.Root, t.p)
	if err != nil {
		return f, err.Error()
	}
	files = stage.Outside(files, a.Root, filepath.Dir(t.dir))
	sums, _, err := bundle.HashInputs(ctx, a.Root, files)
	if err != nil {
		return f, err.Error()
	}
	for file, sum := range a.shared { // the files outside every project count for every plan
		sums[file] = sum
	}
	mf := &gate.MergeFacts{Reviewed: a.pr.HeadSHA, Merge: a.run.Commit,
		PlannedInputs: m.Inputs, Inputs: sums, PlannedHash: m.InputHash, Hash: bundle.InputHash(sums),
		PlannedFlavor: m.TerraformFlavor, PlannedVersion: m.TerraformVersion, RunFlavor: a.bin.Flavor}
	if a.bin.Version != nil {
		mf.RunVersion = a.bin.Version.String()
	}
	f.Merge = mf
	return f, ""
}
