package pipeline

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/tfgate/tfgate/internal/bundle"
	"github.com/tfgate/tfgate/internal/gate"
	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/matrixresult"
	"github.com/tfgate/tfgate/internal/project"
	"github.com/tfgate/tfgate/internal/report"
	"github.com/tfgate/tfgate/internal/stage"
	"github.com/tfgate/tfgate/internal/terraform"
)

// A push re-plans only what changed (docs/busy-repositories.md). On a push to a pull
// request ("synchronize"), the plans of its previous head are fetched once (that head's
// tfgate-plan-<sha> artifact: two requests), and each project whose plan depends on
// nothing that changed (gate.Reusable) has that plan reissued for the new head, as apply
// would find it: the same plan file, verified as apply verifies it (bundle.Open: its
// sha256, the sealed manifest), its manifest recording the new head and reused_from. Its
// result (changes, policy verdict, cost) is the earlier run's, from that artifact's
// tfgate-result.json. Anything that cannot be fetched, read or proven plans afresh.

// reusePlans are the previous head's plans, by project and workspace; nil reuses none.
type reusePlans struct {
	req     PlanRequest
	scratch string
	from    string // the previous head
	byKey   map[string]previousPlan
	notes   []string
}

// previousPlan is one project's plan of the previous head.
type previousPlan struct {
	dir    string // its bundle directory, as fetched
	result report.Project
}

// previousPlans fetches the plans of the pull request's previous head, when this run may
// reuse them: a push to a pull request of this repository, with bundles, nothing forcing a
// fresh plan (--fresh, the label tfgate:fresh-plan), nothing else pricing the plans
// (--cost) and a clean checkout.
func previousPlans(ctx context.Context, req PlanRequest, rec bundleRecord) *reusePlans {
	gh := req.GitHub
	if gh == nil || gh.API == nil || req.OutDir == "" || !gh.Event.ForPullRequest() || gh.Event.Fork ||
		gh.Event.Before == "" || req.CostFile != "" || rec.dirty || rec.commit != gh.Event.HeadSHA ||
		(gh.ArtifactName != "" && gh.ArtifactName != "tfgate-plan-"+gh.Event.HeadSHA) {
		return nil
	}
	if fresh := freshReason(req); fresh != "" {
		return &reusePlans{notes: []string{gate.FreshNote(fresh)}}
	}
	api, ok := gh.API.(bundle.ArtifactAPI)
	if !ok {
		return nil
	}
	scratch, err := os.MkdirTemp("", "tfgate-reuse-")
	if err != nil {
		return nil
	}
	rp := &reusePlans{req: req, scratch: scratch, from: gh.Event.Before, byKey: map[string]previousPlan{}}
	store := bundle.GitHubStore(api, github.Repo{Owner: gh.Event.Owner, Name: gh.Event.Repo})
	dir, err := store.Fetch(ctx, bundle.Want{PR: gh.Event.PRNumber, HeadSHA: rp.from}, filepath.Join(scratch, "previous"))
	if err == nil {
		err = rp.read(ctx, dir)
	}
	if err != nil {
		// Nothing to reuse (the previous push's run did not finish, or its artifact
		// expired): every project is planned, as without reuse.
		req.Log.Info("no plan of the previous push to reuse", "head", rp.from, "error", req.Masker.String(err.Error()))
		if !errors.Is(err, bundle.ErrNoBundle) {
			req.Warn("the plans of the previous push could not be reused, so every project is planned: " + req.Masker.String(err.Error()))
		}
		rp.byKey = nil
	}
	return rp
}

// freshReason says what forces a fresh plan ("" = nothing).
func freshReason(req PlanRequest) string {
	if req.Fresh {
		return "--fresh"
	}
	for _, l := range req.GitHub.Event.LabelList() {
		if strings.EqualFold(l, github.FreshPlanLabel) {
			return "the label " + github.FreshPlanLabel
		}
	}
	return ""
}

// read takes the previous head's run result and bundles from dir: each bundle of this
// pull request on that head whose project planned.
func (rp *reusePlans) read(ctx context.Context, dir string) error {
	res, err := matrixresult.Read(filepath.Join(dir, matrixresult.FileName))
	if err != nil {
		return err
	}
	results := map[string]report.Project{}
	for _, p := range res.Decoded.Projects {
		if p.Status == report.StatusPlanned && p.Changes != nil {
			results[p.Name+"\x00"+p.Workspace] = p
		}
	}
	dirs, err := bundle.List(ctx, dir)
	if err != nil {
		return err
	}
	for _, d := range dirs {
		m, err := bundle.Read(ctx, d)
		if err != nil {
			return err
		}
		key := m.Project + "\x00" + m.Workspace
		r, ok := results[key]
		if !ok || m.PR != rp.req.PR || m.Commit != rp.from {
			continue
		}
		if _, dup := rp.byKey[key]; dup {
			return fmt.Errorf("the previous push's plans hold two bundles of project %s", m.Project)
		}
		rp.byKey[key] = previousPlan{dir: d, result: r}
	}
	return nil
}

