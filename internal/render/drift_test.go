package render

import (
	"bytes"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/report"
)

func driftReport(t *testing.T) report.Run {
	return report.Run{Kind: report.KindDrift, Notes: []string{"Not checked (drift: false in the config): envs/sandbox."}, Projects: []report.Project{
		{Name: "envs/dev/app", Dir: "envs/dev/app", Workspace: "default", Status: report.StatusInSync,
			Duration: time.Second, Changes: loadChanges(t, "empty")},
		{Name: "envs/prod/app", Dir: "envs/prod/app", Workspace: "prod", Status: report.StatusDrifted,
			Duration: 2 * time.Second, Changes: loadChanges(t, "mixed"), Issue: "https://github.com/acme/infra/issues/7",
			Suggestions: []string{`main.tf:12  content = "v1" → "v2"`, "main.tf:20  size: set by var.size in prod.tfvars"}},
		{Name: "envs/prod/db", Dir: "envs/prod/db", Workspace: "default", Status: report.StatusDrifted,
			Duration: 2 * time.Second, Changes: loadChanges(t, "sensitive")},
		{Name: "envs/prod/web", Dir: "envs/prod/web", Workspace: "default", Status: report.StatusPending,
			Duration: 2 * time.Second, Changes: loadChanges(t, "terraform-1.5.7"), Issue: "https://github.com/acme/infra/issues/9"},
		{Name: "envs/prod/api", Dir: "envs/prod/api", Workspace: "default", Status: report.StatusCheckFailed,
			Duration: time.Second, Changes: loadChanges(t, "checks-1.5.7"), Issue: "https://github.com/acme/infra/issues/11"},
		{Name: "envs/staging/db", Dir: "envs/staging/db", Status: report.StatusFailed,
			Error: "Error: Unsupported argument\n\n  on main.tf line 3:\n   3:   nope = 1\n"},
	}}
}

func TestDriftText(t *testing.T) {
	for name, opts := range map[string]TextOptions{"plain": {}, "color": {Color: true}} {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Text(&buf, driftReport(t), opts); err != nil {
				t.Fatal(err)
			}
			golden(t, buf.Bytes())
		})
	}
}

func TestDriftMarkdown(t *testing.T) {
	var buf bytes.Buffer
	if err := Markdown(&buf, driftReport(t), MarkdownOptions{Version: "v0.1.0", Commit: "0123456789abcdef"}); err != nil {
		t.Fatal(err)
	}
	golden(t, buf.Bytes())
}

func TestDriftStepSummary(t *testing.T) {
	golden(t, []byte(StepSummary(driftReport(t), MarkdownOptions{Version: "v0.1.0", RunURL: "https://github.com/acme/infra/actions/runs/1"})))
}

func TestDriftJSON(t *testing.T) {
	var buf bytes.Buffer
	if err := JSON(&buf, driftReport(t)); err != nil {
		t.Fatal(err)
	}
	golden(t, buf.Bytes())
}

func TestDriftIssueDetails(t *testing.T) {
	for _, p := range driftReport(t).Projects {
		t.Run(strings.ReplaceAll(p.Name, "/", "-"), func(t *testing.T) {
			golden(t, []byte(DriftIssueDetails(p, github.MaxCommentChars)))
		})
	}
}

// A diff too long for an issue is cut line by line, keeping its fences.
func TestDriftIssueDetailsLimit(t *testing.T) {
	p := driftReport(t).Projects[1]
	whole := DriftIssueDetails(p, github.MaxCommentChars)
	limit := utf8.RuneCountInString(whole) * 2 / 3
	got := DriftIssueDetails(p, limit)
	if n := utf8.RuneCountInString(got); n > limit {
		t.Fatalf("%d characters, limit %d", n, limit)
	}
	if !strings.Contains(got, "more lines (see the CI run's log)") {
		t.Errorf("no note about the lines left out:\n%s", got)
	}
	if strings.Count(got, "```")%2 != 0 {
		t.Errorf("unbalanced code fences:\n%s", got)
	}
}
