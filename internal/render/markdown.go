package render

import (
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/tfgate/tfgate/internal/english"
	"github.com/tfgate/tfgate/internal/plan"
	"github.com/tfgate/tfgate/internal/policy"
	"github.com/tfgate/tfgate/internal/report"
)

// MarkdownOptions tune the markdown renderers. Every field is optional.
type MarkdownOptions struct {
	Version string // tfgate's version, for the footer
	Commit  string // the commit that was planned; shown as its first 7 characters
	RunURL  string // the CI run, linked from the footer (http or https only)
	// Marker is the hidden first line of comment part `part` of `total` (from 1), by which
	// the publisher finds its own comments again (notify.CommentMarker). It must be one
	// line of the caller's own text: it is written as is. nil, or a Marker returning "",
	// leaves the line out (for a publisher that writes its own marker: lower Limit by
	// what it adds).
	Marker func(part, total int) string
	// Limit is the size of one comment part; 0 means github.MaxCommentChars. Tests lower it.
	Limit int
	// Timings are the projects' phases by project name (metrics.Recorder): StepSummary
	// adds a timing table of them. nil: no table (durations would make goldens and
	// comments differ from run to run; only the job summary has one).
	Timings map[string][]report.Phase
	// noGraph leaves the scope graph out of the document, saying so (markdown_scope.go).
	noGraph bool
}

