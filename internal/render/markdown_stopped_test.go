package render

import (
	"strings"
	"testing"

	"github.com/tfgate/tfgate/internal/report"
)

func TestStoppedComment(t *testing.T) {
	got := StoppedComment(report.KindPlan, "policies/p.rego:3: rego_parse_error: ```</details> @bob\x1b[31m", MarkdownOptions{Version: "v1", Commit: "0123456789abcdef"})
	if strings.Contains(got, "\x1b") || !strings.Contains(got, "````\n") {
		t.Errorf("the error must sit in a fence longer than its backtick runs, escaped:\n%s", got)
	}
	golden(t, []byte(got))
}
