package render

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tfgate/tfgate/internal/report"
)

const removedNote = "envs/old was removed from the repository; removing code does not destroy its infrastructure: run terraform destroy there first, or remove it from state on purpose"

// Notes about the run sit with the policy notes under the summary table, wrapped.
func TestTextNotes(t *testing.T) {
	tests := []struct {
		name string
		r    report.Run
		opts TextOptions
	}{
		{"only notes", report.Run{Base: "origin/main", MergeBase: "3f2c1aa", Notes: []string{removedNote}}, TextOptions{}},
		{"with policies", report.Run{
			Base: "origin/main", MergeBase: "3f2c1aa",
			Policies:    "base commit 3f2c1aa (origin/main)",
			PolicyNotes: []string{"this change edits policies/blast_radius.rego; policy changes take effect after merge"},
			Notes:       []string{removedNote, "second \x1b[31mnote"},
			Projects: []report.Project{{Name: "envs/dev/app", Status: report.StatusPlanned, Duration: time.Second,
				Changes: loadChanges(t, "empty")}},
		}, TextOptions{Width: 60, Color: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Text(&buf, tt.r, tt.opts); err != nil {
				t.Fatal(err)
			}
			golden(t, buf.Bytes())
			if !strings.Contains(stripANSI(buf.String()), "Note: envs/old was removed") {
				t.Errorf("note missing:\n%s", buf.String())
			}
		})
	}
}

// "notes" is always a list at the top of the JSON report.
func TestJSONNotes(t *testing.T) {
	for _, notes := range [][]string{nil, {removedNote}} {
		var buf bytes.Buffer
		if err := JSON(&buf, report.Run{Notes: notes}); err != nil {
			t.Fatal(err)
		}
		var doc map[string]json.RawMessage
		if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		var got []string
		if err := json.Unmarshal(doc["notes"], &got); err != nil || got == nil {
			t.Fatalf("notes = %s (%v), want a list", doc["notes"], err)
		}
		if !slices.Equal(got, append([]string{}, notes...)) {
			t.Errorf("notes = %q, want %q", got, notes)
		}
	}
}
