package pipeline

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tfgate/tfgate/internal/bundle"
	"github.com/tfgate/tfgate/internal/gate"
	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/matrixresult"
	"github.com/tfgate/tfgate/internal/report"
)

// A push re-plans only what changed (docs/busy-repositories.md). On a push to a pull
// request ("synchronize"), the plans of its previous head are fetched once (that head's
// tfgate-plan-<sha> artifact: two requests), and each project whose plan depends on
// nothing that changed (gate.Reusable) has that plan reissued for the new head, as apply
// would find it: the same plan file, verified as apply verifies it (bundle.Artifact's
// Open: its sha256, the sealed manifest), its manifest recording the new head and
// reused_from. Its result (changes, policy verdict, cost) is the earlier run's, from that
// artifact's tfgate-result.json. Anything that cannot be fetched, read or proven plans
// afresh. The artifact is read in memory, never unpacked: writing dozens of bundles to
// disk only to copy them into --out was most of what reuse cost.

// reusePlans are the previous head's plans, by project and workspace; nil reuses none.
type reusePlans struct {
	req   PlanRequest
	art   *bundle.Artifact
	from  string // the previous head
	byKey map[string]previousPlan
	notes []string
}

// previousPlan is one project's plan of the previous head.
type previousPlan struct {
	dir      string // its bundle directory in the artifact
	manifest bundle.Manifest
	result   report.Project
}

// startPrevious fetches, beside the selection, the plans of the pull request's previous
// head (previousPlans). Stop it when the run ends.
func startPrevious(ctx context.Context, req PlanRequest) *future[*reusePlans] {
	return background(ctx, func(ctx context.Context) (*reusePlans, error) { return previousPlans(ctx, req), nil })
}

// previousPlans fetches the plans of the pull request's previous head, when this run may
// reuse them: a push to a pull request of this repository, with bundles, nothing forcing a
// fresh plan (--fresh, the label tfgate:fresh-plan) and nothing else pricing the plans
// (--cost). A dirty checkout reuses nothing either (usable).
func previousPlans(ctx context.Context, req PlanRequest) *reusePlans {
	gh := req.GitHub
	if gh == nil || gh.API == nil || req.OutDir == "" || !gh.Event.ForPullRequest() || gh.Event.Fork ||
		gh.Event.Before == "" || req.CostFile != "" || (gh.ArtifactName != "" && gh.ArtifactName != "tfgate-plan-"+gh.Event.HeadSHA) {
		return nil
	}
	if fresh := freshReason(req); fresh != "" {
		return &reusePlans{notes: []string{gate.FreshNote(fresh)}}
	}
	api, ok := gh.API.(bundle.ArtifactAPI)
	if !ok {
		return nil
	}
	rp := &reusePlans{req: req, from: gh.Event.Before, byKey: map[string]previousPlan{}}
	art, err := bundle.FetchArtifact(ctx, api, github.Repo{Owner: gh.Event.Owner, Name: gh.Event.Repo}, bundle.Want{PR: gh.Event.PRNumber, HeadSHA: rp.from})
	if err == nil {
		rp.art = art
		err = rp.read(ctx)
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

// read takes the previous head's run result and bundles from its artifact: each bundle of
// this pull request on that head whose project planned.
func (rp *reusePlans) read(ctx context.Context) error {
	data, err := rp.art.ReadFile(matrixresult.FileName, bundle.MaxOpenBytes)
	if err != nil {
		return err
	}
	res, err := matrixresult.Parse(data, matrixresult.FileName)
	if err != nil {
		return fmt.Errorf("%s: %w", rp.art, err)
	}
	results := map[string]report.Project{}
	for _, p := range res.Decoded.Projects {
		if p.Status == report.StatusPlanned && p.Changes != nil {
			results[p.Name+"\x00"+p.Workspace] = p
		}
	}
	for _, d := range rp.art.Bundles() {
		m, err := rp.art.Manifest(ctx, d)
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
		rp.byKey[key] = previousPlan{dir: d, manifest: m, result: r}
	}
	return nil
}

// usable reports whether the plans may be reused on the checkout rec describes: the pull
// request's head, clean.
func (rp *reusePlans) usable(rec bundleRecord) bool {
	return rp != nil && len(rp.byKey) > 0 && !rec.dirty && rec.commit == rp.req.GitHub.Event.HeadSHA
}

// closePrevious waits for the fetch to end (what it fetched is in memory only).
func closePrevious(f *future[*reusePlans]) {
	f.Stop()
	f.Wait()
}
