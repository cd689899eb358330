package render

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/plan"
	"github.com/tfgate/tfgate/internal/plan/plangen"
	"github.com/tfgate/tfgate/internal/policy"
	"github.com/tfgate/tfgate/internal/report"
)

var testMarkdownOptions = MarkdownOptions{
	Version: "v0.1.0",
	Commit:  "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678",
	RunURL:  "https://github.com/acme/infra/actions/runs/4242/attempts/2",
	Marker:  func(part, total int) string { return fmt.Sprintf("<!-- tfgate:plan pr=42 part=%d -->", part) },
}

// mockupReport is the run of UX.md's comment mock-up: a pass, a warning with a
// replacement, and a denied destroy.
func mockupReport() report.Run {
	res := func(addr string, a plan.Action, attrs ...plan.Attribute) plan.Resource {
		return plan.Resource{Address: addr, Mode: "managed", Type: "terraform_data", Action: a, Attributes: attrs}
	}
	known := func(s string) plan.Value { return plan.Value{Text: s, Kind: plan.KindKnown} }
	dev := &plan.Changes{Summary: plan.Summary{Add: 2, Change: 1}, Resources: []plan.Resource{
		res("terraform_data.a", plan.ActionCreate, plan.Attribute{Path: "input", After: known(`"a"`)}),
		res("terraform_data.b", plan.ActionCreate, plan.Attribute{Path: "input", After: plan.Value{Text: plan.TextUnknown, Kind: plan.KindUnknown}}),
		res("terraform_data.c", plan.ActionUpdate, plan.Attribute{Path: "input.password", Before: plan.Value{Text: plan.TextSensitive, Kind: plan.KindSensitive}, After: plan.Value{Text: plan.TextSensitive, Kind: plan.KindSensitive}}),
	}}
	svc := res("module.svc.terraform_data.svc", plan.ActionReplace, plan.Attribute{Path: "input", Before: known(`"v1"`), After: known(`"v2"`), ForcesReplacement: true})
	svc.ReplacePaths = []string{"input"}
	prod := &plan.Changes{Summary: plan.Summary{Change: 1, Replace: 1}, Resources: []plan.Resource{
		res("terraform_data.web", plan.ActionUpdate, plan.Attribute{Path: "input.size", Before: known("3"), After: known("4")}), svc,
	}}
	vpc := res("terraform_data.vpc", plan.ActionDelete)
	vpc.Reason = "no longer in configuration"
	network := &plan.Changes{Summary: plan.Summary{Destroy: 1}, Resources: []plan.Resource{vpc}}
	pass := &policy.Result{Verdict: policy.VerdictPass, Findings: []policy.Finding{}}
	return report.Run{
		Base: "origin/main", MergeBase: "3f2c1aa", Policies: "policies/ at base commit 3f2c1aa (origin/main)",
		Projects: []report.Project{
			{Name: "envs/dev/app", Dir: "envs/dev/app", Status: report.StatusPlanned, Duration: 2100 * time.Millisecond, Changes: dev, Policy: pass},
			{Name: "envs/prod/app", Dir: "envs/prod/app", Status: report.StatusPlanned, Duration: 2400 * time.Millisecond, Changes: prod,
				Policy: &policy.Result{Verdict: policy.VerdictWarn, Findings: []policy.Finding{{Level: policy.LevelWarn, Rule: "warn",
					Package: "data.tfgate.rules.blast_radius", Msg: "2 resources change in production (limit 1)"}}}},
			{Name: "envs/prod/network", Dir: "envs/prod/network", Status: report.StatusPlanned, Duration: 3 * time.Second, Changes: network,
				Policy: &policy.Result{Verdict: policy.VerdictDeny, Findings: []policy.Finding{{Level: policy.LevelDeny, Rule: "deny",
					Package: "data.tfgate.rules.protected_resources", Address: "terraform_data.vpc", Msg: "deleting a protected resource"}}}},
		},
	}
}

// goldenParts joins comment parts with a visible separator for one golden file.
func goldenParts(t *testing.T, parts []string) {
	t.Helper()
	checkParts(t, parts, github.MaxCommentChars)
	golden(t, []byte(strings.Join(parts, "\n======== next comment ========\n")))
}

