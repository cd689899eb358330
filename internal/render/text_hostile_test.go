package render

import (
	"bytes"
	"testing"

	"github.com/tfgate/tfgate/internal/plan"
	"github.com/tfgate/tfgate/internal/plan/plangen"
	"github.com/tfgate/tfgate/internal/report"
	"github.com/tfgate/tfgate/internal/secret"
)

// TestTextHostile renders a random hostile plan (plangen.Hostile: workflow commands,
// newlines, ANSI escapes, invalid UTF-8, long values, secrets, unknowns, nested lists
// and maps) as `tfgate plan` prints it, through the masker and the workflow-command
// guard, in a log, on a terminal and in colour. The golden was written by the renderer
// before its rewrite for speed (issue 32): the rewrite changes no byte.
func TestTextHostile(t *testing.T) {
	masker := secret.NewMasker([]string{"s3cr3t-value 42"}).With("hunter2-secret")
	var out bytes.Buffer
	for _, maxLen := range []int{0, 400} {
		c, err := plan.Read(plangen.Hostile(7, 60), plan.Options{Masker: masker, MaxValueLen: maxLen})
		if err != nil {
			t.Fatal(err)
		}
		r := report.Run{Kind: report.KindPlan, Projects: []report.Project{{Name: "::p", Dir: "p", Status: report.StatusPlanned, Changes: c}}}
		for _, o := range []TextOptions{{}, {Width: 100}, {Width: 60, Color: true}} {
			mw := masker.Writer(&out)
			g := GuardCommands(mw)
			if err := Text(g, r, o); err != nil {
				t.Fatal(err)
			}
			if err := g.Flush(); err != nil {
				t.Fatal(err)
			}
			if err := mw.Flush(); err != nil {
				t.Fatal(err)
			}
		}
	}
	golden(t, out.Bytes())
}
