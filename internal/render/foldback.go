package render

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tfgate/tfgate/internal/english"
	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/report"
)

// The words of drift's fold-back pull requests (tfgate drift --fold-back-pr): the pull
// request's title and body, the note that closes it, and the section of the drift issue
// that links it or says why there is none.

// FoldBackTitle is the fold-back pull request's title: plain text (control characters
// dropped), within GitHub's limit.
func FoldBackTitle(project string) string {
	name := strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, project)
	prefix := "Fold drift back into the code: "
	return prefix + english.Clip(name, github.MaxIssueTitle-utf8.RuneCountInString(prefix))
}

// FoldBackBodyOptions is what a fold-back pull request's body says.
type FoldBackBodyOptions struct {
	Project string
	Branch  string
	Issue   string   // the drift issue's URL; "" when not known yet
	Edits   []string // the project's fold-back suggestions, one line each, already masked
	Version string
}

// FoldBackBody is the fold-back pull request's body below tfgate's marker. It holds no
// time and no run link, so that the same drift renders the same body every night.
func FoldBackBody(o FoldBackBodyOptions) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Drift found in %s: the infrastructure was changed outside Terraform. "+
		"This pull request changes the code to say what the infrastructure already is, so that its plan proposes **no change**.\n\n",
		mdCode(o.Project))
	if o.Issue != "" {
		fmt.Fprintf(&b, "**Drift issue:** %s\n\n", o.Issue)
	}
	b.WriteString("**Edits:**\n\n")
	b.WriteString(mdCodeBlock("", "", foldBackEdits(o.Edits)).text())
	b.WriteString("\n")
	b.WriteString("Review it as any pull request — plan, policies and the approval gate apply as usual. " +
		"Merge it to accept the drift; or close it and revert the change made outside Terraform instead.\n\n")
	fmt.Fprintf(&b, "tfgate's nightly drift check keeps this pull request current: a new commit on %s when the drift changes, "+
		"none while it stays the same, and the pull request closed with a note when the project is back in sync. "+
		"A commit pushed to the branch by anyone else stops that: tfgate then leaves the branch alone.\n", mdCode(o.Branch))
	if o.Version != "" {
		fmt.Fprintf(&b, "\n<sub>tfgate %s</sub>\n", mdText(o.Version))
	}
	return b.String()
}

// foldBackEditChars keeps the edits within GitHub's limit on a body, beside the rest.
const foldBackEditChars = 50000

func foldBackEdits(edits []string) []string {
	var out []string
	n := 0
	for i, e := range edits {
		line := codeLine(english.Clip(e, 400))
		if n += utf8.RuneCountInString(line) + 1; n > foldBackEditChars {
			return append(out, fmt.Sprintf("… %d more (the commit has them all)", len(edits)-i))
		}
		out = append(out, line)
	}
	return out
}

// FoldBackCloseNote is the comment that closes a fold-back pull request whose drift is
// gone or can no longer be folded back.
func FoldBackCloseNote(p report.Project) string {
	switch {
	case p.Status == report.StatusInSync:
		return "✅ The drift is gone: infrastructure, state and code agree without this change. Closing; " +
			"tfgate opens a new pull request if the project drifts again."
	case p.FoldBack != nil && p.FoldBack.Why != "":
		return "Closing: " + mdText(p.FoldBack.Why) + ". The drift issue says what changed."
	}
	return "Closing: this pull request no longer describes the drift. The drift issue says what changed."
}

// DriftFoldBack is the drift issue's fold-back section: the pull request that accepts the
// drift, or why there is none; "" when fold-back pull requests were not asked for.
func DriftFoldBack(p report.Project) string {
	fb := p.FoldBack
	if fb == nil {
		return ""
	}
	switch fb.Done {
	case report.FoldBackOpened, report.FoldBackUpdated, report.FoldBackKept:
		return fmt.Sprintf("**Fold back:** pull request #%d (%s, branch %s) changes the code to match the infrastructure; "+
			"its plan proposes no change. Review and merge it to accept the drift.\n\n", fb.Number, fb.PR, mdCode(fb.Branch))
	case report.FoldBackClosed:
		return fmt.Sprintf("**Fold back:** pull request #%d (%s) was closed: %s.\n\n", fb.Number, fb.PR, mdText(fb.Why))
	}
	if fb.Why == "" {
		return ""
	}
	return fmt.Sprintf("**Fold back:** no pull request: %s.\n\n", mdText(fb.Why))
}

// FoldBackNote is the run's note on a project's fold-back pull request (the report on the
// terminal and in the job summary); "" when there is nothing to say.
func FoldBackNote(p report.Project) string {
	fb := p.FoldBack
	if fb == nil {
		return ""
	}
	switch fb.Done {
	case report.FoldBackOpened, report.FoldBackUpdated, report.FoldBackKept, report.FoldBackClosed:
		return fmt.Sprintf("Fold-back pull request of %s: %s (%s).", p.Name, fb.PR, fb.Done)
	case report.FoldBackNone:
		if fb.Why != "" {
			return fmt.Sprintf("No fold-back pull request for %s: %s.", p.Name, fb.Why)
		}
	}
	return ""
}

// JSONFoldBack is a project's fold-back pull request in the JSON report: what the run did
// (opened, updated, kept, closed or none), and the pull request or why there is none.
type JSONFoldBack struct {
	Done        report.FoldBackDone `json:"done"`
	PullRequest string              `json:"pull_request,omitempty"`
	Branch      string              `json:"branch,omitempty"`
	Why         string              `json:"why,omitempty"`
}

func jsonFoldBack(fb *report.FoldBack) *JSONFoldBack {
	if fb == nil {
		return nil
	}
	return &JSONFoldBack{Done: fb.Done, PullRequest: fb.PR, Branch: fb.Branch, Why: fb.Why}
}

// Why a project has no fold-back pull request, or had it closed (report.FoldBack.Why):
// plain text, escaped where it is rendered.
const (
	FoldBackWhyOnlyChecks = "only checks failed, nothing drifted: there is nothing to fold back"
	FoldBackWhySecret     = "the edits would put a secret value into the code"
	FoldBackWhyGone       = "the drift is gone"
)

// FoldBackWhyPartial: some of the drift has no edit (why lists it).
func FoldBackWhyPartial(why string) string {
	return "not all of the drift can be folded back into the code: " + why
}

// FoldBackWhyNoEdit: the edits could not be made (err says why).
func FoldBackWhyNoEdit(err error) string {
	if err == nil {
		return "no edit folds the drift back"
	}
	return fmt.Sprintf("no edit folds the drift back (%v)", err)
}

// FoldBackWhyNotOurs: someone else's commit is on tfgate's branch.
func FoldBackWhyNotOurs(branch string) string {
	return fmt.Sprintf("branch %s holds a commit tfgate did not make; tfgate leaves it alone", branch)
}

// FoldBackWhyDeclined: someone closed the pull request with these edits without merging it.
func FoldBackWhyDeclined(number int) string {
	return fmt.Sprintf("pull request #%d with these edits was closed without merging; tfgate opens another when the drift changes", number)
}

// FoldBackCommitMessage is the fold-back commit's message, ending with its trailers (one
// line each, as given), by which tfgate knows the branch's commit for its own.
func FoldBackCommitMessage(name string, trailers ...string) string {
	return fmt.Sprintf("Fold drift back into the code: %s\n\nThe infrastructure was changed outside Terraform; these edits make the code say what it is,\n"+
		"so that a plan proposes no change (tfgate drift --fold-back-pr).\n\n%s\n", name, strings.Join(trailers, "\n"))
}
