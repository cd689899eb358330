package gate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/plan"
)

// What apply finds of a bundle's plan file before terraform reads it (its kind, its
// configuration snapshot), what its manifest claims against what the file does, and what
// a re-plan of the merge finds (apply.verify: replan).

// Plan modes as a plan file records them (bundle.ReadTFPlan).
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
	// Backend is the state backend and workspace the plan file applies to; MergeBackend the
	// backend terraform init set up for the merge, with the project's workspace.
	Backend, MergeBackend Backend
}

// AcceptPlanFile is every reason the plan file f describes is not what a review shows: not
// a plan file terraform wrote, a kind of plan tfgate plan never makes (unless the base's
// apply.allow_modes, rules, allows it), a configuration that is not the merged code, a
// state that is not the merge's (backend.go).
func AcceptPlanFile(f PlanFileFacts, rules config.Apply) []Reason {
	switch {
	case f.NotZip != "":
		return []Reason{{Code: CodeNotPlanFile, Text: fmt.Sprintf("its plan file is not a terraform plan file (%s): plan again", f.NotZip)}}
	case f.NoKind != "":
		return []Reason{{Code: CodeNotPlanFile, Text: fmt.Sprintf("its plan file is not one terraform wrote (%s): plan again", f.NoKind)}}
	}
	out := append(texts(CodePlanMode, kindProblems(f.Kind, rules)), texts(CodeSnapshot, f.Snapshot)...)
	return append(out, texts(CodeBackend, backendProblems(f.Backend, f.MergeBackend))...)
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
	Digest     string   // plan.Digest of the changes; "" when the manifest recorded none
	// The policy verdict: denied (with the deny messages), or not evaluated (an error).
	PolicyDenied bool
	PolicyDenies []string
	PolicyError  bool
	Approval     *Approval // the approval policies' decision; nil: none
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
	if m.Digest != "" && m.Digest != d.Digest { // none recorded: approvals of earlier plans do not count (bound.go)
		say("its manifest's changes digest is not the plan file's: the plan reviewers approved may be another")
	}
	switch {
	case !m.PolicyDenied && d.PolicyDenied:
		say("its manifest says the policies pass, but the policies before the merge deny the plan file (%s)", clip(d.PolicyDenies))
	case m.PolicyDenied && !d.PolicyDenied:
		say("its manifest says the policies deny it, but the policies before the merge pass the plan file (if they changed since it was planned, plan again)")
	case m.PolicyError != d.PolicyError:
		say("its manifest and the policies before the merge disagree on whether the policies could be evaluated")
	}
	if !m.PolicyError && !d.PolicyError && !m.Approval.Equal(d.Approval) {
		say("its manifest's approval policy decision (%s) is not what the policies before the merge decide for the plan file (%s)",
			m.Approval.describe(), d.Approval.describe())
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
