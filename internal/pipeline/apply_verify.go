package pipeline

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tfgate/tfgate/internal/bundle"
	"github.com/tfgate/tfgate/internal/ci"
	"github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/project"
)

// Verifying each bundle against the merge commit before anything is applied.

// loadBundles fetches the bundles planned for the pull request's head and matches them to
// the targets by project and workspace.
func (a *applier) loadBundles(ctx context.Context) error {
	scratch, err := os.MkdirTemp("", "tfgate-apply-")
	if err != nil {
		return err
	}
	a.scratch = scratch
	// A merge queue planned the very commit that landed: its bundles come first. Else the
	// bundles reviewed on the pull request's head.
	dir, err := a.req.Plans.Fetch(ctx, a.want(a.run.Commit), filepath.Join(scratch, "fetched-commit"))
	if errors.Is(err, bundle.ErrNoBundle) && a.run.Commit != a.pr.HeadSHA && a.req.GitHub.ArtifactName == "" {
		dir, err = a.req.Plans.Fetch(ctx, a.want(a.pr.HeadSHA), filepath.Join(scratch, "fetched-head"))
	}
	if errors.Is(err, bundle.ErrNoBundle) || errors.Is(err, bundle.ErrUnsafeArchive) {
		// No plan was reviewed, or what claims to be one was built to escape its directory:
		// a refusal of every project, not an error to retry.
		a.refuseAll(err.Error())
		return nil
	}
	if err != nil {
		return fmt.Errorf("fetch the reviewed plans from %s: %w", a.req.Plans, err)
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
			return fmt.Errorf("%s: %w", a.req.Plans, err)
		}
		key := m.Project + "\x00" + m.Workspace
		if _, dup := byKey[key]; dup {
			return fmt.Errorf("%s holds two bundles of project %s (workspace %s): refusing to guess which was reviewed", a.req.Plans, m.Project, m.Workspace)
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
func (a *applier) want(sha string) bundle.Want {
	w := bundle.Want{PR: a.pr.Number, HeadSHA: sha, ArtifactName: a.req.GitHub.ArtifactName}
	if w.ArtifactName == "" {
		w.ArtifactName = "tfgate-plan-" + sha
	}
	return w
}

// verify checks one bundle against the merge commit: the plan file is the one planned
// (sha256, and it decrypts), the project's inputs are those the plan was made from, the
// terraform version is the one that planned it. What does not hold is a problem (a
// refusal); a bundle that cannot be opened at all (no key, wrong key) is a failure.
func (a *applier) verify(ctx context.Context, t *target) {
	m := t.bundle
	if m == nil {
		return // the gate refuses a project without a bundle
	}
	if m.Dir != t.p.Dir {
		t.problems = append(t.problems, fmt.Sprintf("its bundle is of directory %s, but the project is in %s", m.Dir, t.p.Dir))
	}
	if a.policies && (m.Policy == nil || (!m.Policy.Evaluated && m.Policy.Error == "")) {
		t.problems = append(t.problems, "it was planned without policies, but the rules before the merge have policies: plan it again so that they judge it")
	}
	if m.PR != 0 && m.PR != a.pr.Number {
		t.problems = append(t.problems, fmt.Sprintf("its bundle was planned for pull request #%d, not #%d", m.PR, a.pr.Number))
	}
	scratch := filepath.Join(a.scratch, "open", bundle.DirName(t.p.Name, t.p.Workspace))
	if err := os.MkdirAll(scratch, 0o700); err != nil {
		t.failure = err.Error()
		return
	}
	opened, err := bundle.Open(ctx, t.dir, a.req.PlanKey, scratch)
	switch {
	case errors.Is(err, bundle.ErrTampered), errors.Is(err, bundle.ErrUnencrypted), errors.Is(err, bundle.ErrMalformed):
		t.problems = append(t.problems, err.Error())
		return
	case err != nil:
		t.failure = err.Error()
		return
	}
	t.opened = opened
	files, err := project.InputFiles(ctx, a.req.Root, t.p)
	if err != nil {
		t.failure = err.Error()
		return
	}
	files = outside(files, a.req.Root, filepath.Dir(t.dir))
	sums, _, err := bundle.HashInputs(ctx, a.req.Root, files)
	if err != nil {
		t.failure = err.Error()
		return
	}
	for f, sum := range a.shared { // the files outside every project count for every plan
		sums[f] = sum
	}
	hash := bundle.InputHash(sums)
	if hash != m.InputHash {
		t.problems = append(t.problems, staleInputs(m.Inputs, sums, a.pr.HeadSHA, a.run.Commit))
	}
	planned := m.TerraformFlavor
	if planned == "" { // a bundle from before tfgate recorded the flavour
		planned = a.bin.Flavor
	}
	if m.TerraformVersion == "" {
		t.problems = append(t.problems, "its bundle does not say which terraform version planned it: plan it again")
	} else if have := a.bin.Version; have == nil || have.String() != m.TerraformVersion || planned != a.bin.Flavor {
		t.problems = append(t.problems, fmt.Sprintf("it was planned with %s %s, but this run has %s %s: apply the plan with the binary and version that made it (terraform.binary and terraform.version in %s), or plan again",
			planned, m.TerraformVersion, a.bin.Flavor, a.bin.Version, config.FileName))
	}
}

// staleInputs says which input files differ between the reviewed plan and the merge.
func staleInputs(planned, now map[string]string, reviewed, merged string) string {
	var diffs []string
	for f, sum := range now {
		switch old, ok := planned[f]; {
		case !ok:
			diffs = append(diffs, f+" (new)")
		case old != sum:
			diffs = append(diffs, f+" (changed)")
		}
	}
	for f := range planned {
		if _, ok := now[f]; !ok {
			diffs = append(diffs, f+" (removed)")
		}
	}
	sort.Strings(diffs)
	if len(diffs) > 5 {
		diffs = append(diffs[:5], fmt.Sprintf("and %d more", len(diffs)-5))
	}
	return fmt.Sprintf("the plan is stale: the merge %s changed its inputs beyond the reviewed commit %s (%s); plan it again on the merged code",
		ci.ShortSHA(merged), ci.ShortSHA(reviewed), strings.Join(diffs, ", "))
}
