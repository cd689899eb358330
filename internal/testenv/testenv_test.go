package testenv

import (
	"strings"
	"testing"
)

func TestMissingOpenAPISaysRunMakeOpenapi(t *testing.T) {
	t.Setenv(OpenAPIEnv, t.TempDir()+"/absent.json")
	_, err := openAPI(t)
	if err == nil || !strings.Contains(err.Error(), "run `make openapi`") {
		t.Errorf("error %v does not say to run make openapi", err)
	}
}

func TestRepoRootHoldsGoMod(t *testing.T) {
	if root := RepoRoot(t); !strings.HasSuffix(Terraform(t), "terraform") || root == "" {
		t.Errorf("root %q, terraform %q", root, Terraform(t))
	}
}
