package gate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/english"
	"github.com/tfgate/tfgate/internal/plan"
	"github.com/tfgate/tfgate/internal/report"
)

// The refusals beyond the reviews and bundle acceptance: what apply finds of the merge, the
// plan file and the merge queue group, what `tfgate gate` finds of a stale plan, the
// review-only items, and the guard on planning a fork. Each is a pure function of facts
// internal/pipeline gathers; every word of every refusal is in this package (a test of
// pipeline holds it to that: TestRefusalsAreTheGates).

// NotMerged refuses every project of commit, which is not the merge of a pull request: pr
// is the pull request found for it that is not merged, 0 when none was found.
func NotMerged(commit string, pr int) Reason {
	if pr != 0 {
		return Reason{Code: CodeNotMerged, Text: fmt.Sprintf("pull request #%d is not merged: tfgate applies a pull request's plans once it is merged", pr)}
	}
	return Reason{Code: CodeNotMerged, Text: fmt.Sprintf("commit %s is not the merge of a pull request: tfgate applies only plans reviewed on a pull request", short(commit))}
}

// NoPlans refuses every project when no reviewed bundle was found, or their archive was
// built to escape its directory: why is what the bundle store said.
func NoPlans(why string) Reason {
	return Reason{Code: CodeNoPlans, Text: why}
}

// LeftOut is a reason for each of a named project's dependencies (dependsOn) that the merge
// changed and the run leaves out (leftOut): its foundation would not be applied first.
func LeftOut(dependsOn []string, leftOut map[string]bool) []Reason {
	var out []Reason
	for _, dep := range dependsOn {
		if leftOut[dep] {
			out = append(out, Reason{Code: CodeLeftOut, Text: fmt.Sprintf(
				"it depends on %s, which this merge changed too and this run does not apply: apply %s with it (or name no projects)", dep, dep)})
		}
	}
	return out
}

// Plan modes as a plan file records them (bundle.ReadPlanKind).
const (
	PlanNormal      = "normal"
	PlanDestroy     = "destroy"
	PlanRefreshOnly = "refresh-only"
)

// PlanKind is what a plan file says of how it was made (the fields of bundle.PlanKind).
type PlanKind struct {
	Mode     string   // PlanNormal, PlanDestroy, PlanRefreshOnly, or what else the file says
	Targets  []string // -target addresses; none = the whole configuration
	Excludes []string // OpenTofu's -exclude addresses
	Errored  bool     // planning stopped on an error: terraform never applies it
}

// PlanFileFacts are what apply read of a bundle's plan file before terraform reads it.
type PlanFileFacts struct {
	NotZip string // why the plan file did not open as a zip archive; "" = it did
	NoKind string // why its tfplan entry could not be read; "" = Kind was read
	Kind   PlanKind
	// Snapshot is where its configuration snapshot is not the merged code (what
	// bundle.CheckSnapshot found); none = it is.
	Snapshot []string
}

// AcceptPlanFile is every reason the plan file f describes is not what a review shows: not
// a plan file terraform wrote, a kind of plan tfgate plan never makes (unless the base's
// apply.allow_modes, rules, allows it), a configuration that is not the merged code.
func AcceptPlanFile(f PlanFileFacts, rules config.Apply) []Reason {
	switch {
	case f.NotZip != "":
		return []Reason{{Code: CodeNotPlanFile, Text: fmt.Sprintf("its plan file is not a terraform plan file (%s): plan again", f.NotZip)}}
	case f.NoKind != "":
		return []Reason{{Code: CodeNotPlanFile, Text: fmt.Sprintf("its plan file is not one terraform wrote (%s): plan again", f.NoKind)}}
	}
	return append(texts(CodePlanMode, kindProblems(f.Kind, rules)), texts(CodeSnapshot, f.Snapshot)...)
}

