package render

import (
	"strings"

	"github.com/tfgate/tfgate/internal/report"
)

// StoppedComment is the comment (and job summary) of a run that stopped before it could
// report on any project — a policy that does not compile, no terraform, a refused fork: the
// pull request must not keep showing an earlier commit's plan as if it were current. msg is
// already masked; it is shown in a code block, escaped.
func StoppedComment(kind report.Kind, msg string, opts MarkdownOptions) string {
	lines := strings.Split(strings.TrimRight(msg, "\n"), "\n")
	for i, l := range lines {
		lines[i] = codeLine(cutBytes(l, 2000))
	}
	if len(lines) > 200 {
		lines = append(lines[:200], "… (the rest is in the CI log)")
	}
	fence := codeFence(lines)
	var b strings.Builder
	b.WriteString("## ❌ " + kindTitle(kind) + " could not run\n\n")
	b.WriteString("Nothing was planned for this commit, so no plan in this pull request is current. The error:\n\n")
	b.WriteString(fence + "\n" + strings.Join(lines, "\n") + "\n" + fence + "\n\n")
	b.WriteString(mdFooter(opts))
	return b.String()
}