// Markdown writes the whole report as one markdown document, unsplit and without a
// marker (`tfgate plan --format markdown`).
func Markdown(w io.Writer, r report.Run, opts MarkdownOptions) error {
	var b strings.Builder
	if r.Kind == report.KindApply {
		b.WriteString(fitApply(r, opts, unlimited, false, ""))
	} else {
		for _, s := range mdDocument(r, opts) {
			b.WriteString(s.text())
		}
		b.WriteString(footerFor(r, opts))
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

// PlanMarkdown writes the changes of a single plan (`tfgate render --format markdown`).
func PlanMarkdown(w io.Writer, c *plan.Changes) error {
	if c == nil {
		c = &plan.Changes{}
	}
	s := mdSection{}
	line := "No changes."
	if c.Summary.HasChanges() {
		line = "**Plan:** " + strings.Join(phrases(c.Summary), ", ") + "."
	}
	s.prose(line + driftSentence(c.Summary))
	mdChanges(&s, c)
	if _, err := io.WriteString(w, s.text()); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

// mdDocument is the report as sections: the header (verdict, alerts, table, notes), then
// one per project that has something to show.
func mdDocument(r report.Run, opts MarkdownOptions) []mdSection {
	switch r.Kind {
	case report.KindApply:
		return applyDocument(r).sections()
	case report.KindGate:
		return gateSections(r)
	}
	out := []mdSection{mdHeader(r)}
	if g, ok := graphSection(r, opts); ok { // markdown_scope.go
		out = append(out, g)
	}
	for _, p := range r.Projects {
		if s, ok := mdProject(r, p); ok {
			out = append(out, s)
		}
	}
	return out
}

func kindTitle(k report.Kind) string {
	if k == "" {
		k = report.KindPlan
	}
	return "tfgate " + string(k)
}

// mdHeader is the first screen: is this safe to approve?
func mdHeader(r report.Run) mdSection {
	s := mdSection{}
	verdict := verdictParts(r)
	if r.Kind == report.KindDrift {
		verdict = driftVerdict(r)
	}
	s.prose("## " + kindTitle(r.Kind) + " — " + strings.Join(verdict, " · "))
	switch {
	case len(r.Projects) == 0 && r.Base != "" && r.MergeBase != "":
		s.prose(fmt.Sprintf("Nothing changed since %s (merge base %s) in any project.", mdCode(r.Base), mdCode(r.MergeBase)))
	case len(r.Projects) == 0 && r.Base != "":
		s.prose(fmt.Sprintf("Nothing changed since %s in any project.", mdCode(r.Base)))
	case len(r.Projects) == 0:
	case r.Base != "" && r.MergeBase != "":
		s.prose(fmt.Sprintf("Changed since %s (merge base %s): %s.", mdCode(r.Base), mdCode(r.MergeBase), english.Plural(len(r.Projects), "project", "projects")))
	case r.Base != "":
		s.prose(fmt.Sprintf("Changed since %s: %s.", mdCode(r.Base), english.Plural(len(r.Projects), "project", "projects")))
	}
	mdAlerts(&s, r)
	switch {
	case len(r.Projects) > 0 && r.Kind == report.KindDrift:
		mdDriftTable(&s, r)
	case len(r.Projects) > 0:
		mdTable(&s, r)
	}
	if r.Policies != "" {
		s.prose("**Policies:** " + mdText(r.Policies))
	}
	if r.Cost != "" && len(r.Projects) > 0 {
		s.prose(costSourceLine(r))
	}
	if notes := append(r.PolicyNotes[:len(r.PolicyNotes):len(r.PolicyNotes)], r.Notes...); len(notes) > 0 {
		b := mdAlert("NOTE")
		for _, n := range notes {
			b.lines = append(b.lines, "> - "+mdLines(n, ">   "))
		}
		s.blocks = append(s.blocks, b)
	}
	return s
}

// verdictParts are the heading's items: projects, counts, then what blocks or warns.
func verdictParts(r report.Run) []string {
	if len(r.Projects) == 0 {
		return []string{pick(r.Base != "", "no projects changed", "no projects")}
	}
	out := []string{english.Plural(len(r.Projects), "project", "projects")}
	tot := r.Totals()
	if len(r.Projects) > 0 && len(r.Unfinished()) < len(r.Projects) {
		out = append(out, shortCounts(tot))
	}
	if tot.Drift > 0 {
		out = append(out, "⚡ "+english.Plural(tot.Drift, "resource", "resources")+" changed outside Terraform")
	}
	if n := r.Denied(); n > 0 {
		out = append(out, fmt.Sprintf("❌ %d denied", n))
	}
	for _, st := range []report.Status{report.StatusFailed, report.StatusInterrupted, report.StatusNotStarted, report.StatusRefused} {
		if n := r.Count(st); n > 0 {
			out = append(out, fmt.Sprintf("%s %d %s", statusIcon(st), n, statusWord(st)))
		}
	}
	warns, judged := 0, 0
	for _, p := range r.Projects {
		if p.Policy != nil {
			judged++
			warns += p.Policy.Count(policy.LevelWarn)
		}
	}
	switch {
	case warns > 0:
		out = append(out, "⚠️ "+english.Plural(warns, "policy warning", "policy warnings"))
	case judged > 0 && r.Denied() == 0:
		out = append(out, "✅ policies pass")
	}
	return out
}

// shortCounts is "+2 ~1 -1 ±1" with only the non-zero kinds, or "no changes", for markdown.
func shortCounts(s plan.Summary) string {
	return strings.ReplaceAll(s.Counts(), "<=", "&lt;=")
}

// mdAlerts makes what a reviewer must not miss loud: projects that did not finish (their
// changes are unknown), policy denies, destroys, replacements and drift.
func mdAlerts(s *mdSection, r report.Run) {
	if un := r.Unfinished(); len(un) > 0 {
		b := mdAlert("CAUTION")
		b.lines = append(b.lines, fmt.Sprintf("> **%s did not finish**, so what %s would change is unknown:",
			english.Plural(len(un), "project", "projects"), english.Agree(len(un), "it", "they")))
		for _, p := range un {
			b.lines = append(b.lines, "> - "+mdCode(projectLabel(p))+" "+statusWord(p.Status))
		}
		s.blocks = append(s.blocks, b)
	}
	if n := r.Denied(); n > 0 {
		b := mdAlert("CAUTION")
		b.lines = append(b.lines, "> **"+english.Plural(n, "project is", "projects are")+" denied by policy**; a deny blocks the apply unless a policy owner approves to override it:")
		for _, p := range r.Projects {
			if p.Policy != nil && p.Policy.Denied() {
				b.lines = append(b.lines, "> - "+mdCode(projectLabel(p))+": "+deniedBy(*p.Policy))
			}
		}
		s.blocks = append(s.blocks, b)
	}
	addressAlert(s, r, "CAUTION", "destroys", func(res plan.Resource) bool { return res.Action == plan.ActionDelete })
	addressAlert(s, r, "WARNING", "replaces", func(res plan.Resource) bool { return res.Action == plan.ActionReplace })
	if d := r.Totals().Drift; d > 0 {
		b := mdAlert("WARNING")
		b.lines = append(b.lines, "> **"+english.Plural(d, "resource", "resources")+" changed outside Terraform** (drift):")
		for _, p := range r.Projects {
			if p.Changes != nil && len(p.Changes.Drift) > 0 {
				b.lines = append(b.lines, "> - "+mdCode(projectLabel(p))+": "+addressList(p.Changes.Drift, nil))
			}
		}
		s.blocks = append(s.blocks, b)
	}
}

// deniedBy names the policies that deny (or failed to evaluate).
func deniedBy(r policy.Result) string {
	var names []string
	seen := map[string]bool{}
	for _, f := range r.Findings {
		if f.Level == policy.LevelDeny && !seen[f.Policy()] {
			seen[f.Policy()] = true
			names = append(names, mdCode(f.Policy()))
		}
	}
	if r.Err != nil {
		names = append(names, "a policy that could not be evaluated")
	}
	return strings.Join(names, ", ")
}

// maxAlertAddresses bounds the addresses an alert lists per project; the diff below has
// every one, and the alert says how many more there are.
const maxAlertAddresses = 10

func addressAlert(s *mdSection, r report.Run, kind, verb string, match func(plan.Resource) bool) {
	total := 0
	var lines []string
	for _, p := range r.Projects {
		if p.Changes == nil {
			continue
		}
		n := 0
		for _, res := range p.Changes.Resources {
			if match(res) {
				n++
			}
		}
		if n > 0 {
			total += n
			lines = append(lines, "> - "+mdCode(projectLabel(p))+" "+verb+" "+english.Plural(n, "resource", "resources")+": "+addressList(p.Changes.Resources, match))
		}
	}
	if total == 0 {
		return
	}
	b := mdAlert(kind)
	lead := fmt.Sprintf("> **%s %s**", capitalise(verb), english.Plural(total, "resource", "resources"))
	if verb == "replaces" {
		lead += " (destroyed and created again)"
	}
	b.lines = append(append(b.lines, lead+":"), lines...)
	s.blocks = append(s.blocks, b)
}

// addressList lists the matching addresses as code, at most maxAlertAddresses of them.
func addressList(rs []plan.Resource, match func(plan.Resource) bool) string {
	var out []string
	n := 0
	for _, res := range rs {
		if match != nil && !match(res) {
			continue
		}
		n++
		if len(out) < maxAlertAddresses {
			out = append(out, mdCode(res.Address))
		}
	}
	if n > len(out) {
		out = append(out, fmt.Sprintf("and %d more (listed below)", n-len(out)))
	}
	return strings.Join(out, ", ")
}

func mdAlert(kind string) mdBlock {
	return mdBlock{open: []string{"> [!" + kind + "]"}, reopen: []string{"> [!" + kind + "]", "> (continued)"}}
}

// mdFooter: the commit, the run and the version, each when known.
func mdFooter(opts MarkdownOptions) string {
	var items []string
	if opts.Commit != "" {
		c := opts.Commit
		if len(c) > 7 {
			c = c[:7]
		}
		items = append(items, "Commit "+mdCode(c))
	}
	if u := safeURL(opts.RunURL); u != "" {
		items = append(items, "[CI run]("+u+")")
	}
	if opts.Version != "" {
		items = append(items, "tfgate "+mdText(opts.Version))
	}
	if len(items) == 0 {
		return ""
	}
	return "---\n" + strings.Join(items, " · ") + "\n"
}

// safeURL returns u when it is an http(s) URL that can stand in a link destination as
// is, else "".
func safeURL(u string) string {
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
		return ""
	}
	if strings.ContainsAny(u, " <>()[]`\"'\\\n\r\t") || needsClean(u) {
		return ""
	}
	return u
}

func pick(b bool, yes, no string) string {
	if b {
		return yes
	}
	return no
}

// Footer is the markdown footer (commit, CI run, version) that ends tfgate's comments, for
// other documents tfgate writes, such as drift issues.
func Footer(opts MarkdownOptions) string { return mdFooter(opts) }
