package terraform

import (
	"strings"
	"testing"
)

func TestRedactVarFileSnippets(t *testing.T) {
	in := `Error: Invalid expression

  on secret.tfvars line 1:
   1: pw = "SEKRIT-PW-111" oops

Expected the start of an expression.

Error: Unsupported argument

  on main.tf line 3, in resource "terraform_data" "x":
   3:   bogus = 1

An argument named "bogus" is not expected here.`
	got := redactVarFileSnippets(in)
	if strings.Contains(got, "SEKRIT") {
		t.Fatalf("var file source line kept:\n%s", got)
	}
	for _, keep := range []string{"on secret.tfvars line 1:", "Expected the start of an expression.", "3:   bogus = 1", "on main.tf line 3"} {
		if !strings.Contains(got, keep) {
			t.Errorf("lost %q:\n%s", keep, got)
		}
	}
}

func TestRedactVarFileSnippetsAnyName(t *testing.T) {
	in := "Error: Invalid expression\n\n  on prod.vars line 2:\n   2: token = \"SEKRIT-TOKEN\" x\n\n  on main.tf line 4:\n   4:   input = 1\n"
	got := redactVarFileSnippets(in)
	if strings.Contains(got, "SEKRIT") || !strings.Contains(got, "4:   input = 1") {
		t.Fatalf("got:\n%s", got)
	}
}
