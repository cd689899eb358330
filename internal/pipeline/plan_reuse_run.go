package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"

	"github.com/tfgate/tfgate/internal/bundle"
	"github.com/tfgate/tfgate/internal/gate"
	"github.com/tfgate/tfgate/internal/project"
	"github.com/tfgate/tfgate/internal/report"
	"github.com/tfgate/tfgate/internal/stage"
	"github.com/tfgate/tfgate/internal/terraform"
)

// Planning a push with the previous push's plans at hand (plan_reuse.go): which projects
// may reuse theirs, reissued beside the pool that plans the others.

// planProjects plans sel's projects (opts.Projects) as stage.Plan does, reusing what it may
// of the previous push's plans (prev): the projects with none, or whose inputs changed, go
// to the pool at once, while the others' plans are verified, judged and reissued beside
// it; those that may not be reused after all are planned after. The run's notes start
// with reuse's.
func planProjects(ctx context.Context, rec bundleRecord, sel stage.Selection, opts stage.PlanOptions, prev *future[*reusePlans], facts reuseRun) (report.Run, error) {
	rp, _ := prev.Wait()
	var notes []string
	if rp != nil {
		notes = rp.notes
	}
	if !rp.usable(rec) {
		run, err := stage.Plan(ctx, opts)
		run.Notes = append(notes, run.Notes...)
		return run, err
	}
	all, dirs := opts.Projects, stage.BundleDirs(opts.Projects)
	facts.changed, facts.shared = sel.Files, rec.shared
	now, hashes := rp.triage(ctx, all, rec.shared)
	var first report.Run
	var ferr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		first, ferr = planPart(ctx, opts, dirs, now)
	}()
	reused := rp.reuseAll(ctx, all, dirs, hashes, facts)
	<-done
	var later []int
	for i := range hashes {
		if _, ok := reused[i]; !ok {
			later = append(later, i)
		}
	}
	slices.Sort(later)
	var second report.Run
	var serr error
	if ferr == nil {
		second, serr = planPart(ctx, opts, dirs, later)
	}
	return mergeParts(all, notes, reused, plannedPart{now, first}, plannedPart{later, second}), cmpOr(ferr, serr)
}

// plannedPart is what one stage.Plan of a part of the selection (idx) planned.
type plannedPart struct {
	idx []int
	run report.Run
}

// mergeParts is the run of all: the reused projects and the parts planned, in selection
// order, with every note once.
func mergeParts(all []project.Project, notes []string, reused map[int]report.Project, parts ...plannedPart) report.Run {
	run := report.Run{Kind: report.KindPlan, Notes: notes, Projects: make([]report.Project, len(all))}
	for i, p := range all { // what an interrupted run did not reach
		run.Projects[i] = report.Project{Name: p.Name, Dir: p.Dir, Workspace: p.Workspace, Status: report.StatusNotStarted}
	}
	for i, r := range reused {
		run.Projects[i] = r
	}
	for _, part := range parts {
		for k, i := range part.idx {
			if k < len(part.run.Projects) {
				run.Projects[i] = part.run.Projects[k]
			}
		}
		for _, n := range part.run.Notes {
			if !slices.Contains(run.Notes, n) {
				run.Notes = append(run.Notes, n)
			}
		}
	}
	return run
}

// planPart plans the projects of opts at indexes idx (none: nothing), each in its
// directory of dirs.
func planPart(ctx context.Context, opts stage.PlanOptions, dirs []string, idx []int) (report.Run, error) {
	if len(idx) == 0 {
		return report.Run{Kind: report.KindPlan}, nil
	}
	all := opts.Projects
	opts.Projects, opts.Dirs = make([]project.Project, len(idx)), make([]string, len(idx))
	for k, i := range idx {
		opts.Projects[k], opts.Dirs[k] = all[i], dirs[i]
	}
	return stage.Plan(ctx, opts)
}

