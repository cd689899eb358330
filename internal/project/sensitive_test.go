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