// kindProblems refuses a plan of a kind tfgate plan never makes, unless the base's
// apply.allow_modes allows it.
func kindProblems(k PlanKind, rules config.Apply) []string {
	var out []string
	allow := func(what, mode string) {
		out = append(out, fmt.Sprintf("its plan file is %s, which tfgate plan never makes: refusing it (apply.allow_modes: [%s] in %s on the default branch allows it)",
			what, mode, config.FileName))
	}
	switch k.Mode {
	case PlanNormal:
	case PlanDestroy:
		if !rules.AllowsMode(config.AllowDestroy) {
			allow("a destroy plan (-destroy)", config.AllowDestroy)
		}
	case PlanRefreshOnly:
		if !rules.AllowsMode(config.AllowRefreshOnly) {
			allow("a refresh-only plan (-refresh-only)", config.AllowRefreshOnly)
		}
	default:
		out = append(out, fmt.Sprintf("its plan file was made in a mode tfgate does not know (%s): refusing it", k.Mode))
	}
	if (len(k.Targets) > 0 || len(k.Excludes) > 0) && !rules.AllowsMode(config.AllowTargeted) {
		addrs := append(slices.Clone(k.Targets), k.Excludes...)
		allow("a targeted plan (-target or -exclude "+clip(addrs)+")", config.AllowTargeted)
	}
	if k.Errored {
		out = append(out, "its plan file is of a plan that stopped on an error: terraform applies none; plan again")
	}
	return out
}

// PlanAccount is what a plan does and what the policies said of it: as a bundle's manifest
// records it, or as apply derives it from the plan file and the policies before the merge.
type PlanAccount struct {
	Summary    plan.Summary
	HasChanges bool
	Destroyed  []string // the addresses deleted or replaced, for messages (the plan file's)
	// The policy verdict: denied (with the deny messages), or not evaluated (an error).
	PolicyDenied bool
	PolicyDenies []string
	PolicyError  bool
}

func (p PlanAccount) destroys() bool { return p.Summary.Destroy > 0 || p.Summary.Replace > 0 }

// CheckManifest is a reason for each place the manifest's account says otherwise than the
// plan file's: the reviewers read the manifest's (in the comment), so each one refuses.
func CheckManifest(manifest, planFile PlanAccount) []Reason {
	var out []string
	say := func(format string, args ...any) {
		out = append(out, fmt.Sprintf(format, args...)+": the bundle is not what tfgate plan wrote; plan again")
	}
	m, d := manifest, planFile
	switch {
	case !m.destroys() && d.destroys():
		say("its manifest says no destroys, but the plan file destroys %s", clip(d.Destroyed))
	case m.destroys() && !d.destroys():
		say("its manifest says it destroys %d and replaces %d, but the plan file destroys nothing", m.Summary.Destroy, m.Summary.Replace)
	}
	diff := summaryDiff(m.Summary, d.Summary)
	if m.HasChanges != d.HasChanges {
		diff = append(diff, fmt.Sprintf("has changes: manifest %t, plan file %t", m.HasChanges, d.HasChanges))
	}
	if len(diff) > 0 {
		say("its manifest's summary is not the plan file's (%s)", strings.Join(diff, "; "))
	}
	switch {
	case !m.PolicyDenied && d.PolicyDenied:
		say("its manifest says the policies pass, but the policies before the merge deny the plan file (%s)", clip(d.PolicyDenies))
	case m.PolicyDenied && !d.PolicyDenied:
		say("its manifest says the policies deny it, but the policies before the merge pass the plan file (if they changed since it was planned, plan again)")
	case m.PolicyError != d.PolicyError:
		say("its manifest and the policies before the merge disagree on whether the policies could be evaluated")
	}
	return texts(CodeManifest, out)
}

// summaryDiff names the counts that differ: "destroy: manifest 0, plan file 1".
func summaryDiff(m, d plan.Summary) []string {
	var out []string
	for _, c := range []struct {
		name   string
		m, got int
	}{
		{"add", m.Add, d.Add}, {"change", m.Change, d.Change}, {"destroy", m.Destroy, d.Destroy}, {"replace", m.Replace, d.Replace},
		{"import", m.Import, d.Import}, {"move", m.Move, d.Move}, {"read", m.Read, d.Read}, {"forget", m.Forget, d.Forget},
		{"outputs", m.Outputs, d.Outputs}, {"actions", m.Actions, d.Actions}, {"drift", m.Drift, d.Drift},
	} {
		if c.m != c.got {
			out = append(out, fmt.Sprintf("%s: manifest %d, plan file %d", c.name, c.m, c.got))
		}
	}
	return out
}

