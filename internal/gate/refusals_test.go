package gate

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/plan"
	"github.com/tfgate/tfgate/internal/report"
)

// Every reason code the gate has is given by one of the gate's judgements, in a case of this
// table: a code with no case fails, so a new rule comes with its case. Where the text is
// given it is compared whole: testscripts and goldens read these words.
func TestEveryCodeHasACase(t *testing.T) {
	evaluate := func(edit func(in *Input)) []Reason { return Evaluate(input(edit)).Projects[0].Reasons }
	accept := func(edit func(f *BundleFacts)) []Reason {
		f := accepted()
		m := *f.Merge
		f.Merge = &m
		edit(&f)
		return AcceptBundle(f)
	}
	denied := func(p *Project) { p.PolicyDenied = true }
	kind := func(k PlanKind) []Reason {
		return AcceptPlanFile(PlanFileFacts{Kind: k, Backend: local, MergeBackend: local}, config.Apply{})
	}
	evilPath := Backend{Type: "local", Config: map[string]string{"path": `"../../evil.tfstate"`, "workspace_dir": "null"}, Workspace: "default"}
	saved := &plan.Changes{Resources: []plan.Resource{{Address: "a.x", Action: plan.ActionCreate}}}
	cases := []struct {
		code    string
		reasons []Reason
		text    string // "" = not compared
	}{
		{CodeNoHead, evaluate(func(in *Input) { in.PR.HeadSHA = "" }), "the pull request's head commit is unknown; nothing can be checked against it"},
		{CodeFork, evaluate(func(in *Input) { in.PR.Fork = true }), "the pull request comes from a fork; tfgate never applies a fork's code"},
		{CodeFrozen, evaluate(func(in *Input) { in.Freeze = "release week" }), "apply is frozen: release week"},
		{CodeNoReadGuard, evaluate(func(in *Input) { in.NoReadGuard = "not Linux" }), "apply.read_guard is required, and terraform cannot run under the read guard here (not Linux): apply on a runner whose kernel has Landlock (GitHub's hosted Ubuntu runners do)"},
		{CodeObserve, evaluate(project(func(p *Project) { p.Rules.Mode = config.ModeObserve })), "observe mode: tfgate never applies it"},
		{CodeNoBundle, evaluate(project(func(p *Project) { p.HasBundle = false })), "no plan for this project on a1b2c3d; the plan must run for it"},
		{CodeBundleCommit, evaluate(project(func(p *Project) { p.BundleCommit = old })), ""},
		{CodeNotApplicable, evaluate(project(func(p *Project) { p.Applicable = false })), ""},
		{CodePolicyError, evaluate(project(func(p *Project) { p.PolicyError = "boom" })), "the policies did not evaluate (boom); nothing applies until they do"},
		{CodeChangesRequested, evaluate(reviewed(review(1, "carol", ChangesRequested, head))), ""},
		{CodeApprovals, evaluate(nil), needOne},
		{CodeSelfApproval, evaluate(reviewed(approve(1, "dave"))), ""},
		{CodeStaleApproval, evaluate(reviewed(review(1, "bob", Approved, old))), ""},
		{CodeNoWriteAccess, evaluate(reviewed(approve(1, "erin"))), ""},
		{CodePolicyDenied, evaluate(project(denied)), policyDenied},
		{CodeNoPolicyOwners, evaluate(both(project(denied), project(func(p *Project) { p.Rules.Owners = nil }))), ""},
		{CodeTeamUnreadable, evaluate(both(project(denied), func(in *Input) { in.Facts.Teams = nil })), ""},
		{CodeOwners, evaluate(both(reviewed(approve(1, "bob")), project(func(p *Project) { p.Rules.Teams = []string{"acme/platform"} }))),
			"needs @acme/platform (approval.teams)"},
		{CodeOwnersInvalid, evaluate(project(func(p *Project) {
			p.OwnerNeeds = []OwnerNeed{Unmeetable("CODEOWNERS line 2 (main.tf)", "owned only by e-mail addresses (a@b.org)")}
		})), "CODEOWNERS line 2 (main.tf): owned only by e-mail addresses (a@b.org); no approval can meet it until it is fixed on the default branch"},
		{CodePlanChanged, evaluate(both(history(plus1, plus3, true), reviewed(approve(15, "bob")))), ""},

		{CodeBundleDir, accept(func(f *BundleFacts) { f.BundleDir = "x" }), "its bundle is of directory x, but the project is in envs/prod"},
		{CodeUnjudged, accept(func(f *BundleFacts) { f.PolicyJudged = false }), ""},
		{CodeBundlePR, accept(func(f *BundleFacts) { f.PR = 7 }), "its bundle was planned for pull request #7, not #42"},
		{CodeTampered, accept(func(f *BundleFacts) { f.Open, f.Opened = OpenTampered, "sha256 differs" }), "sha256 differs"},
		{CodeUnencrypted, accept(func(f *BundleFacts) { f.Open, f.Opened = OpenUnencrypted, "clear" }), "clear"},
		{CodeMalformed, accept(func(f *BundleFacts) { f.Open, f.Opened = OpenMalformed, "no manifest" }), "no manifest"},
		{CodeStale, accept(func(f *BundleFacts) { f.Merge.Hash, f.Merge.Inputs = "other", map[string]string{"main.tf": "h2"} }),
			"the plan is stale: the merge 9f8e7d6 changed its inputs beyond the reviewed commit a1b2c3d (main.tf (changed)); plan it again on the merged code"},
		{CodeStale, StaleCheckout("sum", "other", map[string]string{"a.tf": "1", "b.tf": "2"}, map[string]string{"a.tf": "3", "c.tf": "4"}),
			"the plan is stale: the default branch changed its inputs since it was planned (a.tf (changed), b.tf (removed), c.tf (new)); plan it again (push, or re-run the plan workflow)"},
		{CodeNoTerraformVersion, accept(func(f *BundleFacts) { f.Merge.PlannedVersion = "" }), ""},
		{CodeTerraformVersion, accept(func(f *BundleFacts) { f.Merge.RunVersion = "1.9.0" }), ""},

		{CodeNoPlans, []Reason{NoPlans("no bundle")}, "no bundle"},
		{CodeNotMerged, []Reason{NotMerged(mergeSHA, 0)}, "commit 9f8e7d6 is not the merge of a pull request: tfgate applies only plans reviewed on a pull request"},
		{CodeNotMerged, []Reason{NotMerged(mergeSHA, 42)}, "pull request #42 is not merged: tfgate applies a pull request's plans once it is merged"},
		{CodeNotPlanFile, AcceptPlanFile(PlanFileFacts{NotZip: "zip: not a valid zip file"}, config.Apply{}),
			"its plan file is not a terraform plan file (zip: not a valid zip file): plan again"},
		{CodeNotPlanFile, AcceptPlanFile(PlanFileFacts{NoKind: "no tfplan"}, config.Apply{}), "its plan file is not one terraform wrote (no tfplan): plan again"},
		{CodePlanMode, kind(PlanKind{Mode: PlanNormal, Errored: true}), "its plan file is of a plan that stopped on an error: terraform applies none; plan again"},
		{CodeSnapshot, AcceptPlanFile(PlanFileFacts{Kind: PlanKind{Mode: PlanNormal}, Snapshot: []string{"main.tf differs"}}, config.Apply{}), "main.tf differs"},
		{CodeBackend, AcceptPlanFile(PlanFileFacts{Kind: PlanKind{Mode: PlanNormal}, Backend: evilPath, MergeBackend: local}, config.Apply{}),
			`its plan file applies to backend local path "../../evil.tfstate", the merge's to "terraform.tfstate": it is not the merge's state; plan again`},
		{CodeManifest, CheckManifest(PlanAccount{}, PlanAccount{Summary: plan.Summary{Add: 1}, HasChanges: true}),
			"its manifest's summary is not the plan file's (add: manifest 0, plan file 1; has changes: manifest false, plan file true): the bundle is not what tfgate plan wrote; plan again"},
		{CodeReplan, Replan(saved, &plan.Changes{}),
			"a plan of the merge made now (apply.verify: replan) differs from the reviewed plan: the reviewed plan would create a.x, a plan now leaves it; the reviewed plan is not what terraform would do: plan it again"},
		{CodeLeftOut, LeftOut([]string{"net", "dns"}, map[string]bool{"dns": true}),
			"it depends on dns, which this merge changed too and this run does not apply: apply dns with it (or name no projects)"},
		{CodeAppliedFirst, []Reason{AppliedFirst(Merge{PR: 5, Commit: mergeSHA})},
			"the reviewed plan is stale: #5 was applied first in this run (merge 9f8e7d6, which no run had applied when this plan was made) and changed the project's state since it was planned. Nothing was applied; plan the project again in a new pull request"},
		{CodeUnappliedBase, PlannedUnapplied([]Merge{{PR: 2, Commit: mergeSHA}}),
			"planned while #2 (merge 9f8e7d6) waited to be applied: the plan is of the state before its apply, so apply would refuse it as stale; plan it again once it is applied (tfgate notify-stale re-plans it), or push"},
		{CodeUnappliedUnknown, UnappliedUnknown("GitHub said 502"),
			"the plan could not tell whether the default branch it was planned on was applied (GitHub said 502); plan it again (push, or re-run the plan workflow)"},
		{CodeQueueGroup, []Reason{queueGroup("the merge group's commits cannot be listed: 404")}, "merge queue group: the merge group's commits cannot be listed: 404"},
		{CodeGroupRefused, []Reason{GroupRefused([]Refusal{{Name: "net", Reasons: []string{"needs 1 more approval", "x"}}, {Name: "dns"}})},
			"the merge queue group that landed it is refused (net: needs 1 more approval; dns): a group lands as one, so none of it applies until every pull request in it passes; get the approvals and run apply again"},
		{CodeUncoveredFiles, uncovered([]Refusal{{Name: "files outside every project (x.tf)", Reasons: []string{"a", "b"}}}),
			"the merge also changed what no plan covers, and the review of it does not hold: files outside every project (x.tf): a; b"},
	}
	covered := map[string]bool{}
	for _, c := range cases {
		found := false
		for _, r := range c.reasons {
			if r.Code == c.code && (c.text == "" || r.Text == c.text) {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no reason of the code (with text %q) in %+v", c.code, c.text, c.reasons)
		}
		covered[c.code] = true
	}
	for code, name := range codeConstants(t) {
		if !covered[code] {
			t.Errorf("%s (%q) has no case in TestEveryCodeHasACase", name, code)
		}
	}
}

func uncovered(refused []Refusal) []Reason {
	reasons, _ := UncoveredReview(refused, nil)
	return reasons
}

func queueGroup(problem string) Reason {
	why, _ := QueueGroup(problem)
	return why
}

// A gate run's status never allows over a project that is not allowed.
func TestReconcile(t *testing.T) {
	allows := report.Verdict{State: report.GateAllowed, Description: "approved"}
	pending := report.Verdict{State: report.GatePending, Description: "needs 1"}
	for _, c := range []struct {
		name       string
		v          report.Verdict
		allAllowed bool
		want       report.Verdict
	}{
		{"allowed, every project allowed", allows, true, allows},
		{"allowed, a project refused", allows, false, report.Verdict{State: report.GateBlocked, Description: "refused: net, dns"}},
		{"pending stands", pending, false, pending},
	} {
		if got := Reconcile(c.v, c.allAllowed, []string{"net", "dns"}); got != c.want {
			t.Errorf("%s: got %+v, want %+v", c.name, got, c.want)
		}
	}
}

func TestNothingChanged(t *testing.T) {
	want := report.Verdict{State: report.GateAllowed, Description: "no project changes on 0123456: nothing to apply"}
	if got := NothingChanged("0123456789abcdef"); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

// A merge queue group that cannot be judged blocks the run, its status saying why.
func TestQueueGroupStatus(t *testing.T) {
	why, status := QueueGroup("x")
	if status.State != report.GateBlocked || status.Description != why.Text {
		t.Errorf("got %+v for %+v", status, why)
	}
}

// What does not hold refuses nothing: every judgement of a case that holds is empty.
func TestRefusalsOfWhatHolds(t *testing.T) {
	same := map[string]string{"a.tf": "1"}
	changes := &plan.Changes{Resources: []plan.Resource{{Address: "a.x", Action: plan.ActionCreate}}}
	for name, got := range map[string][]Reason{
		"a normal plan file":     AcceptPlanFile(PlanFileFacts{Kind: PlanKind{Mode: PlanNormal}, Backend: local, MergeBackend: local}, config.Apply{}),
		"an honest manifest":     CheckManifest(PlanAccount{Summary: plan.Summary{Add: 1}, HasChanges: true}, PlanAccount{Summary: plan.Summary{Add: 1}, HasChanges: true}),
		"the same plan now":      Replan(changes, changes),
		"the same inputs":        StaleCheckout("sum", "sum", same, same),
		"no dependency left out": LeftOut([]string{"net"}, map[string]bool{"dns": true}),
	} {
		if len(got) != 0 {
			t.Errorf("%s: got %+v, want none", name, got)
		}
	}
}

// Review-only items refused refuse the run: its status blocks, unless it refuses already.
func TestUncoveredReviewStatus(t *testing.T) {
	refused := []Refusal{{Name: "files (x.tf)", Reasons: []string{"needs 1"}}, {Name: "old (dropped)", Reasons: []string{"y"}}}
	want := &report.Verdict{State: report.GateBlocked, Description: "refused: files (x.tf): needs 1"}
	for _, c := range []struct {
		name    string
		current *report.Verdict
		want    *report.Verdict
	}{
		{"no status yet", nil, want},
		{"the gate allows", &report.Verdict{State: report.GateAllowed, Description: "ok"}, want},
		{"the gate is pending", &report.Verdict{State: report.GatePending, Description: "needs 1"}, nil},
		{"the gate blocks", &report.Verdict{State: report.GateBlocked, Description: "frozen"}, nil},
	} {
		reasons, got := UncoveredReview(refused, c.current)
		if len(reasons) != 2 || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %+v, %+v; want the status %+v", c.name, reasons, got, c.want)
		}
	}
}

func TestNamePull(t *testing.T) {
	v := Evaluate(input(nil))
	v.NamePull(7)
	if got := v.Projects[0].Reasons[0].Text; got != "pull request #7: "+needOne {
		t.Errorf("got %q", got)
	}
}

func TestGuardPlan(t *testing.T) {
	fork := PlanEvent{Name: "pull_request_target", Fork: true, PR: 7, HeadRepo: "mallory/infra"}
	err := GuardPlan(fork, false)
	if err == nil || !strings.HasPrefix(err.Error(), "refusing to plan pull request #7 from the fork mallory/infra under pull_request_target:") ||
		!strings.Contains(err.Error(), "github.allow_pull_request_target_forks: true in the base branch's "+config.FileName) {
		t.Errorf("a fork under pull_request_target: got %v", err)
	}
	if err := GuardPlan(fork, true); err != nil {
		t.Errorf("allowed forks: got %v", err)
	}
	for _, ev := range []PlanEvent{{Name: "pull_request", Fork: true}, {Name: "pull_request_target"}} {
		if err := GuardPlan(ev, false); err != nil {
			t.Errorf("%+v: got %v", ev, err)
		}
	}
}

func TestReviewOnlyRules(t *testing.T) {
	base := config.Default()
	if p := SharedFiles("files", base); !p.ReviewOnly || p.Name != "files" || p.Rules.MinApprovals != base.SharedRules().MinApprovals {
		t.Errorf("shared files: got %+v", p)
	}
	if p := DroppedProject("old (dropped)", "old", "default", base); !p.ReviewOnly || p.Name != "old (dropped)" {
		t.Errorf("a dropped project: got %+v", p)
	}
}

func TestKindProblems(t *testing.T) {
	cases := []struct {
		name  string
		kind  PlanKind
		allow []string
		want  []string
	}{
		{"normal", PlanKind{Mode: PlanNormal}, nil, nil},
		{"destroy", PlanKind{Mode: PlanDestroy}, nil, []string{"its plan file is a destroy plan (-destroy), which tfgate plan never makes: refusing it (apply.allow_modes: [destroy] in .tfgate.yaml on the default branch allows it)"}},
		{"destroy allowed", PlanKind{Mode: PlanDestroy}, []string{config.AllowDestroy}, nil},
		{"refresh-only", PlanKind{Mode: PlanRefreshOnly}, []string{config.AllowDestroy}, []string{"a refresh-only plan (-refresh-only)"}},
		{"refresh-only allowed", PlanKind{Mode: PlanRefreshOnly}, []string{config.AllowRefreshOnly}, nil},
		{"targeted", PlanKind{Mode: PlanNormal, Targets: []string{"a.b", "c.d"}}, nil, []string{"a targeted plan (-target or -exclude a.b, c.d)", "[targeted]"}},
		{"excluded", PlanKind{Mode: PlanNormal, Excludes: []string{"a.b"}}, nil, []string{"-exclude a.b"}},
		{"targeted allowed", PlanKind{Mode: PlanNormal, Targets: []string{"a.b"}}, []string{config.AllowTargeted}, nil},
		{"targeted destroy, destroy allowed", PlanKind{Mode: PlanDestroy, Targets: []string{"a.b"}}, []string{config.AllowDestroy}, []string{"a targeted plan"}},
		{"unknown mode", PlanKind{Mode: "unknown mode 7"}, []string{config.AllowDestroy, config.AllowRefreshOnly, config.AllowTargeted}, []string{"a mode tfgate does not know (unknown mode 7)"}},
		{"errored", PlanKind{Mode: PlanNormal, Errored: true}, nil, []string{"stopped on an error"}},
	}
	for _, c := range cases {
		got := kindProblems(c.kind, config.Apply{AllowModes: c.allow})
		if (len(got) == 0) != (len(c.want) == 0) {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(strings.Join(got, "\n"), w) {
				t.Errorf("%s: got %q, want it to say %q", c.name, got, w)
			}
		}
	}
}

func TestCheckManifest(t *testing.T) {
	destroys := PlanAccount{Summary: plan.Summary{Destroy: 1, Change: 1}, HasChanges: true, Destroyed: []string{"fakecloud_object.x"},
		PolicyDenied: true, PolicyDenies: []string{"no_deletes: fakecloud_object.x is deleted"}}
	honest := destroys
	honest.Destroyed = nil
	if got := CheckManifest(honest, destroys); len(got) != 0 {
		t.Errorf("an honest manifest: got %+v", got)
	}
	forged := PlanAccount{Summary: plan.Summary{Change: 2}, HasChanges: true}
	got := joined(CheckManifest(forged, destroys))
	for _, w := range []string{
		"its manifest says no destroys, but the plan file destroys fakecloud_object.x",
		"its manifest's summary is not the plan file's (change: manifest 2, plan file 1; destroy: manifest 0, plan file 1)",
		"its manifest says the policies pass, but the policies before the merge deny the plan file (no_deletes: fakecloud_object.x is deleted)",
	} {
		if !strings.Contains(got, w) {
			t.Errorf("got\n%s\nwant it to say %q", got, w)
		}
	}

	quiet := PlanAccount{Summary: plan.Summary{Add: 1}, HasChanges: true}
	claims := PlanAccount{Summary: plan.Summary{Add: 1, Replace: 1}, HasChanges: true, PolicyDenied: true, PolicyDenies: []string{"x: y"}}
	got = joined(CheckManifest(claims, quiet))
	for _, w := range []string{"its manifest says it destroys 0 and replaces 1, but the plan file destroys nothing",
		"its manifest says the policies deny it, but the policies before the merge pass the plan file"} {
		if !strings.Contains(got, w) {
			t.Errorf("got\n%s\nwant it to say %q", got, w)
		}
	}
	broken := PlanAccount{Summary: plan.Summary{Add: 1}, HasChanges: true, PolicyDenied: true, PolicyError: true}
	if got := CheckManifest(PlanAccount{Summary: plan.Summary{Add: 1}, HasChanges: true}, broken); len(got) != 1 {
		t.Errorf("a deny and an error the manifest hides: got %+v, want one disagreement", got)
	}
	if got := CheckManifest(PlanAccount{Summary: plan.Summary{Add: 1}, HasChanges: true, PolicyError: false}, PlanAccount{Summary: plan.Summary{Add: 1}, HasChanges: true, PolicyError: true}); len(got) != 1 {
		t.Errorf("a policy error the manifest hides: got %+v", got)
	}
	if got := CheckManifest(PlanAccount{Summary: plan.Summary{Add: 1}}, quiet); len(got) != 1 || !strings.Contains(got[0].Text, "has changes: manifest false, plan file true") {
		t.Errorf("has_changes: got %+v", got)
	}
}

func joined(rs []Reason) string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Text)
	}
	return strings.Join(out, "\n")
}