func TestCommentParts(t *testing.T) {
	destroy := mockupReport()
	for i := range destroy.Projects {
		destroy.Projects[i].Policy = nil
	}
	destroy.Policies = ""
	tests := []struct {
		name string
		r    report.Run
	}{
		{"small", report.Run{Base: "origin/main", MergeBase: "3f2c1aa", Projects: []report.Project{
			{Name: "envs/dev/app", Dir: "envs/dev/app", Status: report.StatusPlanned, Changes: loadChanges(t, "terraform-1.5.7")}}}},
		{"destroy", destroy},
		{"denied", mockupReport()},
		{"policies", testPolicyReport(t)},
		{"full", testReport(t)},
		{"no projects", report.Run{Base: "origin/main", MergeBase: "3f2c1aa"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parts := CommentParts(tt.r, testMarkdownOptions)
			if len(parts) != 1 {
				t.Fatalf("%d parts, want 1", len(parts))
			}
			goldenParts(t, parts)
		})
	}
}

// Markdown is the comment's one part without its marker.
func TestMarkdownIsTheComment(t *testing.T) {
	var buf bytes.Buffer
	if err := Markdown(&buf, mockupReport(), testMarkdownOptions); err != nil {
		t.Fatal(err)
	}
	part := CommentParts(mockupReport(), testMarkdownOptions)[0]
	if want := strings.SplitN(part, "\n", 2)[1]; buf.String() != want {
		t.Errorf("Markdown differs from the comment:\n%s\n----\n%s", buf.String(), want)
	}
}

func TestPlanMarkdown(t *testing.T) {
	for _, name := range fixtures {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := PlanMarkdown(&buf, loadChanges(t, name)); err != nil {
				t.Fatal(err)
			}
			checkMarkdown(t, buf.String())
			golden(t, buf.Bytes())
		})
	}
}

// bigReport has small projects around two large ones made by plangen; the second is too
// big for one comment by itself.
func bigReport(t testing.TB) report.Run {
	gen := func(n int) *plan.Changes {
		p, err := plan.Decode(plangen.Generate(n))
		if err != nil {
			t.Fatal(err)
		}
		return plan.Summarise(p, plan.Options{})
	}
	small := mockupReport().Projects
	return report.Run{Base: "origin/main", MergeBase: "3f2c1aa", Projects: []report.Project{
		small[0],
		{Name: "envs/prod/fleet", Dir: "envs/prod/fleet", Status: report.StatusPlanned, Changes: gen(150)},
		small[1],
		{Name: "envs/prod/everything", Dir: "envs/prod/everything", Status: report.StatusPlanned, Changes: gen(700)},
		small[2],
	}}
}

func TestCommentPartsSplit(t *testing.T) {
	r := bigReport(t)
	parts := CommentParts(r, testMarkdownOptions)
	if len(parts) < 3 {
		t.Fatalf("%d parts, want at least 3", len(parts))
	}
	goldenParts(t, parts)
	if !strings.Contains(parts[0], "| project | changes |") || !strings.Contains(parts[0], "[!CAUTION]") {
		t.Errorf("first part lacks the verdict or the table:\n%s", parts[0])
	}
	for i, p := range parts[1:] {
		if want := fmt.Sprintf("## tfgate plan (%d/%d)", i+2, len(parts)); !strings.Contains(p, want) {
			t.Errorf("part %d lacks %q", i+2, want)
		}
	}
	// Nothing is dropped: every line of the unsplit report is in some part.
	var whole bytes.Buffer
	if err := Markdown(&whole, r, testMarkdownOptions); err != nil {
		t.Fatal(err)
	}
	all := map[string]bool{}
	for _, p := range parts {
		for _, l := range strings.Split(p, "\n") {
			all[l] = true
		}
	}
	for _, l := range strings.Split(whole.String(), "\n") {
		if !all[l] {
			t.Fatalf("line missing from the parts: %q", l)
		}
	}
}

// A single line longer than a comment is shortened, visibly; nothing else is.
func TestCommentPartsLongLine(t *testing.T) {
	long := strings.Repeat("x", 5000)
	c := &plan.Changes{Summary: plan.Summary{Change: 1}, Resources: []plan.Resource{{Address: "terraform_data.x", Action: plan.ActionUpdate,
		Attributes: []plan.Attribute{{Path: "input", Before: plan.Value{Text: `"a"`, Kind: plan.KindKnown}, After: plan.Value{Text: `"` + long + `"`, Kind: plan.KindKnown}}}}}}
	r := report.Run{Projects: []report.Project{{Name: "p", Status: report.StatusPlanned, Changes: c}}}
	opts := testMarkdownOptions
	opts.Limit = 3000
	parts := CommentParts(r, opts)
	checkParts(t, parts, opts.Limit)
	joined := strings.Join(parts, "")
	if !strings.Contains(joined, "shortened by tfgate") {
		t.Errorf("no visible note of the shortening:\n%s", joined)
	}
}

