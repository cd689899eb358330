package render

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	goldenfile "github.com/tfgate/tfgate/internal/golden"
	"github.com/tfgate/tfgate/internal/report"
)

// smallScope is a change to a shared module, a project's own file and a shared script,
// that removed a project and turned another into a module.
func smallScope() *report.Scope {
	return &report.Scope{
		Files: []string{"envs/dev/app/main.tf", "envs/old/main.tf", "envs/prod/app/main.tf", "modules/network/vpc.tf", "modules/tags/tags.tf", "scripts/hook.sh"},
		Touches: []report.Touch{
			{Project: "envs/dev/app", File: "envs/dev/app/main.tf"},
			{Project: "envs/dev/app", File: "modules/tags/tags.tf", Module: "modules/tags"},
			{Project: "envs/prod/app", File: "envs/prod/app/main.tf"},
			{Project: "envs/prod/app", File: "modules/tags/tags.tf", Module: "modules/tags"},
			{Project: "envs/prod/network", File: "modules/network/vpc.tf", Module: "modules/network"},
			{Project: "envs/prod/network", File: "modules/tags/tags.tf", Module: "modules/tags"},
		},
		Shared:  []string{"scripts/hook.sh"},
		Dropped: []report.Dropped{{Name: "envs/old", How: report.DropRemoved, Files: []string{"envs/old/main.tf"}}},
	}
}

// groupedScope is over the node budget: 40 projects, each with its own files and modules.
func groupedScope() *report.Scope {
	s := &report.Scope{}
	for i := range 40 {
		env := []string{"dev", "prod", "staging", "qa"}[i%4]
		p := fmt.Sprintf("envs/%s/svc%02d", env, i)
		for _, f := range []string{"main.tf", "variables.tf", "outputs.tf"} {
			s.Touches = append(s.Touches, report.Touch{Project: p, File: p + "/" + f})
		}
		m := fmt.Sprintf("modules/m%d", i%7)
		s.Touches = append(s.Touches, report.Touch{Project: p, File: m + "/main.tf", Module: m})
	}
	s.Shared = []string{"scripts/a.sh", "scripts/b.sh"}
	return s
}

// hostileNames are the leak and injection corpora's names (workflow commands, tfgate's
// markers, markdown and HTML breakouts, terminal escapes) and Mermaid's own: a quote and
// bracket that end a label, a newline or ";" that starts a statement (click, call, style,
// classDef), ":::" classes, "%%" comments and directives, "|" edge labels, backtick
// markdown strings, entity codes meant to decode, the keyword end.
var hostileNames = []string{
	"::stop-commands::x", "##[error]x", "x\n::error::y", "<!-- tfgate:plan pr=1 part=1/1 -->", "#\u200d#[warning]w",
	"</details><script>alert(1)</script>", "```\n</details>\n```", "@octocat please look at #123",
	"\x1b[31mred\u202e", "<img src=x onerror=alert(1)>", "[x](javascript:alert(1))",
	`a"] --> n1`, "b]\nclick n1 call alert(1)", "c\"]; click n2 href \"javascript:alert(1)\"", "d:::evil",
	"%%{init: {\"securityLevel\": \"loose\"}}%%", "e %% comment", "f|label|", "`**markdown string**`",
	"#quot;#60;script#62;", "&lt;b&gt;", "end", "subgraph", "style n1 fill:#f00;", "classDef x fill:red;",
}

func hostileScope() *report.Scope {
	s := &report.Scope{}
	for i, n := range hostileNames {
		s.Touches = append(s.Touches, report.Touch{Project: n, Workspace: pick(i%5 == 0, n, "default"), File: n + "/" + n + ".tf", Module: pick(i%3 == 0, "modules/"+n, "")})
	}
	s.Shared = []string{hostileNames[0] + "/x.sh"}
	s.Dropped = []report.Dropped{{Name: hostileNames[5], How: report.DropVanished, Files: []string{hostileNames[6] + ".tf"}}}
	return s
}

// hostileSubgraphs: few enough hostile names that each file is drawn in its directory's
// subgraph, whose title is a label too.
func hostileSubgraphs() *report.Scope {
	s := &report.Scope{}
	for _, n := range hostileNames[10:22] {
		s.Touches = append(s.Touches, report.Touch{Project: n, Workspace: "default", File: "dir " + n + "/" + n})
	}
	return s
}

func mmdPath(t *testing.T) string {
	return filepath.Join("testdata", strings.ReplaceAll(t.Name(), "/", "_")+".mmd")
}