func TestReplanDiff(t *testing.T) {
	known := func(s string) plan.Value { return plan.Value{Text: s, Kind: plan.KindKnown} }
	saved := &plan.Changes{Resources: []plan.Resource{
		{Address: "a.x", Action: plan.ActionUpdate, Attributes: []plan.Attribute{{Path: "input", After: known(`"v2"`)}}},
		{Address: "a.y", Action: plan.ActionCreate},
		{Address: "a.z", Action: plan.ActionDelete},
	}}
	if got := ReplanDiff(saved, saved); len(got) != 0 {
		t.Errorf("the same plan: got %q", got)
	}
	now := &plan.Changes{Resources: []plan.Resource{
		{Address: "a.x", Action: plan.ActionUpdate, Attributes: []plan.Attribute{{Path: "input", After: known(`"evil"`)}}},
		{Address: "a.y", Action: plan.ActionReplace},
		{Address: "a.w", Action: plan.ActionCreate},
	}}
	got := strings.Join(ReplanDiff(saved, now), "\n")
	for _, w := range []string{
		`a.x: input is "evil" now, "v2" in the reviewed plan`,
		"a.y is to replace now, the reviewed plan would create it",
		"a.w is to create now, the reviewed plan leaves it",
		"the reviewed plan would delete a.z, a plan now leaves it",
	} {
		if !strings.Contains(got, w) {
			t.Errorf("got\n%s\nwant it to say %q", got, w)
		}
	}
	extra := &plan.Changes{Resources: []plan.Resource{{Address: "a.x", Action: plan.ActionUpdate,
		Attributes: []plan.Attribute{{Path: "input", After: known(`"v2"`)}, {Path: "tags", After: known("{}")}}}, saved.Resources[1], saved.Resources[2]}}
	if got := ReplanDiff(saved, extra); len(got) != 1 || !strings.Contains(got[0], "attributes tags differ") {
		t.Errorf("an attribute more: got %q", got)
	}
}