func TestStepSummary(t *testing.T) {
	t.Run("whole", func(t *testing.T) {
		s := StepSummary(testPolicyReport(t), testMarkdownOptions)
		checkMarkdown(t, s)
		golden(t, []byte(s))
	})
	t.Run("shortened", func(t *testing.T) {
		opts := testMarkdownOptions
		opts.Limit = 40_000
		s := StepSummary(bigReport(t), opts)
		if len(s) > opts.Limit {
			t.Errorf("summary is %d bytes, over %d", len(s), opts.Limit)
		}
		if !strings.Contains(s, "This summary is shortened") || !strings.Contains(s, "`envs/prod/everything`") {
			t.Errorf("the shortening is not explained")
		}
		checkMarkdown(t, s)
		golden(t, []byte(s))
	})
	t.Run("limit", func(t *testing.T) {
		if s := StepSummary(bigReport(t), testMarkdownOptions); len(s) > StepSummaryLimit {
			t.Errorf("summary is %d bytes", len(s))
		}
	})
}

func TestStatusDescription(t *testing.T) {
	many := report.Run{}
	for i := range 40 {
		st := []report.Status{report.StatusPlanned, report.StatusFailed, report.StatusInterrupted, report.StatusNotStarted}[i%4]
		many.Projects = append(many.Projects, report.Project{Name: fmt.Sprint(i), Status: st,
			Changes: &plan.Changes{Summary: plan.Summary{Add: 123456789, Change: 987654321, Destroy: 1, Replace: 5, Drift: 3}},
			Policy:  &policy.Result{Verdict: policy.VerdictDeny}})
	}
	tests := []struct {
		name string
		r    report.Run
	}{
		{"mockup", mockupReport()},
		{"policies", testPolicyReport(t)},
		{"full", testReport(t)},
		{"no projects changed", report.Run{Base: "origin/main"}},
		{"no projects", report.Run{}},
		{"no changes", report.Run{Projects: []report.Project{{Name: "a", Status: report.StatusPlanned, Changes: loadChanges(t, "empty")}}}},
		{"all failed", report.Run{Projects: []report.Project{{Name: "a", Status: report.StatusFailed}}}},
		{"many", many},
	}
	var out strings.Builder
	for _, tt := range tests {
		d := StatusDescription(tt.r)
		if n := utf8.RuneCountInString(d); n > github.MaxStatusDescription {
			t.Errorf("%s: %d characters: %q", tt.name, n, d)
		}
		fmt.Fprintf(&out, "%-20s %s\n", tt.name, d)
	}
	golden(t, []byte(out.String()))
	if d := StatusDescription(mockupReport()); d != "3 projects: +2 ~2 -1 ±1, 1 denied" {
		t.Errorf("mockup: %q", d)
	}
}

// checkParts holds every part to GitHub's limit and the markdown rules.
func checkParts(t testing.TB, parts []string, limit int) {
	t.Helper()
	for i, p := range parts {
		if len(p) > limit || utf8.RuneCountInString(p) > limit {
			t.Errorf("part %d: %d bytes, %d characters, over %d", i+1, len(p), utf8.RuneCountInString(p), limit)
		}
		if !strings.HasPrefix(p, "<!-- tfgate:") {
			t.Errorf("part %d does not start with the marker: %.80q", i+1, p)
		}
		checkMarkdown(t, strings.SplitN(p, "\n", 2)[1])
	}
}

// A table too long for one comment continues in the next, headed again; every project
// keeps its row.
func TestCommentPartsManyProjects(t *testing.T) {
	r := report.Run{}
	for i := range 2500 {
		r.Projects = append(r.Projects, report.Project{Name: fmt.Sprintf("envs/team-%04d/app", i), Status: report.StatusPlanned,
			Changes: &plan.Changes{}})
	}
	parts := CommentParts(r, testMarkdownOptions)
	checkParts(t, parts, github.MaxCommentChars)
	if len(parts) < 2 || !strings.Contains(parts[1], "| project | changes |") {
		t.Fatalf("%d parts; the table is not continued with its head", len(parts))
	}
	joined := strings.Join(parts, "")
	for _, p := range r.Projects {
		if !strings.Contains(joined, "<code>"+mdText(p.Name)+"</code>") {
			t.Fatalf("%s has no row", p.Name)
		}
	}
}

// A publisher that writes its own marker gets parts without one, within its Limit.
func TestCommentPartsWithoutMarker(t *testing.T) {
	opts := testMarkdownOptions
	opts.Marker = func(int, int) string { return "" }
	opts.Limit = github.MaxCommentChars - 100
	parts := CommentParts(bigReport(t), opts)
	for i, p := range parts {
		if strings.HasPrefix(p, "<!--") || len(p) > opts.Limit {
			t.Errorf("part %d: %d bytes, starts %.30q", i+1, len(p), p)
		}
		checkMarkdown(t, p)
	}
}
