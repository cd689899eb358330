package pipeline

import (
	"strings"
	"testing"

	"github.com/tfgate/tfgate/internal/bundle"
	"github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/plan"
	"github.com/tfgate/tfgate/internal/policy"
)

func TestKindProblems(t *testing.T) {
	cases := []struct {
		name  string
		kind  bundle.PlanKind
		allow []string
		want  []string
	}{
		{"normal", bundle.PlanKind{Mode: bundle.ModeNormal}, nil, nil},
		{"destroy", bundle.PlanKind{Mode: bundle.ModeDestroy}, nil, []string{"its plan file is a destroy plan (-destroy), which tfgate plan never makes: refusing it (apply.allow_modes: [destroy] in .tfgate.yaml on the default branch allows it)"}},
		{"destroy allowed", bundle.PlanKind{Mode: bundle.ModeDestroy}, []string{config.AllowDestroy}, nil},
		{"refresh-only", bundle.PlanKind{Mode: bundle.ModeRefreshOnly}, []string{config.AllowDestroy}, []string{"a refresh-only plan (-refresh-only)"}},
		{"refresh-only allowed", bundle.PlanKind{Mode: bundle.ModeRefreshOnly}, []string{config.AllowRefreshOnly}, nil},
		{"targeted", bundle.PlanKind{Mode: bundle.ModeNormal, Targets: []string{"a.b", "c.d"}}, nil, []string{"a targeted plan (-target or -exclude a.b, c.d)", "[targeted]"}},
		{"excluded", bundle.PlanKind{Mode: bundle.ModeNormal, Excludes: []string{"a.b"}}, nil, []string{"-exclude a.b"}},
		{"targeted allowed", bundle.PlanKind{Mode: bundle.ModeNormal, Targets: []string{"a.b"}}, []string{config.AllowTargeted}, nil},
		{"targeted destroy, destroy allowed", bundle.PlanKind{Mode: bundle.ModeDestroy, Targets: []string{"a.b"}}, []string{config.AllowDestroy}, []string{"a targeted plan"}},
		{"unknown mode", bundle.PlanKind{Mode: "unknown mode 7"}, []string{config.AllowDestroy, config.AllowRefreshOnly, config.AllowTargeted}, []string{"a mode tfgate does not know (unknown mode 7)"}},
		{"errored", bundle.PlanKind{Mode: bundle.ModeNormal, Errored: true}, nil, []string{"stopped on an error"}},
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

func TestDisagreements(t *testing.T) {
	destroys := &derived{summary: plan.Summary{Destroy: 1, Change: 1}, destroyed: []string{"fakecloud_object.x"},
		policy: &bundle.PolicyVerdict{Evaluated: true, Denied: true, Denies: []string{"no_deletes: fakecloud_object.x is deleted"}}}
	honest := bundle.Manifest{Summary: destroys.summary, HasChanges: true, Policy: destroys.policy}
	if got := disagreements(honest, destroys); len(got) != 0 {
		t.Errorf("an honest manifest: got %q, want none", got)
	}
	forged := honest
	forged.Summary = plan.Summary{Change: 2}
	forged.Policy = &bundle.PolicyVerdict{Evaluated: true}
	got := strings.Join(disagreements(forged, destroys), "\n")
	for _, w := range []string{
		"its manifest says no destroys, but the plan file destroys fakecloud_object.x",
		"its manifest's summary is not the plan file's (change: manifest 2, plan file 1; destroy: manifest 0, plan file 1)",
		"its manifest says the policies pass, but the policies before the merge deny the plan file (no_deletes: fakecloud_object.x is deleted)",
	} {
		if !strings.Contains(got, w) {
			t.Errorf("got\n%s\nwant it to say %q", got, w)
		}
	}

	quiet := &derived{summary: plan.Summary{Add: 1}}
	claims := bundle.Manifest{Summary: plan.Summary{Add: 1, Replace: 1}, HasChanges: true, Policy: &bundle.PolicyVerdict{Evaluated: true, Denied: true, Denies: []string{"x: y"}}}
	got = strings.Join(disagreements(claims, quiet), "\n")
	for _, w := range []string{"its manifest says it destroys 0 and replaces 1, but the plan file destroys nothing",
		"its manifest says the policies deny it, but the policies before the merge pass the plan file"} {
		if !strings.Contains(got, w) {
			t.Errorf("got\n%s\nwant it to say %q", got, w)
		}
	}
	broken := &derived{summary: plan.Summary{Add: 1}, policy: &bundle.PolicyVerdict{Evaluated: true, Denied: true, Error: "undefined function"}}
	if got := disagreements(bundle.Manifest{Summary: plan.Summary{Add: 1}, HasChanges: true, Policy: &bundle.PolicyVerdict{Evaluated: true}}, broken); len(got) != 1 {
		t.Errorf("a policy error the manifest hides: got %q, want one disagreement", got)
	}
	if got := disagreements(bundle.Manifest{Summary: plan.Summary{Add: 1}}, quiet); len(got) != 1 || !strings.Contains(got[0], "has changes: manifest false, plan file true") {
		t.Errorf("has_changes: got %q", got)
	}
}

func TestMergeVerdicts(t *testing.T) {
	pass := policy.Result{Verdict: policy.VerdictPass}
	deny := policy.Result{Verdict: policy.VerdictDeny, Findings: []policy.Finding{{Level: policy.LevelDeny, Rule: "deny", Package: "data.no_deletes", Msg: "x is deleted"}}}
	if v := mergeVerdicts([]policy.Result{pass}); v == nil || v.Denied || !v.Evaluated {
		t.Errorf("one pass: got %+v", v)
	}
	v := mergeVerdicts([]policy.Result{pass, deny})
	if v == nil || !v.Denied || len(v.Denies) != 1 {
		t.Errorf("pass and deny: got %+v, want denied", v)
	}
	if v := mergeVerdicts(nil); v != nil {
		t.Errorf("no policies: got %+v, want nil", v)
	}
}

func TestReplanDiff(t *testing.T) {
	known := func(s string) plan.Value { return plan.Value{Text: s, Kind: plan.KindKnown} }
	saved := &plan.Changes{Resources: []plan.Resource{
		{Address: "a.x", Action: plan.ActionUpdate, Attributes: []plan.Attribute{{Path: "input", After: known(`"v2"`)}}},
		{Address: "a.y", Action: plan.ActionCreate},
		{Address: "a.z", Action: plan.ActionDelete},
	}}
	if got := replanDiff(saved, saved); len(got) != 0 {
		t.Errorf("the same plan: got %q", got)
	}
	now := &plan.Changes{Resources: []plan.Resource{
		{Address: "a.x", Action: plan.ActionUpdate, Attributes: []plan.Attribute{{Path: "input", After: known(`"evil"`)}}},
		{Address: "a.y", Action: plan.ActionReplace},
		{Address: "a.w", Action: plan.ActionCreate},
	}}
	got := strings.Join(replanDiff(saved, now), "\n")
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
	if got := replanDiff(saved, extra); len(got) != 1 || !strings.Contains(got[0], "attributes tags differ") {
		t.Errorf("an attribute more: got %q", got)
	}
}