// cmpOr is the first error that is not nil.
func cmpOr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// reuseAll reissues the previous head's plan of every project of projects that hashes
// holds (by index: its input hash now, the same as that plan's) and that may reuse it,
// into its bundle directory under req.OutDir (dirs: stage.BundleDirs of projects), a few
// at a time (it reads and writes small files; terraform runs none). It returns the reused
// projects' results by index.
func (rp *reusePlans) reuseAll(ctx context.Context, projects []project.Project, dirs []string, hashes map[int]string, facts reuseRun) map[int]report.Project {
	var mu sync.Mutex
	reused := map[int]report.Project{}
	forEach(len(projects), func(i int) {
		hash, ok := hashes[i]
		if !ok {
			return
		}
		p := projects[i]
		start := rp.req.Now()
		res, ok := rp.reuseOne(ctx, p, rp.byKey[p.Name+"\x00"+p.Workspace], hash, filepath.Join(rp.req.OutDir, dirs[i]), facts)
		if ok {
			res.Duration = rp.req.Now().Sub(start)
			mu.Lock()
			reused[i] = res
			mu.Unlock()
		}
	})
	return reused
}

// triage sorts out, before anything is planned, the projects whose plan cannot be reused
// because there is none or their inputs changed (plan: their indexes, in order) from
// those that may reuse it (hashes: their input hash by index).
func (rp *reusePlans) triage(ctx context.Context, projects []project.Project, shared map[string]string) (plan []int, hashes map[int]string) {
	var mu sync.Mutex
	hashes = map[int]string{}
	forEach(len(projects), func(i int) {
		prev, ok := rp.byKey[projects[i].Name+"\x00"+projects[i].Workspace]
		if !ok {
			return
		}
		hash, err := inputHash(ctx, rp.req, projects[i], shared)
		if err == nil && hash == prev.manifest.InputHash {
			mu.Lock()
			hashes[i] = hash
			mu.Unlock()
		}
	})
	for i := range projects {
		if _, ok := hashes[i]; !ok {
			plan = append(plan, i)
		}
	}
	return plan, hashes
}

// forEach runs f for 0…n-1, reuseWorkers at a time.
func forEach(n int, f func(i int)) {
	sem := make(chan struct{}, reuseWorkers)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			f(i)
		})
	}
	wg.Wait()
}

// reuseWorkers is how many projects reuseAll reissues at once.
const reuseWorkers = 8

// reuseRun is what reusing needs of the run: the terraform found, the policies, the files
// changed and the shared files' sums, the merges not yet applied.
type reuseRun struct {
	bin       terraform.Binary
	pols      stage.Policies
	changed   []string
	shared    map[string]string
	unapplied unappliedPlan
}

// reuseOne reuses p's previous plan, or says why not (in the log; a failure as a warning)
// and leaves dir as it found it.
func (rp *reusePlans) reuseOne(ctx context.Context, p project.Project, prev previousPlan, hash, dir string, facts reuseRun) (report.Project, bool) {
	res, why, err := rp.reuse(ctx, p, prev, hash, dir, facts)
	switch {
	case err != nil:
		rp.req.Warn(fmt.Sprintf("%s: the previous push's plan could not be reused, so it is planned: %s", p.Name, rp.req.Masker.String(err.Error())))
	case why != "":
		rp.req.Log.Info("planned again", "project", p.Name, "why", why)
	default:
		return res, true
	}
	os.RemoveAll(dir) // whatever a failed reissue left is not a bundle: the plan writes its own
	return report.Project{}, false
}

// reuse opens the previous plan (verified as apply verifies it), judges whether it may be
// reused (hash: p's input hash now), and reissues it into dir; why says why not.
func (rp *reusePlans) reuse(ctx context.Context, p project.Project, prev previousPlan, hash, dir string, facts reuseRun) (report.Project, string, error) {
	o, err := rp.art.Open(ctx, prev.dir, rp.req.PlanKey) // proven as bundle.Open proves one on disk
	if err != nil {
		return report.Project{}, "", err
	}
	basis, err := bundle.PlanBasisOf(o)
	if err != nil {
		return report.Project{}, "", err
	}
	sum := facts.pols.InputSum(p, facts.changed, rp.req.Author)
	f := reuseFacts(rp.req, p, hash, sum, o.Manifest, basis, facts)
	f.PlanSummary, f.ReportSummary = o.Manifest.Summary, prev.result.Changes.Summary
	if facts.pols.Engine != nil && (sum == "" || o.Manifest.Policy == nil) {
		f.Policies = "unknown" // policies judge, but what they read cannot be told
	}
	if ok, why := gate.Reusable(f); !ok {
		return report.Project{}, why, nil
	}
	m, err := bundle.Reissue(ctx, o, dir, rp.req.PlanKey, func(m bundle.Manifest) bundle.Manifest {
		if m.ReusedFrom == "" {
			m.ReusedFrom = m.Commit
			if m.PlannedCommit == "" {
				m.PlannedCommit = m.Commit // what was checked out when it was planned
			}
		}
		m.Commit = rp.req.GitHub.Event.HeadSHA
		return m
	})
	if err != nil {
		return report.Project{}, "", err
	}
	res := prev.result
	res.Name, res.Dir, res.Workspace = p.Name, p.Dir, p.Workspace
	res.ReusedFrom, res.Bundle, res.Error = m.ReusedFrom, filepath.Join(dir, bundle.PlanFile), ""
	if m.Encrypted {
		res.Bundle = dir
	}
	return res, "", nil
}

