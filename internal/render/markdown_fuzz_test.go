package render

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tfgate/tfgate/internal/plan"
	"github.com/tfgate/tfgate/internal/policy"
	"github.com/tfgate/tfgate/internal/report"
)

// checkMarkdown reads markdown the way GitHub's renderer would where it matters for
// safety, and fails on: a code fence left open; <details> unbalanced (or closed before it
// opened); outside code, any HTML tag but tfgate's own; an @mention or #123 reference
// GitHub would link.
func checkMarkdown(t testing.TB, md string) {
	t.Helper()
	if err := markdownProblem(md); err != "" {
		t.Fatalf("%s in:\n%s", err, md)
	}
}

var (
	fenceOpen   = regexp.MustCompile("^ {0,3}(`{3,}|~{3,})")
	ownTag      = regexp.MustCompile(`^(<details><summary>[A-Za-z0-9 (),]*</summary>|</details>|<code>|</code>)`)
	mention     = regexp.MustCompile(`@[A-Za-z0-9]`)
	issueRef    = regexp.MustCompile(`#[0-9]`)
	markerStart = "<!-- tfgate:"
)

func markdownProblem(md string) string {
	fence := ""
	depth := 0
	for i, l := range strings.Split(md, "\n") {
		if fence != "" {
			if t := strings.TrimLeft(l, " "); len(l)-len(t) <= 3 && strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]+" ") == "" {
				fence = ""
			}
			continue
		}
		if m := fenceOpen.FindStringSubmatch(l); m != nil {
			fence = m[1]
			continue
		}
		if i == 0 && strings.HasPrefix(l, markerStart) {
			continue
		}
		prose := stripCodeSpans(l)
		for j := 0; j < len(prose); j++ {
			if prose[j] != '<' {
				continue
			}
			m := ownTag.FindString(prose[j:])
			if m == "" {
				return "raw HTML outside code: " + prose[j:min(len(prose), j+40)]
			}
			j += len(m) - 1
			switch {
			case strings.HasPrefix(m, "<details>"):
				depth++
			case m == "</details>":
				depth--
				if depth < 0 {
					return "</details> closes what tfgate did not open"
				}
			}
		}
		if m := mention.FindString(prose); m != "" {
			return "an @mention outside code: " + m
		}
		if m := issueRef.FindString(prose); m != "" {
			return "an issue reference outside code: " + m
		}
	}
	if fence != "" {
		return "code fence " + fence + " left open"
	}
	if depth != 0 {
		return "unbalanced <details>"
	}
	return ""
}

// stripCodeSpans removes inline code spans from one line, as CommonMark finds them: a
// backtick run not escaped by a backslash, up to the next run of the same length.
func stripCodeSpans(l string) string {
	var b strings.Builder
	for i := 0; i < len(l); {
		switch {
		case l[i] == '\\' && i+1 < len(l):
			b.WriteString(l[i : i+2])
			i += 2
		case l[i] == '`':
			n := 0
			for i+n < len(l) && l[i+n] == '`' {
				n++
			}
			end := closingRun(l[i+n:], n)
			if end < 0 {
				b.WriteString(l[i : i+n])
				i += n
				continue
			}
			i += n + end + n
		default:
			b.WriteByte(l[i])
			i++
		}
	}
	return b.String()
}

// closingRun is the offset in s of the first run of exactly n backticks, or -1.
func closingRun(s string, n int) int {
	for i := 0; i < len(s); {
		if s[i] != '`' {
			i++
			continue
		}
		k := 0
		for i+k < len(s) && s[i+k] == '`' {
			k++
		}
		if k == n {
			return i
		}
		i += k
	}
	return -1
}

// fuzzReport puts the fuzzed strings wherever a pull request or a plan can put text.
func fuzzReport(name, value, msg string) report.Run {
	v := plan.Value{Text: value, Kind: plan.KindKnown}
	c := &plan.Changes{
		Summary:  plan.Summary{Add: 1, Change: 1, Destroy: 1, Replace: 1, Drift: 1},
		Warnings: []string{msg},
		Resources: []plan.Resource{
			{Address: name, Action: plan.ActionCreate, Attributes: []plan.Attribute{{Path: name, After: v}, {Path: "x", After: v}}},
			{Address: "a." + name, Action: plan.ActionUpdate, Attributes: []plan.Attribute{{Path: value, Before: v, After: v}}},
			{Address: name, Action: plan.ActionDelete, Reason: msg, Deposed: value},
			{Address: name, Action: plan.ActionReplace, ReplacePaths: []string{name}, PreviousAddress: value, Importing: true, ImportID: value,
				Attributes: []plan.Attribute{{Path: "p", Before: v, After: v, ForcesReplacement: true}}},
		},
		Outputs: []plan.Output{{Name: name, Action: plan.ActionUpdate, Before: v, After: v}},
		Drift:   []plan.Resource{{Address: name, Action: plan.ActionUpdate, Attributes: []plan.Attribute{{Path: name, Before: v, After: v}}}},
	}
	pol := &policy.Result{Verdict: policy.VerdictDeny, Findings: []policy.Finding{
		{Level: policy.LevelDeny, Rule: name, Package: "data." + name, Address: name, Msg: msg},
		{Level: policy.LevelWarn, Rule: "warn", Package: "data.main", Msg: msg},
	}, Excepted: []string{name}}
	return report.Run{
		Base: name, MergeBase: value, Policies: msg, PolicyNotes: []string{msg}, Notes: []string{msg, value},
		Projects: []report.Project{
			{Name: name, Dir: name, Workspace: value, Status: report.StatusPlanned, Changes: c, Policy: pol,
				Gate: &report.Gate{Reasons: []string{msg}, Approvals: []report.Approval{{Login: name}}}},
			{Name: value, Dir: value, Status: report.StatusFailed, Error: msg},
			{Name: "ok", Status: report.StatusPlanned, Changes: c},
		},
	}
}

