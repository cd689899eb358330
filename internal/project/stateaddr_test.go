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

	// Spellings an attacker might choose for the same state (audit): an override file, the
	// defaults written out or left out, attributes that do not locate the state.
	write("evade/override", "main.tf", `resource "terraform_data" "x" {}`)
	write("evade/override", "backend_override.tf", pg)
	write("evade/pgdefault", "main.tf", `terraform {
  backend "pg" {
    schema_name = "terraform_remote_state"
    conn_str    = "postgres://elsewhere/db"
  }
}`)
	write("evade/pgbare", "main.tf", `terraform {
  backend "pg" {}
}`)
	write("evade/s3a", "main.tf", `terraform {
  backend "s3" {
    bucket = "state"
    key    = "prod.tfstate"
    region = "eu-west-1"
  }
}`)
	write("evade/s3b", "main.tf", `terraform {
  backend "s3" {
    bucket               = "state"
    key                  = "prod.tfstate"
    workspace_key_prefix = "env:"
    dynamodb_table       = "other-locks"
  }
}`)
	write("evade/cloud2", "main.tf", `terraform {
  cloud {
    organization = "acme"
    hostname     = "app.terraform.io"
    workspaces {
      name = "prod"
    }
  }
}`)
	write("evade/twice", "a.tf", pg)
	write("evade/twice", "b.tf", pg)
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
	same([2]string{"envs/prod", "default"}, [2]string{"evade/override", "default"})
	same([2]string{"evade/pgdefault", "default"}, [2]string{"evade/pgbare", "default"})
	same([2]string{"evade/s3a", "default"}, [2]string{"evade/s3b", "default"})
	same([2]string{"cloudy", "default"}, [2]string{"evade/cloud2", "staging"}) // a fixed workspace name
	differ([2]string{"evade/s3a", "default"}, [2]string{"evade/s3b", "staging"})
	if a, ok := addr("evade/twice", "default"); ok {
		t.Errorf("two backend blocks: address %q read", a)
	}
	if a, ok := addr("cloudy", "default"); !ok || a == "" {
		t.Errorf("cloud block: %q, %v", a, ok)
	}
	for _, dir := range []string{"dynamic", "partial", "json", "missing"} {
		if a, ok := addr(dir, "default"); ok {
			t.Errorf("%s: address %q read, want none (not literal)", dir, a)
		}
	}
}
