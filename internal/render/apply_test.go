package render

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/tfgate/tfgate/internal/english"
	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/plan"
	"github.com/tfgate/tfgate/internal/report"
)

const (
	testReviewed = "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678"
	testMerge    = "9f8e7d6c5b4a39281706f5e4d3c2b1a098765432"
)

var (
	bob   = report.Approval{Login: "bob", At: time.Date(2026, 11, 28, 9, 15, 0, 0, time.UTC), Commit: testReviewed}
	carol = report.Approval{Login: "carol", At: time.Date(2026, 11, 28, 10, 2, 0, 0, time.FixedZone("CET", 3600)), Commit: testReviewed}
)

func bundle(sha string, s plan.Summary) *report.Apply {
	return &report.Apply{PlanSHA256: sha, InputHash: "h1:" + strings.Repeat("ab", 16), TerraformVersion: "1.5.7", Summary: s}
}

// applyReport is the merge of UX.md's apply comment, with a failure and a project that
// never started after it: every outcome an apply has.
func applyReport() report.Run {
	return report.Run{
		Kind: report.KindApply, PR: 42, Reviewed: testReviewed, Commit: testMerge,
		Verdict: &report.Verdict{State: "failure", Description: "envs/prod/network denied by policy; needs approval from a policy owner"},
		Projects: []report.Project{
			{Name: "envs/dev/app", Dir: "envs/dev/app", Workspace: "default", Status: report.StatusApplied, Duration: 4200 * time.Millisecond,
				Gate:  &report.Gate{Allowed: true, Approvals: []report.Approval{bob, carol}},
				Apply: bundle("5e1f"+strings.Repeat("0", 56)+"90ab", plan.Summary{Add: 2, Change: 1})},
			{Name: "envs/prod/app", Dir: "envs/prod/app", Workspace: "default", Status: report.StatusApplied, Duration: 6800 * time.Millisecond,
				Gate:  &report.Gate{Allowed: true, Approvals: []report.Approval{bob, carol}},
				Apply: bundle("77c2"+strings.Repeat("1", 56)+"1d0e", plan.Summary{Change: 1, Replace: 1})},
			{Name: "envs/prod/network", Dir: "envs/prod/network", Workspace: "default", Status: report.StatusRefused,
				Gate: &report.Gate{Reasons: []report.Reason{{Code: "policy-denied", Text: "policy deny not overridden", Pending: true},
					{Code: "policy-denied", Text: "protected-resources: terraform_data.vpc: deleting a protected resource (a policy owner, @org/platform, must approve)"}},
					Approvals: []report.Approval{bob}},
				Apply: bundle("c0de"+strings.Repeat("2", 56)+"beef", plan.Summary{Destroy: 1})},
			{Name: "envs/prod/db", Dir: "envs/prod/db", Workspace: "default", Status: report.StatusFailed, Duration: 1500 * time.Millisecond,
				Error: "terraform apply in envs/prod/db: Error: Error acquiring the state lock\n\nLock Info:\n  ID:        5d2c\n  Operation: OperationTypeApply\n  Who:       runner@ci",
				Gate:  &report.Gate{Allowed: true, Approvals: []report.Approval{bob, carol}},
				Apply: bundle("d00d"+strings.Repeat("3", 56)+"f00d", plan.Summary{Add: 1})},
			{Name: "envs/prod/web", Dir: "envs/prod/web", Workspace: "default", Status: report.StatusNotStarted,
				Error: "depends on envs/prod/db, which did not apply"},
		},
	}
}

// dryRunReport is apply --dry-run of the same merge: verified, nothing applied.
func dryRunReport() report.Run {
	r := applyReport()
	r.DryRun = true
	r.Projects = r.Projects[:3]
	for i := range r.Projects[:2] {
		r.Projects[i].Status = report.StatusAllowed
		r.Projects[i].Duration = 300 * time.Millisecond
	}
	return r
}

