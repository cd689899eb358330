package mermaidcheck

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/tfgate/tfgate/internal/testenv"
)

// githubConfig is what the diagrams are parsed and rendered with: GitHub's configuration as
// far as it is knowable. GitHub does not publish it (it renders Mermaid in a sandboxed frame
// of its own); its rendering matches Mermaid's defaults, which are set here explicitly so
// that a change of Mermaid's defaults does not change the check: securityLevel "strict"
// (HTML tags in labels encoded, clicks and links off), flowchart labels as HTML
// (flowchart.htmlLabels, in a foreignObject), the default theme. Errors are drawn
// (suppressErrorRendering off), so that a failed render leaves the error element the check
// looks for. startOnLoad is off: the page calls parse and render itself.
var githubConfig = map[string]any{
	"startOnLoad":            false,
	"securityLevel":          "strict",
	"theme":                  "default",
	"suppressErrorRendering": false,
	"flowchart":              map[string]any{"htmlLabels": true},
}

// report is what the check page (testdata/check.html) posts: one result per diagram, in the
// order served, and what went wrong on the page itself.
type report struct {
	Results     []result `json:"results"`
	StrayErrors int      `json:"strayErrors"` // Mermaid error drawings anywhere in the page
	PageErrors  []string `json:"pageErrors"`  // uncaught errors and rejections
	Error       string   `json:"error"`       // the page could not run the check
}

// result is one diagram's: whether mermaid.parse accepted it (else its error), and what
// mermaid.render drew: the SVG, its nodes (a flowchart's g.node, a Gantt chart's rect.task),
// error elements (.error-icon, .error-text, "Syntax error in text") and its size.
type result struct {
	Name          string  `json:"name"`
	Parsed        bool    `json:"parsed"`
	Error         string  `json:"error"`
	RenderError   string  `json:"renderError"`
	SVG           string  `json:"svg"`
	Nodes         int     `json:"nodes"`
	ErrorElements int     `json:"errorElements"`
	Width         float64 `json:"width"`
	Height        float64 `json:"height"`
}

// TestMermaidDiagrams holds every Mermaid golden in the repository (every *.mmd under a
// testdata directory) to Mermaid itself, in headless Chromium: mermaid.parse accepts it,
// mermaid.render draws it (an SVG with nodes, no error element), and a screenshot of the
// drawing is not blank. The invalid diagrams in testdata/rejected must be rejected, with
// Mermaid's message: the check can fail. One browser run checks them all, another takes the
// screenshots (go test -artifacts keeps them).
func TestMermaidDiagrams(t *testing.T) {
	chromium, mermaidJS := testenv.Chromium(t), testenv.Mermaid(t)
	accepted, rejected := findDiagrams(t, testenv.RepoRoot(t))
	if len(accepted) == 0 || len(rejected) == 0 {
		t.Fatalf("found %d diagrams to accept and %d to reject under the testdata directories; want some of each", len(accepted), len(rejected))
	}
	requireGoldens(t, accepted)
	all := append(append([]diagram{}, accepted...), rejected...)
	t.Logf("mermaid %s (%s), %s", mermaidVersion(mermaidJS), mermaidJS, chromium)
	s := newSite(t, mermaidJS, all)
	rep := s.check(t, chromium)
	if rep.Error != "" || len(rep.Results) != len(all) {
		t.Fatalf("the check page: %q, %d results for %d diagrams", rep.Error, len(rep.Results), len(all))
	}
	if rep.StrayErrors != 0 || len(rep.PageErrors) != 0 {
		t.Errorf("the check page: %d Mermaid error drawings, uncaught errors %q", rep.StrayErrors, rep.PageErrors)
	}
	var drawn []result
	for i, r := range rep.Results {
		if r.Name != all[i].Name {
			t.Fatalf("result %d is for %s, want %s", i, r.Name, all[i].Name)
		}
		if i >= len(accepted) {
			t.Run("rejected/"+r.Name, func(t *testing.T) { checkRejected(t, r) })
			continue
		}
		if t.Run("accepted/"+r.Name, func(t *testing.T) { checkAccepted(t, r) }) {
			drawn = append(drawn, r)
		}
	}
	t.Run("screenshot", func(t *testing.T) { checkScreenshots(t, s, chromium, drawn) })
}

// mermaidVersion is the version of the npm package mermaid.min.js is from (its package.json).
func mermaidVersion(mermaidJS string) string {
	var pkg struct{ Version string }
	b, err := os.ReadFile(filepath.Join(filepath.Dir(mermaidJS), "..", "package.json"))
	if err != nil || json.Unmarshal(b, &pkg) != nil || pkg.Version == "" {
		return "of unknown version"
	}
	return pkg.Version
}

// checkAccepted: Mermaid parsed and drew the diagram.
func checkAccepted(t *testing.T, r result) {
	if !r.Parsed {
		t.Fatalf("mermaid.parse rejects it: %s", r.Error)
	}
	if r.RenderError != "" {
		t.Fatalf("mermaid.render fails: %s", r.RenderError)
	}
	if r.Nodes == 0 || r.ErrorElements != 0 || r.Width <= 0 || r.Height <= 0 {
		t.Fatalf("mermaid.render drew %d nodes and %d error elements, %.0f×%.0f:\n%s", r.Nodes, r.ErrorElements, r.Width, r.Height, r.SVG)
	}
	t.Logf("accepted; drawn with %d nodes, %.0f×%.0f", r.Nodes, r.Width, r.Height)
}

// checkRejected: Mermaid rejected the invalid diagram, saying why.
func checkRejected(t *testing.T, r result) {
	if r.Parsed || r.Error == "" {
		t.Fatalf("mermaid.parse accepts a diagram it must reject (parsed %v, error %q)", r.Parsed, r.Error)
	}
	t.Logf("rejected, as it must be: %s", r.Error)
}

// renderGoldens are the diagrams tfgate draws whose goldens must be among those checked
// (issue 31: the comment's graph and the summary's timeline, small, grouped and hostile):
// a golden moved or renamed out of the search fails here, not silently.
var renderGoldens = []string{
	"internal/render/testdata/TestScopeMermaid_small.mmd",
	"internal/render/testdata/TestScopeMermaid_grouped.mmd",
	"internal/render/testdata/TestScopeMermaid_hostile.mmd",
	"internal/render/testdata/TestGantt_small.mmd",
	"internal/render/testdata/TestGantt_many.mmd",
	"internal/render/testdata/TestGantt_hostile.mmd",
}

func requireGoldens(t *testing.T, accepted []diagram) {
	t.Helper()
	found := map[string]bool{}
	for _, d := range accepted {
		found[d.Name] = true
	}
	for _, g := range renderGoldens {
		if !found[g] {
			t.Errorf("%s is not among the diagrams checked", g)
		}
	}
}
