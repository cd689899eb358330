package render

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tfgate/tfgate/internal/plan"
	"github.com/tfgate/tfgate/internal/policy"
	"github.com/tfgate/tfgate/internal/report"
)

func TestClean(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text", "plain text"},
		{"café 日本", "café 日本"},
		{"\x1b[31mred\x1b[0m", `\x1b[31mred\x1b[0m`},
		{"a\nb\r\tc", `a\nb\r\tc`},
		{"del\x7f nul\x00 bell\a", `del\x7f nul\x00 bell\x07`},
		{"c1 csi \u009b31m", `c1 csi \u009b31m`},
		{"bidi \u202eexe.txt \u2066x\u2069", `bidi \u202eexe.txt \u2066x\u2069`},
		{"bad utf8 \xff\xfe", `bad utf8 \xff\xfe`},
		{"line\u2028sep", `line\u2028sep`},
	}
	for _, tt := range tests {
		if got := clean(tt.in); got != tt.want {
			t.Errorf("clean(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestCountsForEveryActionKind(t *testing.T) {
	tests := []struct {
		s    plan.Summary
		want string
	}{
		{plan.Summary{}, "+0 ~0 -0"},
		{plan.Summary{Add: 2, Change: 1}, "+2 ~1 -0"},
		{plan.Summary{Destroy: 3}, "+0 ~0 -3"},
		{plan.Summary{Replace: 1}, "+0 ~0 -0 ±1"},
		{plan.Summary{Import: 2}, "+0 ~0 -0 ⇐2"},
		{plan.Summary{Move: 4}, "+0 ~0 -0 →4"},
		{plan.Summary{Read: 1}, "+0 ~0 -0 <=1"},
		{plan.Summary{Forget: 1}, "+0 ~0 -0 ⊘1"},
		{plan.Summary{Outputs: 3, Drift: 2}, "+0 ~0 -0"},
		{plan.Summary{Add: 1, Change: 2, Destroy: 3, Replace: 4, Import: 5, Move: 6, Read: 7, Forget: 8}, "+1 ~2 -3 ±4 ⇐5 →6 <=7 ⊘8"},
	}
	tw := newTextWriter(nil, TextOptions{})
	for _, tt := range tests {
		if got, _ := tw.counts(tt.s); got != tt.want {
			t.Errorf("counts(%+v) = %q, want %q", tt.s, got, tt.want)
		}
	}
}

func TestPhrases(t *testing.T) {
	tests := []struct {
		s    plan.Summary
		want string
	}{
		{plan.Summary{Add: 1}, "1 to add, 0 to change, 0 to destroy"},
		{plan.Summary{Replace: 1, Import: 2, Move: 3, Read: 4, Forget: 5, Outputs: 1},
			"0 to add, 0 to change, 0 to destroy, 1 to replace, 2 to import, 3 to move, 4 to read, 5 to forget, 1 output change"},
	}
	for _, tt := range tests {
		if got := strings.Join(phrases(tt.s), ", "); got != tt.want {
			t.Errorf("phrases(%+v) = %q, want %q", tt.s, got, tt.want)
		}
	}
}

// Names, paths, errors and values from a repository or a plan must not be able to move the
// cursor, change colours or forge lines in the terminal.
func TestTextHasNoControlCharacters(t *testing.T) {
	evil := "\x1b[2J\x1b[1;1H\u009b31m\nfake ✓ line\r"
	c := loadChanges(t, "mixed")
	c.Warnings = append(c.Warnings, "warning with "+evil)
	verdict := &policy.Result{Verdict: policy.VerdictError, Findings: []policy.Finding{
		{Level: policy.LevelDeny, Rule: "deny_" + evil, Package: "data." + evil, Address: "addr" + evil, Msg: "msg " + evil},
		{Level: policy.LevelWarn, Rule: "warn", Package: "data.x", Msg: evil},
	}, Excepted: []string{"data.x.deny_" + evil}, Err: errors.Join(errors.New("eval "+evil), errors.New(evil))}
	r := report.Run{
		Base: "origin/" + evil, MergeBase: "abc" + evil,
		Policies: "base " + evil, PolicyNotes: []string{"note " + evil},
		Projects: []report.Project{
			{Name: "envs/" + evil, Workspace: evil, Status: report.StatusPlanned, Duration: time.Second, Changes: c, Policy: verdict},
			{Name: "broken" + evil, Status: report.StatusFailed, Error: "Error: " + evil + "\nsecond line " + evil, Policy: verdict},
		},
	}
	var buf bytes.Buffer
	if err := Text(&buf, r, TextOptions{Width: 100}); err != nil {
		t.Fatal(err)
	}
	if err := PlanText(&buf, c, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	p := NewProgress(&buf, false, false)
	p.Start(evil, evil)
	p.Done(evil, false, time.Second, evil)
	p.Close()
	for i, r := range buf.String() {
		if (r < 0x20 && r != '\n') || r == 0x7f || (r >= 0x80 && r <= 0x9f) || (r >= 0x202a && r <= 0x202e) {
			t.Fatalf("control character %U at %d in:\n%s", r, i, buf.String())
		}
	}
	if strings.Contains(buf.String(), "\nfake ✓ line") {
		t.Error("a newline in a name started a forged line")
	}
}