func gatePendingReport() report.Run {
	return report.Run{
		Kind: report.KindGate, PR: 42, Reviewed: testReviewed, Policies: "policies/ at base commit 3f2c1aa (origin/main)",
		Verdict: &report.Verdict{State: "pending", Description: "needs 1 more approval on a1b2c3d (has: @bob)"},
		Projects: []report.Project{
			{Name: "envs/dev/app", Status: report.StatusAllowed, Gate: &report.Gate{Allowed: true, Approvals: []report.Approval{bob}},
				Apply: bundle("5e1f"+strings.Repeat("0", 56)+"90ab", plan.Summary{Add: 2, Change: 1})},
			{Name: "envs/prod/network", Status: report.StatusRefused,
				Gate: &report.Gate{Pending: true, Reasons: []report.Reason{{Code: "approvals", Text: "needs 2 approvals (destroy_min_approvals: the plan destroys terraform_data.vpc); has 1", Pending: true}},
					Approvals: []report.Approval{bob}},
				Apply: bundle("c0de"+strings.Repeat("2", 56)+"beef", plan.Summary{Destroy: 1})},
		},
	}
}

func gateAllowedReport() report.Run {
	return report.Run{
		Kind: report.KindGate, PR: 42, Reviewed: testReviewed,
		Verdict: &report.Verdict{State: "success", Description: "2 approvals on a1b2c3d; policies pass"},
		Projects: []report.Project{
			{Name: "envs/dev/app", Status: report.StatusAllowed, Gate: &report.Gate{Allowed: true, Approvals: []report.Approval{bob, carol}},
				Apply: bundle("5e1f"+strings.Repeat("0", 56)+"90ab", plan.Summary{Add: 2, Change: 1})},
			{Name: "envs/prod/app", Status: report.StatusAllowed, Gate: &report.Gate{Allowed: true, Approvals: []report.Approval{bob, carol}},
				Apply: bundle("77c2"+strings.Repeat("1", 56)+"1d0e", plan.Summary{Change: 1, Replace: 1})},
		},
	}
}

func TestApplyText(t *testing.T) {
	tests := []struct {
		name string
		r    report.Run
		opts TextOptions
	}{
		{"mixed", applyReport(), TextOptions{}},
		{"mixed-color", applyReport(), TextOptions{Color: true}},
		{"dry run", dryRunReport(), TextOptions{}},
		{"no projects", report.Run{Kind: report.KindApply, PR: 7, Reviewed: testReviewed, Commit: testMerge}, TextOptions{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Text(&buf, tt.r, tt.opts); err != nil {
				t.Fatal(err)
			}
			golden(t, buf.Bytes())
		})
	}
}

var applyMarkdownOptions = MarkdownOptions{
	Version: "v0.1.0",
	Commit:  testReviewed, // the caller's; an apply shows the merge commit instead
	RunURL:  "https://github.com/acme/infra/actions/runs/4343",
	Marker:  func(int, int) string { return "<!-- tfgate:apply pr=42 -->" },
}

func TestApplyComment(t *testing.T) {
	for name, r := range map[string]report.Run{"mixed": applyReport(), "dry run": dryRunReport()} {
		t.Run(name, func(t *testing.T) {
			c := ApplyComment(r, applyMarkdownOptions)
			checkParts(t, []string{c}, github.MaxCommentChars)
			golden(t, []byte(c))
		})
	}
}

// Markdown and the job summary of an apply run are its comment without the marker.
func TestApplyMarkdownIsTheComment(t *testing.T) {
	r := applyReport()
	var buf bytes.Buffer
	if err := Markdown(&buf, r, applyMarkdownOptions); err != nil {
		t.Fatal(err)
	}
	c := ApplyComment(r, applyMarkdownOptions)
	want := strings.SplitN(c, "\n", 2)[1]
	if buf.String() != want {
		t.Errorf("Markdown differs from the comment:\n%s\n----\n%s", buf.String(), want)
	}
	if s := StepSummary(r, applyMarkdownOptions); s != want {
		t.Errorf("StepSummary differs from the comment:\n%s", s)
	}
	if parts := CommentParts(r, applyMarkdownOptions); len(parts) != 1 || parts[0] != c {
		t.Errorf("CommentParts is not the apply comment: %d parts", len(parts))
	}
}