// Replan refuses a plan the merge, planned again now (apply.verify: replan), does not
// plan the same as the reviewed one (saved): one reason naming every difference; none when
// they plan the same.
func Replan(saved, now *plan.Changes) []Reason {
	diff := ReplanDiff(saved, now)
	if len(diff) == 0 {
		return nil
	}
	return []Reason{{Code: CodeReplan, Text: fmt.Sprintf("a plan of the merge made now (apply.verify: %s) differs from the reviewed plan: %s; the reviewed plan is not what terraform would do: plan it again",
		config.VerifyReplan, clip(diff))}}
}

// ReplanDiff says how the changes now differ from the saved plan's, resource by resource:
// one only in either, another action, another known value of an attribute (values as the
// review shows them: a sensitive value is compared only as "(sensitive)").
func ReplanDiff(saved, now *plan.Changes) []string {
	key := func(r plan.Resource) string {
		if r.Deposed != "" {
			return r.Address + " (deposed " + r.Deposed + ")"
		}
		return r.Address
	}
	before := map[string]plan.Resource{}
	for _, r := range saved.Resources {
		before[key(r)] = r
	}
	var out []string
	seen := map[string]bool{}
	for _, r := range now.Resources {
		k := key(r)
		seen[k] = true
		old, ok := before[k]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("%s is to %s now, the reviewed plan leaves it", k, r.Action))
		case old.Action != r.Action:
			out = append(out, fmt.Sprintf("%s is to %s now, the reviewed plan would %s it", k, r.Action, old.Action))
		default:
			if d := attributeDiff(old.Attributes, r.Attributes); d != "" {
				out = append(out, k+": "+d)
			}
		}
	}
	for _, r := range saved.Resources {
		if !seen[key(r)] {
			out = append(out, fmt.Sprintf("the reviewed plan would %s %s, a plan now leaves it", r.Action, key(r)))
		}
	}
	slices.Sort(out)
	return out
}

// attributeDiff names the first attribute whose planned value differs.
func attributeDiff(saved, now []plan.Attribute) string {
	after := map[string]plan.Value{}
	for _, a := range saved {
		after[a.Path] = a.After
	}
	var paths []string
	for _, a := range now {
		old, ok := after[a.Path]
		if !ok || old != a.After {
			paths = append(paths, a.Path)
			if ok {
				return fmt.Sprintf("%s is %s now, %s in the reviewed plan", a.Path, a.After.Text, old.Text)
			}
		}
		delete(after, a.Path)
	}
	for p := range after {
		paths = append(paths, p)
	}
	if len(paths) > 0 {
		slices.Sort(paths)
		return "attributes " + strings.Join(paths, ", ") + " differ"
	}
	return ""
}

// StaleCheckout refuses, in `tfgate gate`, a plan whose input hash (plannedHash, of the
// files planned: file → hash) is not the checkout's (hash, of now): the checkout of a
// review holds what a merge now would, so the default branch changed the project since it
// was planned. None when the hashes are the same.
func StaleCheckout(plannedHash, hash string, planned, now map[string]string) []Reason {
	if hash == plannedHash {
		return nil
	}
	return []Reason{{Code: CodeStale, Text: fmt.Sprintf("the plan is stale: the default branch changed its inputs since it was planned (%s); plan it again (push, or re-run the plan workflow)",
		inputDiff(planned, now))}}
}

// Reconcile is a gate run's status once every project's result is known: v, unless it
// allows while a project is not allowed (refused names the refused ones), which blocks.
// Overrule already refuses such a run; this holds the required check to the results
// whatever the path to them, so that no later change can publish success over a refusal.
func Reconcile(v report.Verdict, allAllowed bool, refused []string) report.Verdict {
	if v.State != report.GateAllowed || allAllowed {
		return v
	}
	return report.Verdict{State: report.GateBlocked, Description: "refused: " + strings.Join(refused, ", ")}
}