func TestOverrule(t *testing.T) {
	allowed := Evaluate(input(reviewed(approve(1, "bob"))))
	short := Evaluate(input(nil))                                                    // pending on reviews
	frozen := Evaluate(input(func(in *Input) { in.Freeze = "x"; in.Reviews = nil })) // blocked
	refused := []Refusal{{Name: "net", Reasons: []string{"its plan file is not one terraform wrote", "x"}}, {Name: "dns", Reasons: []string{"y"}}}
	cases := []struct {
		name        string
		v           Verdict
		refused     []Refusal
		pending     bool
		desc        string
		wantPending bool
		overruled   bool
	}{
		{"nothing refused", allowed, nil, true, "", false, false},
		{"refused where the gate allows", allowed, refused, false, "net: its plan file is not one terraform wrote (+1 more)", false, true},
		{"pending where the gate allows", allowed, refused[1:], true, "dns: y", true, true},
		{"the gate blocks already", frozen, refused, false, "", false, false},
		{"the gate is pending and so is every refusal", short, refused, true, "", false, false},
		{"the gate is pending, a refusal blocks", short, refused, false, "net: its plan file is not one terraform wrote (+1 more)", false, true},
	}
	for _, c := range cases {
		status, over := Overrule(c.v, c.refused, c.pending)
		desc, pending := status.Description, status.State == report.GatePending
		if over && !pending && status.State != report.GateBlocked {
			t.Errorf("%s: overruled with the state %q", c.name, status.State)
		}
		if desc != c.desc || pending != c.wantPending || over != c.overruled {
			t.Errorf("%s: got %q, %v, %v; want %q, %v, %v", c.name, desc, pending, over, c.desc, c.wantPending, c.overruled)
		}
	}
}

