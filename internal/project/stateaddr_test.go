package project

import (
	"os"
	"path/filepath"
	"testing"
)

func TestStateAddress(t *testing.T) {
	root := t.TempDir()
	write := func(dir, name, src string) {
		t.Helper()
		p := filepath.Join(root, dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pg := `terraform {
  backend "pg" {
    schema_name = "prod"
  }
}
`
	write("envs/prod", "main.tf", pg)
	write("envs/prod2", "backend.tf", pg)
	write("envs/prod2", "main.tf", `resource "terraform_data" "x" {}`)
	write("envs/other", "main.tf", `terraform {
  backend "pg" {
    schema_name = "other"
  }
}`)
	write("local/a", "main.tf", `terraform {
  backend "local" {
    path = "../../state/shared.tfstate"
  }
}`)
	write("local/b", "main.tf", `terraform {
  backend "local" {
    path = "../../state/shared.tfstate"
  }
}`)
	write("cloudy", "main.tf", `terraform {
  cloud {
    organization = "acme"
    workspaces {
      name = "prod"
    }
  }
}`)
	write("dynamic", "main.tf", `terraform {
  backend "s3" {
    bucket = "b"
    key    = "${var.env}/x"
  }
}`)
	write("partial", "main.tf", `terraform {
  backend "s3" {}
}`)
	write("partial", "prod.tfbackend", `bucket = "b"`)
	write("json", "main.tf.json", `{}`)
	write("plain", "main.tf", `resource "terraform_data" "x" {}`)

	addr := func(dir, ws string) (string, bool) {
		return StateAddress(root, Project{Name: dir, Dir: dir, Workspace: ws})
	}
	same := func(a, b [2]string) {
		t.Helper()
		x, okx := addr(a[0], a[1])
		y, oky := addr(b[0], b[1])
		if !okx || !oky || x != y {
			t.Errorf("%v and %v: %q (%v) and %q (%v), want one readable address", a, b, x, okx, y, oky)
		}
	}
	differ := func(a, b [2]string) {
		t.Helper()
		x, _ := addr(a[0], a[1])
		y, _ := addr(b[0], b[1])
		if x == y {
			t.Errorf("%v and %v: both %q", a, b, x)
		}
	}
	same([2]string{"envs/prod", "default"}, [2]string{"envs/prod2", "default"})
	same([2]string{"local/a", "default"}, [2]string{"local/b", "default"})
	differ([2]string{"envs/prod", "default"}, [2]string{"envs/other", "default"})
	differ([2]string{"envs/prod", "default"}, [2]string{"envs/prod2", "staging"})
	differ([2]string{"plain", "default"}, [2]string{"envs/prod2", "default"})
	if a, ok := addr("cloudy", "default"); !ok || a == "" {
		t.Errorf("cloud block: %q, %v", a, ok)
	}
	for _, dir := range []string{"dynamic", "partial", "json", "missing"} {
		if a, ok := addr(dir, "default"); ok {
			t.Errorf("%s: address %q read, want none (not literal)", dir, a)
		}
	}
}