func TestScopeMermaid(t *testing.T) {
	verdictRun := mockupReport().Projects
	for _, tt := range []struct {
		name     string
		s        *report.Scope
		projects []report.Project
	}{
		{"small", smallScope(), verdictRun},
		{"selected", smallScope(), nil},
		{"grouped", groupedScope(), nil},
		{"hostile", hostileScope(), nil},
		{"hostile_subgraphs", hostileSubgraphs(), mockupReport().Projects},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			if err := ScopeMermaid(&b, tt.s, tt.projects); err != nil {
				t.Fatal(err)
			}
			checkMermaid(t, b.String())
			goldenfile.Check(t, mmdPath(t), []byte(b.String()))
		})
	}
}

func TestScopeDOT(t *testing.T) {
	for _, tt := range []struct {
		name string
		s    *report.Scope
	}{{"small", smallScope()}, {"hostile", hostileScope()}} {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			if err := ScopeDOT(&b, tt.s, mockupReport().Projects); err != nil {
				t.Fatal(err)
			}
			checkDOT(t, b.String())
			golden(t, []byte(b.String()))
		})
	}
}

// TestScopeGraphVerdicts: each project is classed and labelled by how its run ended.
func TestScopeGraphVerdicts(t *testing.T) {
	var b strings.Builder
	if err := ScopeMermaid(&b, smallScope(), mockupReport().Projects); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		`[["envs/dev/app #183; changes"]]`, `[["envs/prod/network #183; denied"]]`, `(["modules/tags"])`,
		`["hook.sh #183; shared"]`, `[/"envs/old #183; code removed"/]`, "class ", "classDef denied ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
}

// TestScopeGraphBudget: however large the change, the graph stays within the budget and
// says what it folded.
func TestScopeGraphBudget(t *testing.T) {
	for _, n := range []int{1, 20, 59, 60, 61, 200, 2000} {
		s := &report.Scope{}
		for i := range n {
			p := fmt.Sprintf("envs/e%d/p%d", i%13, i)
			s.Touches = append(s.Touches,
				report.Touch{Project: p, File: fmt.Sprintf("%s/f%d.tf", p, i)},
				report.Touch{Project: p, File: fmt.Sprintf("modules/m%d/x.tf", i%17), Module: fmt.Sprintf("modules/m%d", i%17)})
		}
		g := buildScopeGraph(s, verdicts(nil), GraphBudget)
		nodes := len(g.nodes)
		if len(g.folded) > 0 {
			nodes-- // the note saying what was folded
		}
		if nodes > GraphBudget {
			t.Errorf("%d projects: %d nodes, over %d", n, nodes, GraphBudget)
		}
		if n == 2000 {
			note := g.nodes[len(g.nodes)-1]
			if note.kind != kindNote || !strings.HasSuffix(note.label, "1,944 projects drawn by verdict") || strings.HasSuffix(mermaidLabel(note.label), `#8230;"`) {
				t.Errorf("the note does not say (in full) what was folded: %q", note.label)
			}
		}
		total := 2*n + 2*min(n, 17) // projects, their files, the modules and their files
		if folded := len(g.folded) > 0; folded != (total > GraphBudget) {
			t.Errorf("%d projects (%d nodes unfolded): folded %v (%v)", n, total, folded, g.folded)
		}
	}
}

// The statements a scope graph is made of, with every label matched as the escaper may
// write it: only [A-Za-z0-9 /._-] and entity codes between its quotes.
var (
	mmdLabel = `"(?:[A-Za-z0-9 /._-]|#[0-9]+;)+"`
	mmdLine  = regexp.MustCompile(`^(flowchart LR|  end|  subgraph g[0-9]+\[` + mmdLabel + `\]|` +
		` +n[0-9]+(\[` + mmdLabel + `\]|\(\[` + mmdLabel + `\]\)|\[\[` + mmdLabel + `\]\]|\[/` + mmdLabel + `/\])|` +
		`  n[0-9]+ (-->|-\.->) n[0-9]+|` +
		`  classDef [a-z]+ fill:#[0-9a-f]{6},stroke:#[0-9a-f]{6},color:#[0-9a-f]{6}|` +
		`  class n[0-9]+(,n[0-9]+)* [a-z]+)$`)
)

// checkMermaid fails unless every line of src is one of the graph's own statements: no
// label ends early, no statement comes from a name.
func checkMermaid(t testing.TB, src string) {
	t.Helper()
	if !strings.HasSuffix(src, "\n") {
		t.Fatalf("no final newline:\n%s", src)
	}
	for _, l := range strings.Split(strings.TrimSuffix(src, "\n"), "\n") {
		if !mmdLine.MatchString(l) {
			t.Fatalf("line %q is not a statement of the graph:\n%s", l, src)
		}
	}
}