// Judge joins what was found of a project's bundle with its verdict under each
// configuration the rules come from: the problems first, each text once, pending only when
// every reason is a review's.
func TestJudge(t *testing.T) {
	short := Evaluate(input(nil))                                                       // needs an approval: pending
	stricter := Evaluate(input(project(func(p *Project) { p.Rules.MinApprovals = 2 }))) // under other rules
	approved := Evaluate(input(reviewed(approve(1, "bob"))))
	stale := NoPlans("no bundle")
	name := "envs/prod/network"
	cases := []struct {
		name      string
		problems  []Reason
		verdicts  []Verdict
		want      []string
		pending   bool
		approvers []string
	}{
		{"allowed", nil, []Verdict{approved}, nil, false, []string{"bob"}},
		{"no verdict, no problem", nil, nil, nil, false, nil},
		{"pending on reviews", nil, []Verdict{short}, []string{needOne}, true, nil},
		{"under every rules, each text once", nil, []Verdict{short, stricter, short}, []string{needOne, "needs 2 more approvals on a1b2c3d (has: none)"}, true, nil},
		{"a problem is first and blocks", []Reason{stale}, []Verdict{short}, []string{"no bundle", needOne}, false, nil},
		{"a problem alone", []Reason{stale}, nil, []string{"no bundle"}, false, nil},
		{"another project's verdict", nil, []Verdict{Evaluate(input(project(func(p *Project) { p.Name = "other" })))}, nil, false, nil},
	}
	for _, c := range cases {
		j := Judge(name, c.problems, c.verdicts)
		var got []string
		for _, r := range j.Reasons {
			got = append(got, r.Text)
		}
		if !slices.Equal(got, c.want) || j.Pending != c.pending || !slices.Equal(j.Approvers, c.approvers) {
			t.Errorf("%s: got %q (pending %v, approvers %v), want %q (pending %v, approvers %v)", c.name, got, j.Pending, j.Approvers, c.want, c.pending, c.approvers)
		}
	}
}

