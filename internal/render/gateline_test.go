package render

import (
	"strings"
	"testing"

	"github.com/tfgate/tfgate/internal/plan"
	"github.com/tfgate/tfgate/internal/report"
)

const forgedGate = GateLineOpen + "\n**Gate:** ✅ allowed\n" + GateLineClose

// gateLineAt reports whether body's gate block is where SetGateLine puts it, right above
// the footer, holding line, and (only) that the markers stand on no other top-level line.
func gateLineAt(t *testing.T, body, line string, only bool) {
	t.Helper()
	lines := strings.Split(body, "\n")
	top := topLevelLines(lines)
	footer := -1
	for i := range lines {
		if top[i] && lines[i] == "---" {
			footer = i
		}
	}
	if footer < 4 || lines[footer-4] != GateLineOpen || lines[footer-3] != line || lines[footer-2] != GateLineClose || lines[footer-1] != "" {
		t.Fatalf("gate line %q not right above the footer:\n%s", line, body)
	}
	for i, l := range lines {
		if only && top[i] && (l == GateLineOpen || l == GateLineClose) && i != footer-4 && i != footer-2 {
			t.Fatalf("a second gate marker on line %d:\n%s", i+1, body)
		}
	}
}

func TestSetGateLine(t *testing.T) {
	body := CommentParts(mockupReport(), testMarkdownOptions)[0]
	once := SetGateLine(body, "**Gate:** ⏳ pending")
	gateLineAt(t, once, "**Gate:** ⏳ pending", true)
	if strings.Replace(once, GateLineOpen+"\n**Gate:** ⏳ pending\n"+GateLineClose+"\n\n", "", 1) != body {
		t.Fatalf("SetGateLine changed more than its block:\n%s", once)
	}
	twice := SetGateLine(once, "**Gate:** ✅ allowed — approved by\nalice")
	gateLineAt(t, twice, "**Gate:** ✅ allowed — approved by alice", true)
	if SetGateLine(twice, "**Gate:** ✅ allowed — approved by alice") != twice {
		t.Fatal("the same line again changed the body")
	}

	// CRLF, as a body edited on github.com comes back.
	crlf := strings.ReplaceAll(once, "\n", "\r\n")
	if got := SetGateLine(crlf, "x"); strings.Count(got, GateLineOpen) != 1 || !strings.Contains(got, GateLineOpen+"\r\nx\r\n"+GateLineClose) {
		t.Fatalf("CRLF body:\n%q", got)
	}

	// No footer: the block goes at the end, and is found there again.
	bare := "<!-- tfgate:plan pr=1 part=1/1 -->\n## tfgate plan\n\nNothing changed.\n"
	b1 := SetGateLine(bare, "one")
	if want := bare + "\n" + GateLineOpen + "\none\n" + GateLineClose + "\n"; b1 != want {
		t.Fatalf("no footer:\n%q\nwant\n%q", b1, want)
	}
	if b2 := SetGateLine(b1, "two"); b2 != strings.Replace(b1, "\none\n", "\ntwo\n", 1) {
		t.Fatalf("no footer, again:\n%q", b2)
	}
}

// A marker pair anywhere but above the footer is not the gate line, however it got there:
// in a diff (as an older tfgate rendered a plan value holding it), a <details> block, a
// code span, a block quote, mid-body. The real line goes above the footer, and the forged
// text stays as it was.
func TestSetGateLineIgnoresForgedMarkers(t *testing.T) {
	body := CommentParts(mockupReport(), testMarkdownOptions)[0]
	footer := strings.LastIndex(body, "\n---\n")
	for name, forged := range map[string]string{
		"in a diff":     strings.Replace(body, "     input.size: 3 → 4\n", "     input.size: 3 → 4\n"+forgedGate+"\n", 1),
		"in details":    strings.Replace(body, "</details>", "\n"+forgedGate+"\n\n</details>", 1),
		"mid-body":      strings.Replace(body, "| project |", forgedGate+"\n\n| project |", 1),
		"in a quote":    strings.Replace(body, "> [!CAUTION]\n", "> [!CAUTION]\n> "+strings.ReplaceAll(forgedGate, "\n", "\n> ")+"\n", 1),
		"code span":     strings.Replace(body, "\n---\n", "\n`"+GateLineOpen+"`\nx\n`"+GateLineClose+"`\n\n---\n", 1),
		"after footer":  body + "\n" + forgedGate + "\n",
		"open fence":    body[:footer] + "\n\n```\n" + forgedGate + "\n" + body[footer:],
		"pair unclosed": strings.Replace(body, "| project |", GateLineOpen+"\n\n| project |", 1),
	} {
		got := SetGateLine(forged, "**Gate:** ❌ failure — no approval")
		if name == "open fence" {
			// An unclosed fence hides the footer: the block goes at the end, outside it.
			if !strings.HasSuffix(got, "\n\n"+GateLineOpen+"\n**Gate:** ❌ failure — no approval\n"+GateLineClose+"\n") {
				t.Errorf("%s:\n%s", name, got)
			}
			continue
		}
		if name == "after footer" {
			if strings.Count(got, "**Gate:** ❌") != 1 || strings.Count(got, forgedGate) != 1 {
				t.Errorf("%s:\n%s", name, got)
			}
			continue
		}
		gateLineAt(t, got, "**Gate:** ❌ failure — no approval", name != "mid-body" && name != "pair unclosed")
		if !strings.Contains(got, forgedGate) && name != "code span" && name != "in a quote" && name != "pair unclosed" {
			t.Errorf("%s: the forged text was changed:\n%s", name, got)
		}
	}
}

// A plan value holding the gate markers renders without them, code blocks included, and
// the gate line still goes where readers look.
func TestMarkersCannotBeRendered(t *testing.T) {
	v := plan.Value{Text: `"` + forgedGate + ` <!-- tfgate:plan pr=1 part=1/1 -->"`, Kind: plan.KindKnown}
	r := mockupReport()
	r.Projects[0].Changes.Resources[0].Attributes[0].After = v
	r.Projects[0].Changes.Resources[2].Address = "terraform_data.x[\"<!-- tfgate:gate -->\"]"
	r.Projects = append(r.Projects, report.Project{Name: "broken", Dir: "broken", Status: report.StatusFailed, Error: "Error: <!-- /tfgate:gate -->"})
	body := CommentParts(r, testMarkdownOptions)[0]
	if strings.Count(body, "<!") != 1 || !strings.HasPrefix(body, "<!-- tfgate:plan") {
		t.Fatalf("rendered text holds \"<!\":\n%s", body)
	}
	if !strings.Contains(body, "<"+zwj+"!-- tfgate:gate -->") {
		t.Fatalf("the value is not shown:\n%s", body)
	}
	gateLineAt(t, SetGateLine(body, "**Gate:** ⏳ pending"), "**Gate:** ⏳ pending", true)
}
