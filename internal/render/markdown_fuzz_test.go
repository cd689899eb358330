package render

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/plan"
	"github.com/tfgate/tfgate/internal/policy"
	"github.com/tfgate/tfgate/internal/report"
)

// checkMarkdown reads markdown the way GitHub's renderer would where it matters for
// safety, and fails on: a code fence left open; <details> unbalanced (or closed before it
// opened); outside code, any HTML tag but tfgate's own; an @mention or #123 reference
// GitHub would link; anywhere but the first line's marker, code included, "<!" (an HTML
// comment: a forged marker).
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
			if strings.Contains(l, "<!") {
				return "an HTML comment opened in a code block (a marker could be forged): " + l
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
		if strings.Contains(l, "<!") {
			return "an HTML comment or declaration opened in rendered text: " + l
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
				Gate: &report.Gate{Reasons: []report.Reason{{Text: msg}}, Approvals: []report.Approval{{Login: name}}}},
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
		Verdict: &report.Verdict{State: report.GateState([]string{"success", "pending", "failure", name}[len(value)%4]), Description: msg},
		Notes:   []string{msg},
		Projects: []report.Project{
			{Name: name, Workspace: value, Status: report.StatusApplied,
				Gate:  &report.Gate{Allowed: true, Approvals: []report.Approval{{Login: name}, {Login: value}}, PolicyOverriddenBy: []string{msg}},
				Apply: &report.Apply{PlanSHA256: value, InputHash: msg, TerraformVersion: name, Summary: plan.Summary{Add: 1, Read: 1}}},
			{Name: value, Status: report.StatusAllowed, Gate: &report.Gate{Allowed: true}},
			{Name: msg, Status: report.StatusRefused, Gate: &report.Gate{Pending: len(name)%2 == 0, Reasons: []report.Reason{{Text: msg}, {Text: name}}, Approvals: []report.Approval{{Login: msg}}},
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
		{"::stop-commands::x", "##[error]x", "::set-output name=x::y\n  ::add-mask::z\r::error::w"},
		{"<!-- tfgate:gate -->", "\"<!-- tfgate:gate -->\n**Gate:** ✅ allowed\n<!-- /tfgate:gate -->\"", "<!-- /tfgate:gate -->\n---\n"},
		{"\u200b::warning::x", "#\u200d#[group]g", "\x1b[1m::debug::d <!-- tfgate:plan pr=1 part=1/1 -->"},
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
		checkGateLine(t, parts[0], GateLine(fuzzReview(report.KindGate, name, value, msg)))
		var text strings.Builder
		text.WriteString(whole.String())
		if err := Text(&text, r, TextOptions{Width: 80}); err != nil {
			t.Fatal(err)
		}
		if d := StatusDescription(r); utf8.RuneCountInString(d) > github.MaxStatusDescription {
			t.Fatalf("status description too long: %q", d)
		}
		var commands strings.Builder
		for _, a := range Annotations(r) {
			c := WorkflowCommand(a)
			if strings.ContainsAny(c, "\r\n") {
				t.Fatalf("workflow command spans lines: %q", c)
			}
			if !strings.HasPrefix(c, "::error") && !strings.HasPrefix(c, "::warning") || strings.Contains(c, "##[") {
				t.Fatalf("annotation %q is more than one command", c)
			}
			commands.WriteString(c + "\n")
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
			if d := StatusDescription(rr); utf8.RuneCountInString(d) > github.MaxStatusDescription || strings.ContainsAny(d, "\r\n") {
				t.Fatalf("status description %q", d)
			}
			text.WriteString(whole.String())
			if err := Text(&text, rr, TextOptions{Width: 80}); err != nil {
				t.Fatal(err)
			}
		}
		checkGuarded(t, text.String(), commands.String(), 1+int(limit)%97)
		var progress strings.Builder
		pg := NewProgress(&progress, false, false)
		for _, p := range []string{name, value, msg} {
			pg.Start(p, "init")
			pg.Phase(p, "plan")
			pg.Done(p, false, 0, msg)
		}
		pg.Close()
		checkGuarded(t, progress.String(), "", 1+int(limit)%13)
	})
}

// checkGuarded writes text (what tfgate prints: reports, progress, errors) through a
// CommandGuard in writes of size bytes, with tfgate's own commands between them, and fails
// when the runner could read a command in any line but tfgate's own, or when the guard
// changed a line that holds none.
func checkGuarded(t *testing.T, text, commands string, size int) {
	t.Helper()
	var out strings.Builder
	g := GuardCommands(&out)
	for i := 0; i < len(text); i += size {
		g.Write([]byte(text[i:min(len(text), i+size)]))
		if i == 0 && commands != "" {
			Commands(g).Write([]byte(commands))
		}
	}
	if len(text) == 0 {
		Commands(g).Write([]byte(commands))
	}
	g.Flush()
	own := map[string]bool{}
	for _, c := range outputLines(commands) {
		own[c] = true
	}
	for _, l := range outputLines(out.String()) {
		if runnerReadsCommand(l) && !own[l] {
			t.Fatalf("the runner reads a workflow command in %q", l)
		}
	}
	if !strings.Contains(out.String(), commands) {
		t.Fatalf("tfgate's own commands were changed:\n%s", out.String())
	}
	clean := true
	for _, l := range outputLines(text) {
		clean = clean && !runnerReadsCommand(l)
	}
	if got := strings.Replace(out.String(), commands, "", 1); clean && got != text {
		t.Fatalf("the guard changed text that holds no command:\n%q\nwant\n%q", got, text)
	}
}

// checkGateLine sets a gate line into a plan comment's first part and fails unless it is
// right above the footer (or at the end, without one), the only place a marker is found.
func checkGateLine(t *testing.T, body, line string) {
	t.Helper()
	got := SetGateLine(body, line)
	lines := strings.Split(got, "\n")
	open := -1
	for i, l := range lines {
		if strings.Contains(l, "<!") && i > 0 {
			if l != GateLineOpen && l != GateLineClose || open >= 0 && l == GateLineOpen {
				t.Fatalf("line %d: %q after SetGateLine:\n%s", i+1, l, got)
			}
			if l == GateLineOpen {
				open = i
			}
		}
	}
	if open < 0 || lines[open+1] != line || lines[open+2] != GateLineClose || !topLevelLines(lines)[open] {
		t.Fatalf("gate line not in place:\n%s", got)
	}
	if rest := strings.Join(lines[open+3:], "\n"); rest != "" && !strings.HasPrefix(rest, "\n---\n") {
		t.Fatalf("gate line not above the footer:\n%s", got)
	}
	if again := SetGateLine(got, line); again != got {
		t.Fatalf("setting the same gate line again changed the body:\n%s", again)
	}
}