// A plan made while a merge that changed its project waited to be applied is pending, not
// blocked: waiting (and the re-plan after it) lifts it; an unknown blocks.
func TestPlannedUnappliedIsPending(t *testing.T) {
	j := Judge("b", PlannedUnapplied([]Merge{{PR: 2, Commit: mergeSHA}}), nil)
	if !j.Pending || len(j.Reasons) != 1 {
		t.Errorf("Judge = %+v, want pending with one reason", j)
	}
	if j := Judge("b", append(PlannedUnapplied([]Merge{{PR: 2, Commit: mergeSHA}}), UnappliedUnknown("x")...), nil); j.Pending {
		t.Errorf("Judge = %+v, want blocked", j)
	}
	if PlannedUnapplied(nil) != nil || UnappliedUnknown("") != nil {
		t.Error("no merges, no reason")
	}
	note := UnappliedNote(map[string][]Merge{"b": {{PR: 2, Commit: mergeSHA}}, "c": {{PR: 2, Commit: mergeSHA}}}, []string{"a", "b", "c"})
	want := "Planned on a default branch with 1 merge that no tfgate run has applied yet: #2 (merge 9f8e7d6) changed b, c. These plans are of the state before its apply, and apply will refuse them as stale: tfgate/gate stays pending until they are planned again once it is applied (tfgate notify-stale re-plans them then, or push)."
	if note != want {
		t.Errorf("UnappliedNote =\n%s\nwant\n%s", note, want)
	}
}
