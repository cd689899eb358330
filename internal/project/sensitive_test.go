package project

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSensitiveValues(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"app/main.tf": `
variable "pw" {
  type      = string
  sensitive = true
}
variable "cfg" {
  sensitive = true
}
variable "region" {}
variable "token" { sensitive = true }
`,
		"app/prod.tfvars":      "pw = <<EOT\nline-one-secret\nEOT\nregion = \"eu-west-1\"\n",
		"app/x.auto.tfvars":    `cfg = { nested = ["deep-secret", 42] }`,
		"app/terraform.tfvars": `broken = `,
	}
	for name, content := range files {
		p := filepath.Join(root, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := SensitiveValues(context.Background(), root, Project{Dir: "app", VarFiles: []string{"prod.tfvars"}},
		map[string]string{"TF_VAR_token": "env-secret", "TF_VAR_region": "us-east-1"})
	want := "42,deep-secret,env-secret,line-one-secret\n"
	if strings.Join(got, ",") != want {
		t.Fatalf("SensitiveValues = %q, want %s", got, want)
	}
}

// Every known value of a sensitive variable, from any source, root or module: defaults,
// `sensitive = "true"`, literals passed to a local module's sensitive variable, the
// caller's variables passed to one, the keys of a sensitive map.
func TestFindSensitiveEverySource(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"app/main.tf": `
variable "dflt" {
  sensitive = true
  default   = "canary-default"
}
variable "str" {
  sensitive = "true"
}
variable "passed" {}
variable "keys" {
  type      = map(string)
  sensitive = true
  default   = { "canary-key" = "canary-map-value" }
}
variable "plain" { default = "not-secret" }
module "m" {
  source  = "../mod"
  pw      = "canary-literal"
  through = nonsensitive(var.passed)
  plain   = "shown"
}
`,
		"mod/vars.tf": `
variable "pw" { sensitive = true }
variable "through" { sensitive = true }
variable "plain" {}
variable "inner" {
  sensitive = true
  default   = 1234567
}
`,
	}
	for name, content := range files {
		p := filepath.Join(root, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := FindSensitive(context.Background(), root, Project{Dir: "app", Modules: []string{"mod"}},
		map[string]string{"TF_VAR_str": "canary-str", "TF_VAR_passed": "canary-passed", "TF_VAR_plain": "shown-env"})
	if got, want := strings.Join(s.Values, ","), "1234567,canary-default,canary-key,canary-literal,canary-map-value,canary-passed,canary-str"; got != want {
		t.Errorf("Values = %s, want %s", got, want)
	}
	if got, want := strings.Join(s.Names, ","), "dflt,inner,keys,passed,pw,str,through"; got != want {
		t.Errorf("Names = %s, want %s", got, want)
	}
}

func TestSensitiveRedact(t *testing.T) {
	s := Sensitive{Names: []string{"pin", "n"}}
	in := "│ var.pin is \"a\\\"b\"\n│ var.n is 42\n│ var.pinned is \"shown\"\n│ var.m is map of string with 1 element\n│ var.pin is \"(masked)\""
	want := "│ var.pin is (sensitive, 3 characters)\n│ var.n is (sensitive)\n│ var.pinned is \"shown\"\n│ var.m is map of string with 1 element\n│ var.pin is \"(masked)\""
	if got := s.Redact(in); got != want {
		t.Errorf("Redact =\n%s\nwant\n%s", got, want)
	}
}