// inputHash is p's input hash as its bundle records it and apply checks it on the merge:
// its files (outside --out) and the shared files.
func inputHash(ctx context.Context, req PlanRequest, p project.Project, shared map[string]string) (string, error) {
	files, err := project.InputFiles(ctx, req.Root, p)
	if err != nil {
		return "", err
	}
	sums, _, err := bundle.HashInputs(ctx, req.Root, stage.Outside(files, req.Root, req.OutDir))
	if err != nil {
		return "", err
	}
	for f, sum := range shared {
		sums[f] = sum
	}
	return bundle.InputHash(sums), nil
}

// reuseFacts are the facts gate.Reusable judges of a project's earlier plan m.
func reuseFacts(req PlanRequest, p project.Project, hash, policySum string, m bundle.Manifest, basis bundle.PlanBasis, facts reuseRun) gate.ReuseFacts {
	f := gate.ReuseFacts{PlannedHash: m.InputHash, Hash: hash,
		PlannedFlavor: m.TerraformFlavor, PlannedVersion: m.TerraformVersion, RunFlavor: facts.bin.Flavor,
		PlannedPolicies: m.PolicySum, Policies: policySum,
		PlannedEnv: m.EnvSum, Env: stage.EnvSum(req.TerraformEnv, req.PlanKey),
		PlannedTfgate: m.TfgateVersion, RunTfgate: req.TfgateVersion,
		PlannedUnapplied: mergeList(m.Unapplied), Unapplied: mergeList(facts.unapplied.byProject[p.Name]),
		PlannedUnappliedUnknown: m.UnappliedUnknown, UnappliedUnknown: facts.unapplied.unknown,
		PlannedApplicable: m.Applicable && !m.Dirty, Applicable: !req.Fork,
		PlannedLineage: basis.Lineage, PlannedSerial: basis.Serial, RemoteModules: basis.RemoteModules,
		Unpinned: basis.Providers && m.Inputs[projectLockFile(p.Dir)] == ""}
	if facts.bin.Version != nil {
		f.RunVersion = facts.bin.Version.String()
	}
	f.Lineage, f.Serial, f.StateBackend = localState(req.Root, p.Dir, p.Workspace, basis.Backend)
	return f
}

// localState reads the lineage and serial of the state a plan with backend b applies to,
// when that is the local backend's default file in the checkout; else backend names the
// backend whose state only terraform init could read.
func localState(root, dir, workspace string, b bundle.Backend) (lineage string, serial int64, backend string) {
	if b.Type != "local" {
		return "", 0, b.Type
	}
	for _, v := range b.Config {
		if v != "null" {
			return "", 0, "local (with settings)"
		}
	}
	path := filepath.Join(root, filepath.FromSlash(dir), "terraform.tfstate")
	if workspace != "" && workspace != "default" {
		path = filepath.Join(root, filepath.FromSlash(dir), "terraform.tfstate.d", workspace, "terraform.tfstate")
	}
	lineage, serial, err := bundle.StateSerial(path)
	if err != nil {
		return "", 0, "local (unreadable: " + err.Error() + ")"
	}
	return lineage, serial, ""
}

// projectLockFile is the project's dependency lock file, as its inputs name it.
func projectLockFile(dir string) string {
	if dir == "." || dir == "" {
		return ".terraform.lock.hcl"
	}
	return dir + "/.terraform.lock.hcl"
}

// mergeList is merges as comparable strings.
func mergeList(ms []bundle.UnappliedMerge) []string {
	var out []string
	for _, m := range ms {
		out = append(out, "#"+strconv.Itoa(m.PR)+" "+m.Commit)
	}
	return out
}