// fuzzReview is a gate or apply run with the fuzzed strings wherever the pipeline, the
// gate or GitHub (logins, shas) can put text, every outcome among its projects.
func fuzzReview(kind report.Kind, name, value, msg string) report.Run {
	return report.Run{
		Kind: kind, PR: 42, Reviewed: value, Commit: name, DryRun: len(msg)%2 == 1,
		Verdict: &report.Verdict{State: []string{"success", "pending", "failure", name}[len(value)%4], Description: msg},
		Notes:   []string{msg},
		Projects: []report.Project{
			{Name: name, Workspace: value, Status: report.StatusApplied,
				Gate:  &report.Gate{Allowed: true, Approvals: []report.Approval{{Login: name}, {Login: value}}, PolicyOverriddenBy: []string{msg}},
				Apply: &report.Apply{PlanSHA256: value, InputHash: msg, TerraformVersion: name, Summary: plan.Summary{Add: 1, Read: 1}}},
			{Name: value, Status: report.StatusAllowed, Gate: &report.Gate{Allowed: true}},
			{Name: msg, Status: report.StatusRefused, Gate: &report.Gate{Pending: len(name)%2 == 0, Reasons: []string{msg, name}, Approvals: []report.Approval{{Login: msg}}},
				Apply: &report.Apply{PlanSHA256: "5e1f" + value}},
			{Name: "f", Status: report.StatusFailed, Error: msg + "\n" + value},
			{Name: "i", Status: report.StatusInterrupted, Error: value},
			{Name: "n", Status: report.StatusNotStarted},
			{Name: name, Status: report.Status(value), Error: name},
		},
	}
}

func FuzzMarkdown(f *testing.F) {
	seeds := [][3]string{
		{"terraform_data.vpc", `"10.0.0.0/8"`, "deleting a protected resource"},
		{"</details><script>alert(1)</script>", "```\n</details>\n```", "@octocat please look at #123"},
		{"`a``b```", "~~~", "<!-- hidden -->[x](javascript:alert(1))"},
		{"module.x[\"@admin\"]", "\x1b[31mred\u202e", "line1\n\n    indented\n> quote\n| a | b |\n---"},
		{"<details><summary>x</summary>", "\\", "![img](https://evil/x.png) <img src=x onerror=alert(1)>"},
		{"a|b", "$x$ :smile: **bold** _it_ ~~s~~", "org/repo#12 GH-1 @org/team"},
	}
	for _, s := range seeds {
		f.Add(s[0], s[1], s[2], uint16(0))
		f.Add(s[0], s[1], s[2], uint16(1500))
	}
	f.Fuzz(func(t *testing.T, name, value, msg string, limit uint16) {
		r := fuzzReport(name, value, msg)
		opts := testMarkdownOptions
		opts.Limit = 2500 + int(limit)*4 // small parts, so that splitting is fuzzed too
		parts := CommentParts(r, opts)
		checkParts(t, parts, opts.Limit)
		for i, p := range parts {
			if i > 0 && !strings.Contains(p, "## tfgate plan (") {
				t.Fatalf("part %d has no continuation heading", i+1)
			}
		}
		joined := strings.Join(parts, "")
		if !strings.Contains(joined, "shortened by tfgate") && utf8.ValidString(value) {
			if want := codeLine(value); !strings.Contains(joined, want) {
				t.Fatalf("value %q missing from the comment", want)
			}
		}
		var whole strings.Builder
		if err := Markdown(&whole, r, opts); err != nil {
			t.Fatal(err)
		}
		checkMarkdown(t, whole.String())
		checkMarkdown(t, StepSummary(r, opts))
		if d := StatusDescription(r); utf8.RuneCountInString(d) > StatusLimit {
			t.Fatalf("status description too long: %q", d)
		}
		for _, a := range Annotations(r) {
			if c := WorkflowCommand(a); strings.ContainsAny(c, "\r\n") {
				t.Fatalf("workflow command spans lines: %q", c)
			}
		}
		// Gate and apply runs: the apply comment (one part, 4 KiB at least), the gate's
		// comment parts, the gate line, the job summaries and the status descriptions.
		for _, kind := range []report.Kind{report.KindApply, report.KindGate} {
			rr := fuzzReview(kind, name, value, msg)
			ropts := opts
			ropts.Limit = max(opts.Limit, 4096)
			checkParts(t, []string{ApplyComment(rr, ropts)}, ropts.Limit)
			checkParts(t, CommentParts(rr, ropts), ropts.Limit)
			checkMarkdown(t, GateLine(rr))
			if l := GateLine(rr); strings.Contains(l, "\n") {
				t.Fatalf("gate line spans lines: %q", l)
			}
			checkMarkdown(t, StepSummary(rr, ropts))
			var whole strings.Builder
			if err := Markdown(&whole, rr, ropts); err != nil {
				t.Fatal(err)
			}
			checkMarkdown(t, whole.String())
			if d := StatusDescription(rr); utf8.RuneCountInString(d) > StatusLimit || strings.ContainsAny(d, "\r\n") {
				t.Fatalf("status description %q", d)
			}
		}
	})
}