// reusePrevious reuses what it may of the previous push's plans (previousPlans,
// reuseAll): the reused projects' results by index in sel.Projects, and the run's notes.
func reusePrevious(ctx context.Context, req PlanRequest, rec bundleRecord, sel stage.Selection, facts reuseRun) (map[int]report.Project, []string) {
	rp := previousPlans(ctx, req, rec)
	if rp == nil {
		return nil, nil
	}
	defer rp.close()
	facts.changed, facts.shared = sel.Files, rec.shared
	return rp.reuseAll(ctx, sel.Projects, stage.BundleDirs(sel.Projects), facts), rp.notes
}

// close removes what was fetched.
func (rp *reusePlans) close() {
	if rp.scratch != "" {
		os.RemoveAll(rp.scratch)
	}
}

// reuseAll reissues the previous head's plan of every project of projects that may reuse
// it, into its bundle directory under req.OutDir (dirs: stage.BundleDirs of projects), a
// few at a time (it reads and writes small files; terraform runs none). reused holds, by
// index, the reused projects' results; the others are to be planned.
func (rp *reusePlans) reuseAll(ctx context.Context, projects []project.Project, dirs []string, facts reuseRun) map[int]report.Project {
	if len(rp.byKey) == 0 {
		return nil
	}
	var (
		mu     sync.Mutex
		reused = map[int]report.Project{}
		sem    = make(chan struct{}, reuseWorkers)
		wg     sync.WaitGroup
	)
	for i, p := range projects {
		prev, ok := rp.byKey[p.Name+"\x00"+p.Workspace]
		if !ok {
			continue
		}
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			start := rp.req.Now()
			res, ok := rp.reuseOne(ctx, p, prev, filepath.Join(rp.req.OutDir, dirs[i]), facts)
			if ok {
				res.Duration = rp.req.Now().Sub(start)
				mu.Lock()
				reused[i] = res
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return reused
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
func (rp *reusePlans) reuseOne(ctx context.Context, p project.Project, prev previousPlan, dir string, facts reuseRun) (report.Project, bool) {
	res, why, err := rp.reuse(ctx, p, prev, dir, facts)
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
// reused, and reissues it into dir; why says why not.
func (rp *reusePlans) reuse(ctx context.Context, p project.Project, prev previousPlan, dir string, facts reuseRun) (report.Project, string, error) {
	opened, err := os.MkdirTemp(rp.scratch, "open-")
	if err != nil {
		return report.Project{}, "", err
	}
	defer os.RemoveAll(opened)
	o, err := bundle.Open(ctx, prev.dir, rp.req.PlanKey, opened)
	if err != nil {
		return report.Project{}, "", err
	}
	basis, err := bundle.ReadPlanBasis(o.PlanPath)
	if err != nil {
		return report.Project{}, "", err
	}
	hash, err := inputHash(ctx, rp.req, p, facts.shared)
	if err != nil {
		return report.Project{}, "", err
	}
	sum := facts.pols.InputSum(p, facts.changed, rp.req.Author)
	f := reuseFacts(rp.req, p, hash, sum, o.Manifest, basis, facts)
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

// withReused is the run's projects in selection order: the reused ones (by index in all)
// beside those planned (the rest, in order).
func withReused(all []project.Project, reused map[int]report.Project, planned []report.Project) []report.Project {
	if len(reused) == 0 {
		return planned
	}
	out := make([]report.Project, 0, len(all))
	next := 0
	for i := range all {
		if r, ok := reused[i]; ok {
			out = append(out, r)
		} else if next < len(planned) {
			out = append(out, planned[next])
			next++
		}
	}
	return out
}

// toPlan are the projects not reused.
func toPlan(all []project.Project, reused map[int]report.Project) []project.Project {
	if len(reused) == 0 {
		return all
	}
	var out []project.Project
	for i, p := range all {
		if _, ok := reused[i]; !ok {
			out = append(out, p)
		}
	}
	return out
}

// reuseFacts are the facts gate.Reusable judges of a project's earlier plan m.
func reuseFacts(req PlanRequest, p project.Project, hash, policySum string, m bundle.Manifest, basis bundle.PlanBasis, facts reuseRun) gate.ReuseFacts {
	f := gate.ReuseFacts{PlannedHash: m.InputHash, Hash: hash,
		PlannedFlavor: m.TerraformFlavor, PlannedVersion: m.TerraformVersion, RunFlavor: facts.bin.Flavor,
		PlannedPolicies: m.PolicySum, Policies: policySum,
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