func TestApplyHeading(t *testing.T) {
	p := func(st report.Status) report.Project { return report.Project{Name: "p", Status: st} }
	run := func(dry bool, ps ...report.Project) report.Run {
		return report.Run{Kind: report.KindApply, Commit: testMerge, DryRun: dry, Projects: ps}
	}
	tests := []struct {
		name string
		r    report.Run
		want string
	}{
		{"all applied", run(false, p(report.StatusApplied), p(report.StatusApplied)),
			"## tfgate apply — merged as `9f8e7d6` · ✅ 2 applied"},
		{"mock-up", run(false, p(report.StatusApplied), p(report.StatusApplied), p(report.StatusRefused)),
			"## tfgate apply — merged as `9f8e7d6` · ✅ 2 applied · ⏭ 1 refused"},
		{"every outcome, in order", run(false, p(report.StatusNotStarted), p(report.StatusInterrupted), p(report.StatusFailed), p(report.StatusRefused), p(report.StatusApplied)),
			"## tfgate apply — merged as `9f8e7d6` · ✅ 1 applied · ⏭ 1 refused · ❌ 1 failed · 💥 1 interrupted · ⏭ 1 not started"},
		{"dry run", run(true, p(report.StatusAllowed), p(report.StatusRefused)),
			"## tfgate apply — dry run · merged as `9f8e7d6` · ✅ 1 would apply · ⏭ 1 refused"},
		{"no projects", run(false), "## tfgate apply — merged as `9f8e7d6` · no projects"},
		{"no commit", report.Run{Kind: report.KindApply, Projects: []report.Project{p(report.StatusFailed)}}, "## tfgate apply — ❌ 1 failed"},
		{"a status apply does not give, escaped", run(false, p("<b>@x")), "## tfgate apply — merged as `9f8e7d6` · ❔ 1 &lt;b&gt;\\@\u200dx"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := strings.SplitN(ApplyComment(tt.r, MarkdownOptions{}), "\n", 2)[0] // no marker asked: the heading first
			if got != tt.want {
				t.Errorf("heading\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

// hostile is text a pull request, a repository or a misbehaving gate could put anywhere.
const hostile = "x</code></details><script>alert(1)</script> | a | b |\n| forged | row |\n```\n@octocat #123 **bold** [x](javascript:alert(1)) <!-- c -->\x1b[2J\x1b[31m\u202e"

func hostileRun(kind report.Kind) report.Run {
	return report.Run{
		Kind: kind, PR: 42, Reviewed: hostile, Commit: hostile, DryRun: false,
		Verdict: &report.Verdict{State: "failure", Description: hostile},
		Notes:   []string{hostile},
		Projects: []report.Project{
			{Name: hostile, Workspace: hostile, Status: report.StatusApplied, Duration: time.Second,
				Gate:  &report.Gate{Allowed: true, Approvals: []report.Approval{{Login: hostile}, {Login: "octocat"}}, PolicyOverriddenBy: []string{hostile}},
				Apply: &report.Apply{PlanSHA256: hostile, InputHash: hostile, TerraformVersion: hostile, Summary: plan.Summary{Read: 1}}},
			{Name: "envs/" + hostile, Status: report.StatusRefused,
				Gate: &report.Gate{Reasons: []report.Reason{{Text: hostile}, {Text: "second " + hostile}}, Approvals: []report.Approval{{Login: "@" + hostile}}}},
			{Name: "failed", Status: report.StatusFailed, Error: hostile + "\n" + hostile},
			{Name: "odd", Status: report.Status(hostile), Error: hostile},
		},
	}
}

// Names, reasons, logins and errors reach the comment inert: no HTML, no mention, no
// forged table row, no broken fence, no terminal escape.
func TestApplyCommentHostile(t *testing.T) {
	for _, kind := range []report.Kind{report.KindApply, report.KindGate} {
		t.Run(string(kind), func(t *testing.T) {
			r := hostileRun(kind)
			var docs []string
			if kind == report.KindApply {
				c := ApplyComment(r, applyMarkdownOptions)
				checkParts(t, []string{c}, github.MaxCommentChars)
				docs = append(docs, strings.SplitN(c, "\n", 2)[1])
			} else {
				parts := CommentParts(r, applyMarkdownOptions)
				checkParts(t, parts, github.MaxCommentChars)
			}
			var md bytes.Buffer
			if err := Markdown(&md, r, applyMarkdownOptions); err != nil {
				t.Fatal(err)
			}
			docs = append(docs, md.String(), StepSummary(r, applyMarkdownOptions), GateLine(r))
			for _, d := range docs {
				checkMarkdown(t, d)
				if strings.ContainsAny(d, "\x1b\u202e") {
					t.Errorf("a control character reached the markdown:\n%s", d)
				}
				// Every table row is one of tfgate's: as many as there are projects.
				rows, fence := 0, ""
				for _, l := range strings.Split(d, "\n") {
					switch m := fenceOpen.FindString(l); {
					case fence == "" && m != "":
						fence = m
						continue
					case fence != "":
						if strings.TrimSpace(l) == fence {
							fence = ""
						}
						continue // code: inert
					}
					if strings.HasPrefix(l, "| <code>") {
						rows++
					} else if strings.HasPrefix(l, "|") && !strings.HasPrefix(l, "| project |") && !strings.HasPrefix(l, "|---") {
						t.Errorf("forged table row %q", l)
					}
				}
				if rows != 0 && rows != len(r.Projects) {
					t.Errorf("%d table rows for %d projects", rows, len(r.Projects))
				}
			}
			var text bytes.Buffer
			if err := Text(&text, r, TextOptions{Width: 100}); err != nil {
				t.Fatal(err)
			}
			for i, c := range text.String() {
				if (c < 0x20 && c != '\n') || c == 0x7f || (c >= 0x80 && c <= 0x9f) || (c >= 0x202a && c <= 0x202e) {
					t.Fatalf("control character %U at %d in:\n%s", c, i, text.String())
				}
			}
			if strings.Contains(text.String(), "\n| forged") || strings.Contains(text.String(), "\n```") {
				t.Errorf("a newline in the input started a line of its own:\n%s", text.String())
			}
			if d := StatusDescription(r); utf8.RuneCountInString(d) > github.MaxStatusDescription || strings.ContainsAny(d, "\n\x1b") {
				t.Errorf("status description %q", d)
			}
		})
	}
}

// Over the limit the comment keeps the verdict and as many rows as fit, and says how many
// projects it left out; it is never cut silently.
func TestApplyCommentLimit(t *testing.T) {
	t.Run("table", func(t *testing.T) {
		r := report.Run{Kind: report.KindApply, PR: 42, Reviewed: testReviewed, Commit: testMerge}
		for i := range 2000 {
			r.Projects = append(r.Projects, report.Project{Name: fmt.Sprintf("envs/team-%04d/%s", i, strings.Repeat("long-name-", 4)),
				Status: report.StatusApplied, Duration: time.Second, Gate: &report.Gate{Allowed: true, Approvals: []report.Approval{bob, carol}},
				Apply: bundle(strings.Repeat("5e1f", 16), plan.Summary{Add: 1})})
		}
		c := ApplyComment(r, applyMarkdownOptions)
		checkParts(t, []string{c}, github.MaxCommentChars)
		rows := strings.Count(c, "\n| <code>")
		want := "| … and " + english.Count(len(r.Projects)-rows) + " more projects (see the job summary / audit log) | | | |"
		if rows == 0 || rows == len(r.Projects) || !strings.Contains(c, want) {
			t.Fatalf("%d rows shown; no %q", rows, want)
		}
		if !strings.Contains(c, "The verified plans' hashes are not shown here") || !strings.Contains(c, "Reviewed commit `a1b2c3d`") {
			t.Errorf("the left-out hashes or the footer are missing")
		}
		if s := StepSummary(r, applyMarkdownOptions); !strings.Contains(s, "Verified plans (2000)") || strings.Contains(s, "more projects") {
			t.Errorf("the job summary should hold the whole run")
		}
	})
	t.Run("errors", func(t *testing.T) {
		r := report.Run{Kind: report.KindApply, Commit: testMerge}
		long := strings.Repeat("Error: something went wrong "+strings.Repeat("x", 800)+"\n", 300)
		for i := range 30 {
			r.Projects = append(r.Projects, report.Project{Name: fmt.Sprintf("p%02d", i), Status: report.StatusFailed, Error: long})
		}
		opts := applyMarkdownOptions
		opts.Limit = StepSummaryLimit
		whole := ApplyComment(r, opts)
		if strings.Count(whole, "### ❌") != 30 || !strings.Contains(whole, "… 270 more lines (see the CI run's log)") {
			t.Fatalf("a capped error should keep 30 lines and count the rest")
		}
		c := ApplyComment(r, applyMarkdownOptions)
		checkParts(t, []string{c}, github.MaxCommentChars)
		shown := strings.Count(c, "### ❌")
		if want := fmt.Sprintf("*… and why %d more projects were not applied: not shown here (see the job summary / audit log).*", 30-shown); shown == 30 || !strings.Contains(c, want) {
			t.Fatalf("%d sections shown; no %q", shown, want)
		}
		if strings.Count(c, "\n| <code>") != 30 {
			t.Errorf("every project keeps its row")
		}
	})
}
