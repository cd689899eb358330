package gate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/english"
	"github.com/tfgate/tfgate/internal/report"
)

// The refusals beyond the reviews and bundle acceptance: what apply finds of the merge and
// the merge queue group, what `tfgate gate` finds of a stale plan, the review-only items,
// and the guard on planning a fork (the plan file's are in planfile.go, the judgement and
// the run's status in judge.go). Each is a pure function of facts internal/pipeline
// gathers; every word of every refusal is in this package (a test of pipeline holds it to
// that: TestRefusalsAreTheGates).

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
