package render

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/report"
)

func TestGateText(t *testing.T) {
	tests := []struct {
		name string
		r    report.Run
	}{
		{"pending", gatePendingReport()},
		{"allowed", gateAllowedReport()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Text(&buf, tt.r, TextOptions{}); err != nil {
				t.Fatal(err)
			}
			golden(t, buf.Bytes())
		})
	}
}

func TestGateLine(t *testing.T) {
	v := func(state report.GateState, desc string) *report.Verdict {
		return &report.Verdict{State: state, Description: desc}
	}
	tests := []struct {
		name string
		r    report.Run
		want string
	}{
		{"pending", report.Run{Kind: report.KindGate, Reviewed: testReviewed, Verdict: v("pending", "needs 1 more approval on a1b2c3d (has: @bob)")},
			"**Gate:** ⏳ needs 1 more approval on `a1b2c3d` \\(has\\: \\@\u200dbob\\)"},
		{"success", report.Run{Kind: report.KindGate, Reviewed: testReviewed, Verdict: v("success", "2 approvals on a1b2c3d; policies pass")},
			"**Gate:** ✅ allowed — 2 approvals on `a1b2c3d`; policies pass"},
		{"failure", report.Run{Kind: report.KindGate, Reviewed: testReviewed, Verdict: v("failure", "envs/prod/network denied by policy; needs approval from a policy owner")},
			"**Gate:** ❌ envs/prod/network denied by policy; needs approval from a policy owner"},
		{"full sha, and a longer hex left alone", report.Run{Kind: report.KindGate, Reviewed: testReviewed, Verdict: v("success", "approved on "+testReviewed+", not a1b2c3d99")},
			"**Gate:** ✅ allowed — approved on `" + testReviewed + "`, not a1b2c3d99"},
		{"unknown state", report.Run{Kind: report.KindGate, Verdict: v("weird", "x")}, "**Gate:** ❔ weird — x"},
		{"no description", report.Run{Kind: report.KindGate, Verdict: v("failure", ""), Projects: []report.Project{{Name: "p", Status: report.StatusRefused, Gate: &report.Gate{Reasons: []report.Reason{{Text: "no approvals"}}}}}},
			"**Gate:** ❌ p refused\\: no approvals"},
		{"no verdict: derived, allowed", report.Run{Kind: report.KindGate, Projects: []report.Project{{Name: "p", Status: report.StatusAllowed}, {Name: "q", Status: report.StatusAllowed}}},
			"**Gate:** ✅ allowed — 2 projects allowed"},
		{"no verdict: derived, pending", report.Run{Kind: report.KindGate, Projects: []report.Project{{Name: "p", Status: report.StatusRefused, Gate: &report.Gate{Pending: true}}, {Name: "q", Status: report.StatusRefused, Gate: &report.Gate{Pending: true}}}},
			"**Gate:** ⏳ 2 projects pending"},
		{"hostile description", report.Run{Kind: report.KindGate, Reviewed: "`x`", Verdict: v("failure", "<img src=x> @octocat #12 [x](javascript:alert(1))\n\x1b[31m```")},
			"**Gate:** ❌ &lt;img src\\=x&gt; \\@\u200doctocat \\#\u200d12 \\[x\\]\\(javascript\\:alert\\(1\\)\\) \\\\x1b\\[31m\\`\\`\\`"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := GateLine(tt.r)
			if got != tt.want {
				t.Errorf("\n got %q\nwant %q", got, tt.want)
			}
			checkMarkdown(t, got)
		})
	}
}

func TestGateMarkdown(t *testing.T) {
	for name, r := range map[string]report.Run{"pending": gatePendingReport(), "allowed": gateAllowedReport()} {
		t.Run(name, func(t *testing.T) {
			s := StepSummary(r, applyMarkdownOptions)
			checkMarkdown(t, s)
			golden(t, []byte(s))
		})
	}
}

func TestReviewStatusDescription(t *testing.T) {
	long := strings.Repeat("very-long-project-name/", 10)
	longRun := func(kind report.Kind) report.Run {
		r := report.Run{Kind: kind, Verdict: &report.Verdict{State: "failure", Description: strings.Repeat("é", 100) + strings.Repeat("日本", 40)}}
		for i := range 3 {
			r.Projects = append(r.Projects, report.Project{Name: fmt.Sprint(long, i), Status: report.StatusRefused,
				Gate: &report.Gate{Reasons: []report.Reason{{Text: strings.Repeat("a reason that goes on ", 10)}}}})
		}
		r.Projects = append(r.Projects, report.Project{Name: long, Status: report.StatusApplied})
		return r
	}
	p := func(st report.Status) report.Project { return report.Project{Name: "p", Status: st} }
	tests := []struct {
		name string
		r    report.Run
	}{
		{"mixed", applyReport()},
		{"dry run", dryRunReport()},
		{"all applied", report.Run{Kind: report.KindApply, Projects: []report.Project{p(report.StatusApplied), p(report.StatusApplied), p(report.StatusApplied)}}},
		{"one applied", report.Run{Kind: report.KindApply, Projects: []report.Project{p(report.StatusApplied)}}},
		{"dry run all", report.Run{Kind: report.KindApply, DryRun: true, Projects: []report.Project{p(report.StatusAllowed), p(report.StatusAllowed)}}},
		{"no projects", report.Run{Kind: report.KindApply}},
		{"failed no reason", report.Run{Kind: report.KindApply, Projects: []report.Project{p(report.StatusFailed)}}},
		{"long apply", longRun(report.KindApply)},
		{"gate pending", gatePendingReport()},
		{"gate allowed", gateAllowedReport()},
		{"gate long", longRun(report.KindGate)},
		{"gate no verdict", report.Run{Kind: report.KindGate, Projects: []report.Project{{Name: long + "\x1b[31m", Status: report.StatusRefused, Gate: &report.Gate{Reasons: []report.Reason{{Text: "x\ny"}}}}}}},
	}
	var out strings.Builder
	for _, tt := range tests {
		d := StatusDescription(tt.r)
		if n := utf8.RuneCountInString(d); n > github.MaxStatusDescription || !utf8.ValidString(d) || strings.ContainsAny(d, "\n\x1b") {
			t.Errorf("%s: %d characters: %q", tt.name, n, d)
		}
		fmt.Fprintf(&out, "%-18s %s\n", tt.name, d)
	}
	golden(t, []byte(out.String()))
	if d := StatusDescription(applyReport()); d != "2 applied, 1 refused, 1 failed, 1 not started (envs/prod/network: policy deny not overridden)" {
		t.Errorf("mixed: %q", d)
	}
	if d := StatusDescription(tests[2].r); d != "applied 3 projects" {
		t.Errorf("all applied: %q", d)
	}
}
