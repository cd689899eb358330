package render

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/report"
)

// hostileProject is a project name from a repository nobody controls: markdown, HTML, a
// marker, a mention, a reference, backticks and a control character.
const hostileProject = "envs/`prod`<!-- tfgate:drift project=x --> @alice #12 **bold** [x](javascript:alert(1))\x1b[31m"

func TestFoldBackBody(t *testing.T) {
	for name, o := range map[string]FoldBackBodyOptions{
		"linked": {Project: "envs/prod/app", Branch: "tfgate/fold-back/envs-prod-app-1a2b3c", Issue: "https://github.com/acme/infra/issues/7",
			Edits: []string{`envs/prod/app/main.tf:12  content = "v1" → "v2"`, "envs/prod/app/main.tf:14  tags = { env = \"prod\" } → { env = \"prod\", team = \"web\" }"}, Version: "v0.1.0"},
		"first": {Project: "app", Branch: "tfgate/fold-back/app", Edits: []string{`app/main.tf:13  content = "replicas=2" → "replicas=5"`}},
		"hostile": {Project: hostileProject, Branch: "tfgate/fold-back/envs-prod-0a0b0c", Issue: "https://github.com/acme/infra/issues/9",
			Edits: []string{"main.tf:1  content = \"```<!-- tfgate:fold-back project=y -->\" → \"@bob\""}},
	} {
		t.Run(name, func(t *testing.T) {
			got := FoldBackBody(o)
			if strings.Contains(got, "<!--") || strings.Contains(got, "\x1b") {
				t.Errorf("the body holds a comment or a control character:\n%s", got)
			}
			golden(t, []byte(got))
		})
	}
}

func TestFoldBackBodyFits(t *testing.T) {
	edits := make([]string, 5000)
	for i := range edits {
		edits[i] = "main.tf:1  content = \"" + strings.Repeat("x", 500) + "\" → \"y\""
	}
	got := FoldBackBody(FoldBackBodyOptions{Project: "app", Branch: "tfgate/fold-back/app", Edits: edits})
	if n := utf8.RuneCountInString(got); n > github.MaxCommentChars-200 {
		t.Errorf("body of %d characters, over GitHub's limit", n)
	}
	if !strings.Contains(got, " more (the commit has them all)") {
		t.Errorf("the cut is not said")
	}
}

func TestFoldBackTitle(t *testing.T) {
	if got := FoldBackTitle("app\nx"); got != "Fold drift back into the code: app x" {
		t.Errorf("title %q", got)
	}
	if got := FoldBackTitle(strings.Repeat("é", 400)); utf8.RuneCountInString(got) > github.MaxIssueTitle {
		t.Errorf("title of %d characters", utf8.RuneCountInString(got))
	}
}

// TestDriftFoldBack is the drift issue's link section, for each thing a run did.
func TestDriftFoldBack(t *testing.T) {
	var b, sections strings.Builder
	for _, fb := range []*report.FoldBack{
		{Branch: "tfgate/fold-back/app", PR: "https://github.com/acme/infra/pull/3", Number: 3, Done: report.FoldBackOpened},
		{Branch: "tfgate/fold-back/app", PR: "https://github.com/acme/infra/pull/3", Number: 3, Done: report.FoldBackKept},
		{Branch: "tfgate/fold-back/app", PR: "https://github.com/acme/infra/pull/3", Number: 3, Done: report.FoldBackClosed, Why: "the drift is gone"},
		{Done: report.FoldBackNone, Why: "not all of the drift can be folded back into the code: fakecloud_object.db.secret: sensitive: edit it by hand"},
		{Done: report.FoldBackNone, Why: "only checks failed, nothing drifted: there is nothing to fold back"},
		{Done: report.FoldBackNone, Why: hostileProject},
		{Done: report.FoldBackNone, Why: FoldBackWhyDeclined(3)},
		{Done: report.FoldBackNone, Why: FoldBackWhyNotOurs("tfgate/fold-back/app")},
		nil,
	} {
		p := report.Project{Name: "app", FoldBack: fb}
		sections.WriteString(DriftFoldBack(p))
		b.WriteString(string(doneOf(fb)) + ":\n" + DriftFoldBack(p) + "note: " + FoldBackNote(p) + "\n----\n")
	}
	b.WriteString("close note, in sync:\n" + FoldBackCloseNote(report.Project{Status: report.StatusInSync}) + "\n----\n")
	b.WriteString("close note, unfoldable:\n" + FoldBackCloseNote(report.Project{Status: report.StatusDrifted,
		FoldBack: &report.FoldBack{Why: hostileProject}}) + "\n")
	b.WriteString("----\ncommit message:\n" + FoldBackCommitMessage("envs/prod/app", "Tfgate-Fold-Back-Tree: 4b825dc642cb6eb9a060e54bf8d69288fbee4904", "Tfgate-Fold-Back: envs/prod/app"))
	// The sections are markdown; a note is plain text, escaped where a report renders it.
	if strings.Contains(sections.String(), "<!--") || strings.Contains(sections.String(), "@alice") {
		t.Errorf("unescaped text:\n%s", sections.String())
	}
	golden(t, []byte(b.String()))
}

func doneOf(fb *report.FoldBack) report.FoldBackDone {
	if fb == nil {
		return "not asked"
	}
	return fb.Done
}