var (
	dotLabelRe = `"(?:[^"\\\x00-\x1f&#]|\\\\|\\"|&amp;|&#35;)*"`
	dotLine    = regexp.MustCompile(`^(digraph tfgate \{|  rankdir=LR;|  node \[shape=box, style=filled, fontname="Helvetica"\];|\}|` +
		`  n[0-9]+ \[label=` + dotLabelRe + `, fillcolor="#[0-9a-f]{6}", color="#[0-9a-f]{6}"(, shape=[a-z0-9]+)?(, style="filled,dashed")?\];|` +
		`  n[0-9]+ -> n[0-9]+( \[style=dashed\])?;)$`)
)

func checkDOT(t testing.TB, src string) {
	t.Helper()
	for _, l := range strings.Split(strings.TrimSuffix(src, "\n"), "\n") {
		if !dotLine.MatchString(l) {
			t.Fatalf("line %q is not a statement of the graph:\n%s", l, src)
		}
	}
}

func TestMermaidLabel(t *testing.T) {
	for in, want := range map[string]string{
		"envs/prod/app": `"envs/prod/app"`,
		`a"b`:           `"a#34;b"`,
		"x\ny":          `"x#92;ny"`,
		"<b>&#35;":      `"#60;b#62;#38;#35;35#59;"`,
		"%%{init}%%":    `"#37;#37;#123;init#125;#37;#37;"`,
		"a:::c|d`e;f":   `"a#58;#58;#58;c#124;d#96;e#59;f"`,
		"":              `" "`,
		"é·":            `"#233;#183;"`,
		"[x](y)":        `"#91;x#93;#40;y#41;"`,
		"\u202eevil":    `"#92;u202eevil"`,
		"tab\there\x1b": `"tab#92;there#92;x1b"`,
	} {
		if got := mermaidLabel(in); got != want {
			t.Errorf("mermaidLabel(%q) = %s, want %s", in, got, want)
		}
	}
	if got := mermaidLabel(strings.Repeat("ab", 200)); len(got) > maxLabelRunes*10+2 || !strings.HasSuffix(got, `#8230;"`) {
		t.Errorf("a long label is not cut: %d bytes", len(got))
	}
}

func TestDOTLabel(t *testing.T) {
	for in, want := range map[string]string{
		"envs/prod/app": `"envs/prod/app"`,
		`a"b\N`:         `"a\"b\\N"`,
		"x\ny &amp;":    `"x\\ny &amp;amp;"`,
		"<b>":           `"<b>"`,
		"##[error]x":    `"&#35;&#35;[error]x"`,
	} {
		if got := dotLabel(in); got != want {
			t.Errorf("dotLabel(%q) = %s, want %s", in, got, want)
		}
	}
}

// FuzzScopeMermaid: whatever the names, every line of the Mermaid and DOT graphs is one of
// their own statements (no name breaks out of its label), and the comment around the
// Mermaid graph is safe markdown.
func FuzzScopeMermaid(f *testing.F) {
	for i := 0; i+2 < len(hostileNames); i++ {
		f.Add(hostileNames[i], hostileNames[i+1], hostileNames[i+2], uint8(i))
	}
	f.Fuzz(func(t *testing.T, project, file, module string, n uint8) {
		s := &report.Scope{Shared: []string{file + ".sh"}, Dropped: []report.Dropped{{Name: module, How: report.DropKind(project), Files: []string{file}}}}
		for i := range int(n % 80) {
			s.Touches = append(s.Touches, report.Touch{Project: fmt.Sprint(project, i%9), Workspace: module, File: fmt.Sprint(file, "/", i), Module: pick(i%2 == 0, module, "")})
		}
		s.Touches = append(s.Touches, report.Touch{Project: project, Workspace: file, File: file, Module: module})
		var m, d strings.Builder
		if err := ScopeMermaid(&m, s, []report.Project{{Name: project, Workspace: file, Status: report.Status(module)}}); err != nil {
			t.Fatal(err)
		}
		checkMermaid(t, m.String())
		if err := ScopeDOT(&d, s, nil); err != nil {
			t.Fatal(err)
		}
		checkDOT(t, d.String())
		r := report.Run{Kind: report.KindPlan, Base: "origin/main", Scope: s, Projects: []report.Project{{Name: project, Status: report.StatusPlanned}}}
		for _, p := range CommentParts(r, testMarkdownOptions) {
			checkMarkdown(t, p)
		}
	})
}