// NothingChanged is the verdict on a pull request whose head changes no project: it
// allows, with nothing to apply.
func NothingChanged(head string) report.Verdict {
	return report.Verdict{State: report.GateAllowed, Description: "no project changes on " + short(head) + ": nothing to apply"}
}

// QueueGroup refuses every project of a merge queue group that cannot be judged: problem
// says why its pull requests could not be identified. It returns the reason and the run's
// status, blocked for it (its description before it is fitted to a status).
func QueueGroup(problem string) (Reason, report.Verdict) {
	why := Reason{Code: CodeQueueGroup, Text: "merge queue group: " + problem}
	return why, report.Verdict{State: report.GateBlocked, Description: why.Text}
}

// Refusal is a refused project or review-only item, by name, with its reasons' texts.
type Refusal struct {
	Name    string
	Reasons []string
}

// GroupRefused refuses a project of a merge queue group that landed as one while other
// parts of it are refused (each named with its first reason): what one unreviewed pull
// request brought in (a file another project reads, a module) may reach the others.
func GroupRefused(refused []Refusal) Reason {
	var names []string
	for _, r := range refused {
		name := r.Name
		if len(r.Reasons) > 0 {
			name += ": " + r.Reasons[0]
		}
		names = append(names, name)
	}
	return Reason{Code: CodeGroupRefused, Text: fmt.Sprintf("the merge queue group that landed it is refused (%s): a group lands as one, so none of it applies until every pull request in it passes; get the approvals and run apply again",
		strings.Join(names, "; "))}
}

// UncoveredReview is how refused review-only items (what the merge changed that nothing
// plans) refuse every project of the merge: a change to a file terraform may read from any
// project is part of each one's apply. It returns a reason per item, and the run's status
// when it must change: the run's current one stands unless it is missing or allows, and
// then the run is blocked (the description before it is fitted to a status); nil = it stands.
func UncoveredReview(refused []Refusal, current *report.Verdict) ([]Reason, *report.Verdict) {
	var out []Reason
	var first string
	for i, r := range refused {
		why := r.Name + ": " + strings.Join(r.Reasons, "; ")
		if i == 0 {
			first = why
		}
		out = append(out, Reason{Code: CodeUncoveredFiles, Text: "the merge also changed what no plan covers, and the review of it does not hold: " + why})
	}
	if current != nil && current.State != report.GateAllowed {
		return out, nil
	}
	return out, &report.Verdict{State: report.GateBlocked, Description: "refused: " + first}
}

// NamePull says, in each reason of v, whose pull request it is about: in a merge queue
// group each project is judged by the pull requests that changed it. It rewrites v's
// reasons in place.
func (v Verdict) NamePull(number int) {
	for p := range v.Projects {
		for r := range v.Projects[p].Reasons {
			v.Projects[p].Reasons[r].Text = fmt.Sprintf("pull request #%d: %s", number, v.Projects[p].Reasons[r].Text)
		}
	}
}

// SharedFiles is the review-only item of the changed files outside every project (named
// name) under the rules of base: they need the strictest approvals of any project, since
// terraform may read them from any of them. Only the approvals count for it.
func SharedFiles(name string, base *config.Config) Project {
	return Project{Name: name, Rules: base.SharedRules(), ReviewOnly: true}
}

// DroppedProject is the review-only item (named name) of a base project the change
// dropped, baseName in workspace at the base: it needs what the base's rules ask for it.
func DroppedProject(name, baseName, workspace string, base *config.Config) Project {
	return Project{Name: name, Rules: base.RulesFor(config.Project{Name: baseName, Workspace: workspace}), ReviewOnly: true}
}

// PlanEvent is what the plan guard knows of the event a plan runs for.
type PlanEvent struct {
	Name     string // the GitHub event
	Fork     bool   // the pull request's head repository is not the base repository
	PR       int
	HeadRepo string // owner/name of the head repository
}

