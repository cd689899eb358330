package doctor

import (
	"bytes"
	"testing"

	"github.com/tfgate/tfgate/internal/golden"
)

var sample = Report{Findings: []Finding{
	{Check: "config", Essential: true, Status: Fail, Message: "the configuration is invalid:\n.tfgate.yaml:3: unknown key \"min_aprovals\" in approval (did you mean \"min_approvals\"?)",
		Fix: "fix each line named above (file:line), then run `tfgate doctor` again"},
	{Check: "workflows", Essential: true, Status: OK, Message: "tfgate plan on pull requests (.github/workflows/plan.yml)"},
	{Check: "permissions", Status: Warn, Message: ".github/workflows/apply.yml job apply (tfgate apply) needs statuses: write, has none",
		Fix: "add the missing scopes to the workflow's (or the job's) permissions block"},
	{Check: "required check", Essential: true, Status: Unknown, Message: "could not check that tfgate/gate is a required status check of main: …",
		Fix: "run `tfgate doctor` again"},
	{Check: "plan key", Status: Unknown, Message: "could not check the secret TFGATE_PLAN_KEY: listing secrets needs a collaborator's token, which GITHUB_TOKEN is not"},
}}

func TestReportText(t *testing.T) {
	var b bytes.Buffer
	if err := sample.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, golden.Path(t.Name()), b.Bytes())
	b.Reset()
	ok := Report{Findings: sample.Findings[1:3]}
	if !ok.OK() {
		t.Error("a warning breaks the setup")
	}
	if err := ok.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, golden.Path(t.Name()+"OK"), b.Bytes())
}

func TestReportJSON(t *testing.T) {
	var b bytes.Buffer
	if err := sample.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, golden.Path(t.Name()), b.Bytes())
}