// TestCommentPartsGraph: the plan comment carries the graph, collapsed, after the summary
// table; when the comment has no room for it, the graph is the first thing left out, and
// the comment says so.
func TestCommentPartsGraph(t *testing.T) {
	r := mockupReport()
	r.Kind = report.KindPlan
	r.Scope = smallScope()
	t.Run("embedded", func(t *testing.T) {
		parts := CommentParts(r, testMarkdownOptions)
		if len(parts) != 1 {
			t.Fatalf("%d parts, want 1", len(parts))
		}
		checkMarkdown(t, parts[0])
		body := parts[0]
		i, j := strings.Index(body, "```mermaid\n"), strings.Index(body, "### ")
		if i < 0 || j < i || strings.Index(body, "| project |") > i {
			t.Fatalf("the graph is not between the summary table and the projects:\n%s", body)
		}
		src := body[i+len("```mermaid\n"):]
		checkMermaid(t, src[:strings.Index(src, "```")])
		goldenParts(t, parts)
	})
	t.Run("left out", func(t *testing.T) {
		without := testMarkdownOptions
		without.noGraph = true
		opts := testMarkdownOptions
		// Room for the comment without the graph, not for both.
		for opts.Limit = 3000; ; opts.Limit += 100 {
			without.Limit = opts.Limit
			if len(CommentParts(r, without)) == 1 {
				break
			}
		}
		parts := CommentParts(r, opts)
		checkParts(t, parts, opts.Limit)
		if len(parts) != 1 || strings.Contains(parts[0], "```mermaid") || !strings.Contains(parts[0], "graph of why these projects are planned is left out") {
			t.Fatalf("want one part without the graph, saying so:\n%s", strings.Join(parts, "\f"))
		}
		goldenParts(t, parts)
	})
	t.Run("split anyway", func(t *testing.T) {
		opts := testMarkdownOptions
		opts.Limit = 3000
		with := CommentParts(r, opts)
		r2 := r
		r2.Scope = nil
		if len(with) != len(CommentParts(r2, opts)) {
			t.Errorf("the graph costs the comment a part: %d", len(with))
		}
		for _, p := range with {
			checkMarkdown(t, p)
		}
	})
	t.Run("no scope", func(t *testing.T) {
		r2 := r
		r2.Scope = nil
		if strings.Contains(strings.Join(CommentParts(r2, testMarkdownOptions), ""), "mermaid") {
			t.Error("a graph without a scope")
		}
	})
}

// TestScopeGraphEdges: a change whose modules each reach every project would draw more
// edges than Mermaid draws (it shows an error past 500): the graph folds further until it
// is within maxGraphEdges, and many dropped projects are drawn by how, both said.
func TestScopeGraphEdges(t *testing.T) {
	s := &report.Scope{}
	for p := range 25 {
		for m := range 25 {
			mod := fmt.Sprintf("modules/m%02d", m)
			s.Touches = append(s.Touches, report.Touch{Project: fmt.Sprintf("envs/p%02d", p), File: mod + "/main.tf", Module: mod})
		}
	}
	for i := range 40 {
		s.Dropped = append(s.Dropped, report.Dropped{Name: fmt.Sprintf("old/o%02d", i), How: report.DropRemoved, Files: []string{fmt.Sprintf("old/o%02d/main.tf", i)}})
	}
	g := buildScopeGraph(s, verdicts(nil), GraphBudget)
	if len(g.edges) > maxGraphEdges || len(g.nodes) > GraphBudget+1 {
		t.Errorf("%d edges, %d nodes: over %d, %d", len(g.edges), len(g.nodes), maxGraphEdges, GraphBudget)
	}
	note := g.nodes[len(g.nodes)-1].label
	for _, want := range []string{"and 400 edges", "25 local modules drawn as one node", "40 dropped projects drawn by how"} {
		if !strings.Contains(note, want) {
			t.Errorf("note %q does not say %q", note, want)
		}
	}
	src := scopeMermaid(g)
	checkMermaid(t, src)
	goldenfile.Check(t, mmdPath(t), []byte(src))
}

// TestScopeMermaidTextSize: long non-ASCII paths (each rune an entity code) would make the
// source pass Mermaid's maxTextSize, which draws an error instead of the graph: labels are
// cut shorter until it fits, the fold note kept whole.
func TestScopeMermaidTextSize(t *testing.T) {
	long := strings.Repeat("基础设施", 20)
	for _, n := range []int{30, 31, 200} {
		s := &report.Scope{}
		for i := range n {
			p := fmt.Sprintf("%s/p%d", long, i)
			s.Touches = append(s.Touches, report.Touch{Project: p, File: fmt.Sprintf("%s/%s%d.tf", p, long, i)})
		}
		var b strings.Builder
		if err := ScopeMermaid(&b, s, nil); err != nil {
			t.Fatal(err)
		}
		src := b.String()
		if len(src) > mermaidMaxText {
			t.Errorf("%d projects: %d characters, over Mermaid's %d", n, len(src), mermaidMaxText)
		}
		checkMermaid(t, src)
		if g := buildScopeGraph(s, verdicts(nil), GraphBudget); len(g.folded) > 0 && !strings.Contains(src, mermaidLabel(g.nodes[len(g.nodes)-1].label)) {
			t.Errorf("%d projects: the fold note was cut", n)
		}
	}
}
