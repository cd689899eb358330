package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tfgate/tfgate/internal/plan"
	"github.com/tfgate/tfgate/internal/policy"
	"github.com/tfgate/tfgate/internal/report"
)

func TestApprovalShown(t *testing.T) {
	a := &policy.Approval{Required: 2, Teams: []string{"acme/platform"}, Reasons: []string{"prod", "destroys 1", "<b>x</b>"}, Rules: []string{"data.a.approval"}}
	res := policy.Result{Verdict: policy.VerdictPass, Findings: []policy.Finding{}, Approval: a}

	var b bytes.Buffer
	if err := PolicyText(&b, res, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if want := "policies: pass\napproval: 2 approvals incl. @acme/platform — prod, destroys 1, <b>x</b>\n"; b.String() != want {
		t.Errorf("policy eval:\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	if err := PolicyJSON(&b, res); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"approval": {`) || !strings.Contains(b.String(), `"required": 2`) {
		t.Errorf("policy eval --format json has no approval:\n%s", b.String())
	}

	lowered := policy.Approval{Required: 1, Lower: true, Reasons: []string{"tags only"}}
	if got, want := ApprovalText(lowered), "1 approval (may lower min_approvals) — tags only"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}

	run := report.Run{Kind: report.KindPlan, Projects: []report.Project{{Name: "prod", Dir: "envs/prod", Status: report.StatusPlanned,
		Changes: &plan.Changes{Summary: plan.Summary{Destroy: 1}, Resources: []plan.Resource{{Address: "terraform_data.x", Type: "terraform_data", Action: plan.ActionDelete}}}, Policy: &res}}}
	b.Reset()
	if err := Markdown(&b, run, MarkdownOptions{}); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	if !strings.Contains(md, "👥 **Approval policy:** 2 approvals incl\\. \\@\u200dacme/platform — prod, destroys 1, &lt;b&gt;x&lt;/b&gt;") {
		t.Errorf("comment has no (escaped) approval line:\n%s", md)
	}
}