// GuardPlan refuses what must not be planned at all: under pull_request_target the
// workflow runs with the base repository's secrets, and terraform runs providers and
// external data sources from the checked-out code, so a fork's code is never planned there
// unless the base commit's config allows it (allowForks:
// github.allow_pull_request_target_forks).
func GuardPlan(ev PlanEvent, allowForks bool) error {
	if ev.Name != "pull_request_target" || !ev.Fork || allowForks {
		return nil
	}
	return fmt.Errorf("refusing to plan pull request #%d from the fork %s under pull_request_target: the workflow's secrets would reach code from outside the repository (terraform runs providers and external data sources from it). Plan forks under pull_request (read-only token, no secrets), or set github.allow_pull_request_target_forks: true in the base branch's %s if you trust every fork",
		ev.PR, ev.HeadRepo, config.FileName)
}

// inputDiff names the input files (file → hash) that differ between planned and now:
// "main.tf (changed), x.tf (new)", at most five and how many more; "" when none do.
func inputDiff(planned, now map[string]string) string {
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
	slices.Sort(diffs)
	if len(diffs) > 5 {
		diffs = append(diffs[:5], fmt.Sprintf("and %d more", len(diffs)-5))
	}
	return strings.Join(diffs, ", ")
}

// texts are refusals of one code.
func texts(code string, texts []string) []Reason {
	var out []Reason
	for _, text := range texts {
		out = append(out, Reason{Code: code, Text: text})
	}
	return out
}

// clip names at most five items, and how many more.
func clip(items []string) string { return english.ClipList(items, 5) }

// Overrule is the status of a run whose projects are refused (or failed) beyond the
// gate's verdict v: a bundle that failed verification refuses even where the approvals
// are complete. It says nothing (overruled false) when v's own status stands: nothing was
// refused, or v already refuses as the run must (it blocks, or every refusal is pending
// on reviews). Else it is the first refused project with its first reason, and how many
// more were refused; pending when each of them is (pending: more reviews can lift it).
func Overrule(v Verdict, refused []Refusal, pending bool) (status report.Verdict, overruled bool) {
	if len(refused) == 0 || !v.Allowed && (v.blocks() || pending) {
		return report.Verdict{}, false
	}
	first := refused[0]
	desc := first.Name + ": "
	if len(first.Reasons) > 0 {
		desc += first.Reasons[0]
	}
	if len(refused) > 1 {
		desc += fmt.Sprintf(" (+%d more)", len(refused)-1)
	}
	state := report.GateBlocked
	if pending {
		state = report.GatePending
	}
	return report.Verdict{State: state, Description: desc}, true
}

// blocks reports whether a reason of v is one more reviews cannot lift.
func (v Verdict) blocks() bool {
	for _, p := range v.Projects {
		for _, r := range p.Reasons {
			if !r.Pending {
				return true
			}
		}
	}
	return false
}

// Judgement is the gate's answer for one project from everything judged of it.
type Judgement struct {
	Reasons []Reason // every reason it may not apply, each text once; none = it may
	// Pending: refused, and more reviews can lift every reason (none was found of its
	// bundle, plan file or merge).
	Pending bool
	// Approvers and PolicyOverriddenBy are its verdict's under the first rules.
	Approvers, PolicyOverriddenBy []string
}

// Judge is project name's judgement: the refusals found of its bundle, plan file and merge
// (problems, first), then the reasons of its verdict under each configuration the rules may
// come from (verdicts, the first the rules proper): the gate must hold under every one.
func Judge(name string, problems []Reason, verdicts []Verdict) Judgement {
	j := Judgement{Reasons: slices.Clone(problems)}
	pending := len(problems) == 0
	for k, v := range verdicts {
		for _, pv := range v.Projects {
			if pv.Name != name {
				continue
			}
			for _, r := range pv.Reasons {
				if !slices.ContainsFunc(j.Reasons, func(q Reason) bool { return q.Text == r.Text }) {
					j.Reasons = append(j.Reasons, r)
					pending = pending && r.Pending
				}
			}
			if k == 0 {
				j.Approvers, j.PolicyOverriddenBy = pv.Approvers, pv.PolicyOverriddenBy
			}
		}
	}
	j.Pending = pending && len(j.Reasons) > 0
	return j
}
