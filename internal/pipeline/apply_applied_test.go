package pipeline

import (
	"encoding/json"
	"strings"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"

	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/render"
)

func TestStateHolds(t *testing.T) {
	plan := func(changes string) *tfjson.Plan {
		var p tfjson.Plan
		if err := json.Unmarshal([]byte(`{"format_version":"1.2","resource_changes":`+changes+`}`), &p); err != nil {
			t.Fatal(err)
		}
		return &p
	}
	state := func(resources string) *tfjson.State {
		var s tfjson.State
		if err := json.Unmarshal([]byte(`{"format_version":"1.0","values":{"root_module":{"resources":`+resources+`,
			"child_modules":[{"address":"module.m","resources":[{"address":"module.m.terraform_data.y","mode":"managed","type":"terraform_data","name":"y","values":{"input":"m"}}]}]}}}`), &s); err != nil {
			t.Fatal(err)
		}
		return &s
	}
	create := `[{"address":"terraform_data.x","mode":"managed","type":"terraform_data","name":"x",
		"change":{"actions":["create"],"before":null,"after":{"input":"v2","triggers_replace":null,"nested":{"a":1}},"after_unknown":{"id":true,"output":true,"nested":{"b":true}}}}]`
	for _, c := range []struct {
		name        string
		plan, state string
		holds       bool
	}{
		{"created with the planned values", create, `[{"address":"terraform_data.x","mode":"managed","values":{"id":"1","input":"v2","output":"v2","triggers_replace":null,"nested":{"a":2,"b":3}}}]`, true},
		{"another value since", create, `[{"address":"terraform_data.x","mode":"managed","values":{"id":"1","input":"v9","triggers_replace":null}}]`, false},
		{"not there", create, `[]`, false},
		{"an attribute missing", create, `[{"address":"terraform_data.x","mode":"managed","values":{"id":"1"}}]`, false},
		{"deleted and gone", `[{"address":"terraform_data.z","mode":"managed","change":{"actions":["delete"],"before":{},"after":null}}]`, `[]`, true},
		{"deleted but there", `[{"address":"terraform_data.z","mode":"managed","change":{"actions":["delete"],"before":{},"after":null}}]`,
			`[{"address":"terraform_data.z","mode":"managed","values":{}}]`, false},
		{"in a module", `[{"address":"module.m.terraform_data.y","mode":"managed","change":{"actions":["update"],"before":{"input":"l"},"after":{"input":"m"},"after_unknown":{}}}]`, `[]`, true},
		{"a deposed object is not checked", `[{"address":"terraform_data.x","mode":"managed","deposed":"abcd","change":{"actions":["delete"],"before":{},"after":null}}]`, `[]`, false},
		{"no-op and reads pass", `[{"address":"terraform_data.n","mode":"managed","change":{"actions":["no-op"],"before":{},"after":{}}},{"address":"data.x.y","mode":"data","change":{"actions":["read"],"before":null,"after":{}}}]`, `[]`, true},
	} {
		if got := stateHolds(plan(c.plan), state(c.state)); got != c.holds {
			t.Errorf("%s: stateHolds = %v, want %v", c.name, got, c.holds)
		}
	}
}

func TestTrackingState(t *testing.T) {
	tr := trackingBody(renderTracking("app", "--> <!-- x", 7))
	got := parseTrackingState(tr)
	if len(got) != 1 || got[0].PR != 7 || got[0].Reason != "--> <!-- x" {
		t.Fatalf("the entries do not survive the body: %+v\n%s", got, tr)
	}
	if n := countSubstr(tr, "-->"); n != 2 { // the marker's and the state line's: none from the reason
		t.Errorf("%d comment ends in the body, want 2:\n%s", n, tr)
	}
	if parseTrackingState("no state here") != nil {
		t.Error("a body without the state line has no entries")
	}
}

func renderTracking(project, reason string, pr int) render.Tracking {
	return render.Tracking{Project: project, Dir: project, Recover: project + "/" + RecoverFile,
		Entries: []render.TrackingEntry{{Merge: "0123456789abcdef0123456789abcdef01234567", PR: pr, Status: "refused", Reason: reason}}}
}

func countSubstr(s, sub string) int { return strings.Count(s, sub) }

func TestFindTracking(t *testing.T) {
	id := github.Identity{Login: "github-actions[bot]"}
	bot, bob := github.User{Login: "github-actions[bot]"}, github.User{Login: "bob"}
	marker := github.ProjectMarker{Kind: TrackingKind, Project: "app"}.String() + "\n"
	issues := []github.Issue{
		{Number: 1, State: "closed", Author: bot, Body: marker},
		{Number: 2, State: "open", Author: bob, Body: marker}, // anyone can type the marker
		{Number: 3, State: "open", Author: bot, Body: github.ProjectMarker{Kind: "drift", Project: "app"}.String()},
		{Number: 4, State: "closed", Author: bot, Body: marker},
	}
	if is, ok := findTracking(issues, "app", id); !ok || is.Number != 4 {
		t.Errorf("findTracking = #%d %v, want the newest of tfgate's (#4)", is.Number, ok)
	}
	issues = append(issues, github.Issue{Number: 5, State: "open", Author: bot, Body: marker})
	if is, _ := findTracking(issues, "app", id); is.Number != 5 {
		t.Errorf("findTracking = #%d, want the open one (#5)", is.Number)
	}
	if _, ok := findTracking(issues, "other", id); ok {
		t.Error("another project's issue was found")
	}
}
