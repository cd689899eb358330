package render

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tfgate/tfgate/internal/policy"
	"github.com/tfgate/tfgate/internal/report"
)

func TestAnnotations(t *testing.T) {
	r := testPolicyReport(t)
	r.Projects = append(r.Projects, testReport(t).Projects[2], report.Project{
		Name: "envs/modules", Dir: "envs/modules", Status: report.StatusFailed,
		Error: "terraform plan in envs/modules: exit status 1\n" +
			"╷\n│ Error: Unsupported argument\n│ \n│   on ../modules/net/main.tf line 12, in resource \"aws_vpc\" \"x\":\n│   12:   cidr = \"10.0.0.0/8\"\n│ \n│ An argument named \"cidr\" is not expected here.\n╵\n" +
			"╷\n│ Warning: Deprecated attribute\n│ \n│   on main.tf line 3:\n│    3:   a = b\n╵\n" +
			"╷\n│ Error: No source range here\n╵\n"})
	var out strings.Builder
	for _, a := range Annotations(r) {
		out.WriteString(WorkflowCommand(a) + "\n")
	}
	golden(t, []byte(out.String()))
	for _, want := range []string{
		"::error file=envs/prod/network/main.tf,line=5,title=terraform%3A envs/prod/network%3A Reference to undeclared input variable::",
		"::error file=envs/modules/net/main.tf,line=12,",
		"::warning file=envs/modules/main.tf,line=3,",
		"::error title=policy protected_resources denies envs/prod/network::terraform_data.vpc: deleting",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("missing %q in:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "No source range") {
		t.Errorf("an error without a source range became an annotation")
	}
}

// Errors that tfgate rendered from terraform's JSON diagnostics say the column as well.
func TestAnnotationsColumn(t *testing.T) {
	r := report.Run{Projects: []report.Project{{Name: "envs/app", Dir: "envs/app", Status: report.StatusFailed,
		Error: "terraform plan in envs/app: exit status 1\n" +
			"Error: Unsupported argument\n\n  on main.tf line 16, column 3, in resource \"terraform_data\" \"z\":\n  16:   bogus = 1\n\n" +
			"An argument named \"bogus\" is not expected here.\n\n" +
			"Error: Missing newline after argument\n\n  on prod.tfvars line 1, column 22:\n   1: (line from a var file hidden: it may hold secrets)\n"}}}
	var got []string
	for _, a := range Annotations(r) {
		got = append(got, WorkflowCommand(a))
	}
	want := []string{
		"::error file=envs/app/main.tf,line=16,col=3,title=terraform%3A envs/app%3A Unsupported argument::" +
			"on main.tf line 16, column 3, in resource \"terraform_data\" \"z\":%0A 16:   bogus = 1%0AAn argument named \"bogus\" is not expected here.",
		"::error file=envs/app/prod.tfvars,line=1,col=22,title=terraform%3A envs/app%3A Missing newline after argument::" +
			"on prod.tfvars line 1, column 22:%0A  1: (line from a var file hidden: it may hold secrets)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// GitHub shows 10 annotations per level: the tenth summarises the rest.
func TestAnnotationsCap(t *testing.T) {
	res := &policy.Result{Verdict: policy.VerdictDeny}
	for i := range 14 {
		res.Findings = append(res.Findings, policy.Finding{Level: policy.LevelDeny, Rule: "deny", Package: "data.main", Msg: fmt.Sprintf("deny %d", i)})
		res.Findings = append(res.Findings, policy.Finding{Level: policy.LevelWarn, Rule: "warn", Package: "data.main", Msg: fmt.Sprintf("warn %d", i)})
	}
	as := Annotations(report.Run{Projects: []report.Project{{Name: "p", Status: report.StatusPlanned, Policy: res}}})
	count := map[AnnotationLevel]int{}
	for _, a := range as {
		count[a.Level]++
	}
	if count[AnnotationError] != MaxAnnotations || count[AnnotationWarning] != MaxAnnotations {
		t.Fatalf("counts %v, want %d of each", count, MaxAnnotations)
	}
	last := as[MaxAnnotations-1]
	if last.Title != "5 more errors" || !strings.Contains(last.Message, "- policy main denies p") {
		t.Errorf("summary annotation: %+v", last)
	}
}

func TestWorkflowCommand(t *testing.T) {
	tests := []struct {
		a    Annotation
		want string
	}{
		{Annotation{Level: AnnotationError, Message: "plain"}, "::error::plain"},
		{Annotation{Level: AnnotationWarning, Title: "t", Message: "m"}, "::warning title=t::m"},
		{Annotation{Level: AnnotationError, File: "a,b:c.tf", Line: 3, Col: 7, Title: "x: y, z", Message: "100%\r\nnext\n::error::injected"},
			"::error file=a%2Cb%3Ac.tf,line=3,col=7,title=x%3A y%2C z::100%25%0Anext%0A::error::injected"},
		{Annotation{Level: "bogus", Message: "\x1b[31mred\u202e"}, `::error::\x1b[31mred\u202e`},
		{Annotation{Level: AnnotationError, Title: "a\nb%", Message: "lone\rcr"}, `::error title=a%0Ab%25::lone\rcr`},
	}
	for _, tt := range tests {
		if got := WorkflowCommand(tt.a); got != tt.want {
			t.Errorf("WorkflowCommand(%+v) =\n%s\nwant\n%s", tt.a, got, tt.want)
		}
	}
}
