package pipeline

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tfgate/tfgate/internal/bundle"
	"github.com/tfgate/tfgate/internal/gate"
	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/matrixresult"
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
	req      PlanRequest
	scratch  string
	from     string // the previous head
	byKey    map[string]previousPlan
	policies bool // policies judge this run's plans
	notes    []string
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

// runNotes are the run's notes of reuse (a fresh plan forced).
func (rp *reusePlans) runNotes() []string {
	if rp == nil {
		return nil
	}
	return rp.notes
}

// close removes what was fetched.
func (rp *reusePlans) close() {
	if rp != nil && rp.scratch != "" {
		os.RemoveAll(rp.scratch)
	}
}

// reuser is the plan stage's hook (stage.Reuser); nil when there is nothing to reuse.
func (rp *reusePlans) reuser(pols stage.Policies, bin terraform.Binary, unapplied unappliedPlan) stage.Reuser {
	if rp == nil || len(rp.byKey) == 0 {
		return nil
	}
	rp.policies = pols.Engine != nil
	return func(ctx context.Context, c stage.ReuseCandidate) (report.Project, bool) {
		prev, ok := rp.byKey[c.Project.Name+"\x00"+c.Project.Workspace]
		if !ok {
			return report.Project{}, false
		}
		res, why, err := rp.reuse(ctx, c, prev, bin, unapplied)
		switch {
		case err != nil:
			rp.req.Warn(fmt.Sprintf("%s: the previous push's plan could not be reused, so it is planned: %s", c.Project.Name, rp.req.Masker.String(err.Error())))
		case why != "":
			rp.req.Log.Info("planned again", "project", c.Project.Name, "why", why)
		default:
			return res, true
		}
		// Whatever the reissue left is not a bundle: the plan writes its own.
		if err := os.RemoveAll(c.Dir); err == nil {
			err = os.MkdirAll(c.Dir, 0o700)
		}
		return report.Project{}, false
	}
}

// reuse opens the previous plan (verified as apply verifies it), judges whether it may be
// reused, and reissues it into c.Dir; why says why not.
func (rp *reusePlans) reuse(ctx context.Context, c stage.ReuseCandidate, prev previousPlan, bin terraform.Binary, unapplied unappliedPlan) (report.Project, string, error) {
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
	f := reuseFacts(rp.req, c, o.Manifest, basis, bin, unapplied)
	if rp.policies && (c.PolicySum == "" || o.Manifest.Policy == nil) {
		f.Policies = "unknown" // policies judge, but what they read cannot be told
	}
	if ok, why := gate.Reusable(f); !ok {
		return report.Project{}, why, nil
	}
	m, err := bundle.Reissue(ctx, o, c.Dir, rp.req.PlanKey, func(m bundle.Manifest) bundle.Manifest {
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
	res.Name, res.Dir, res.Workspace = c.Project.Name, c.Project.Dir, c.Project.Workspace
	res.ReusedFrom, res.Bundle, res.Error = m.ReusedFrom, filepath.Join(c.Dir, bundle.PlanFile), ""
	if m.Encrypted {
		res.Bundle = c.Dir
	}
	return res, "", nil
}

// reuseFacts are the facts gate.Reusable judges of a project's earlier plan m.
func reuseFacts(req PlanRequest, c stage.ReuseCandidate, m bundle.Manifest, basis bundle.PlanBasis, bin terraform.Binary, unapplied unappliedPlan) gate.ReuseFacts {
	f := gate.ReuseFacts{PlannedHash: m.InputHash, Hash: c.InputHash,
		PlannedFlavor: m.TerraformFlavor, PlannedVersion: m.TerraformVersion, RunFlavor: bin.Flavor,
		PlannedPolicies: m.PolicySum, Policies: c.PolicySum,
		PlannedUnapplied: mergeList(m.Unapplied), Unapplied: mergeList(unapplied.byProject[c.Project.Name]),
		PlannedUnappliedUnknown: m.UnappliedUnknown, UnappliedUnknown: unapplied.unknown,
		PlannedApplicable: m.Applicable && !m.Dirty, Applicable: !req.Fork,
		PlannedLineage: basis.Lineage, PlannedSerial: basis.Serial, RemoteModules: basis.RemoteModules,
		Unpinned: basis.Providers && m.Inputs[projectLockFile(c.Project.Dir)] == ""}
	if bin.Version != nil {
		f.RunVersion = bin.Version.String()
	}
	f.Lineage, f.Serial, f.StateBackend = localState(req.Root, c.Project.Dir, c.Project.Workspace, basis.Backend)
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
