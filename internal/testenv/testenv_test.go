package testenv

import (
	"os"
	"path/filepath"
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
	root := RepoRoot(t)
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Error(err)
	}
	if wd, _ := os.Getwd(); filepath.Join(root, "internal", "testenv") != wd {
		t.Errorf("root %q is not two levels above %q", root, wd)
	}
}

// TFGATE_TEST_TERRAFORM picks the binary: unset, the pinned terraform in .bin/; a relative
// path is read from the repository root (go test runs in the package directory); a bare name
// is looked up on PATH. The repository is a scratch one, with a stand-in for the pinned
// terraform, so that the test runs before `make terraform`.
func TestTerraformFromEnv(t *testing.T) {
	root := t.TempDir()
	pinned := filepath.Join(root, ".bin", "terraform")
	pkg := filepath.Join(root, "internal", "pkg")
	for _, dir := range []string{filepath.Dir(pinned), pkg} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	bin := t.TempDir()
	fake := filepath.Join(bin, "tofu")
	for path, content := range map[string]string{filepath.Join(root, "go.mod"): "module scratch\n", pinned: "#!/bin/sh\n", fake: "#!/bin/sh\n"} {
		if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin)
	t.Chdir(pkg)
	for env, want := range map[string]string{
		"":                            pinned,
		".bin/terraform":              pinned,
		fake:                          fake,
		"tofu":                        fake,
		filepath.Join(root, "go.mod"): filepath.Join(root, "go.mod"),
	} {
		t.Setenv(TerraformEnv, env)
		got, err := toolPath(t, TerraformEnv, "terraform")
		if err != nil || got != want {
			t.Errorf("%s=%q: %q, %v; want %q", TerraformEnv, env, got, err, want)
		}
	}
}

// A missing binary names the make target that builds it.
func TestMissingToolSaysWhichMakeTarget(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct{ env, value, name, want string }{
		{TerraformEnv, filepath.Join(dir, "terraform"), "terraform", "run `make terraform`"},
		{TerraformEnv, filepath.Join(dir, "tofu"), "terraform", "run `make tofu`"},
		{TofuEnv, filepath.Join(dir, "tofu"), "tofu", "run `make tofu`"},
		{"TFGATE_TEST_PLUGINS", filepath.Join(dir, "plugins"), "plugins", "run `make fakecloud`"},
		{TerraformEnv, "no-such-terraform", "terraform", "not found on PATH"},
	} {
		t.Setenv(tt.env, tt.value)
		_, err := toolPath(t, tt.env, tt.name)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), tt.env) {
			t.Errorf("%s=%s: error %v, want it to name $%s and say %q", tt.env, tt.value, err, tt.env, tt.want)
		}
	}
}

// The mirror must hold fakecloud under terraform's and tofu's addresses.
func TestMirrorNeedsEveryFlavoursAddress(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "registry.terraform.io", "tfgate", "fakecloud"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := checkMirror(dir); err == nil || !strings.Contains(err.Error(), "registry.opentofu.org") {
		t.Errorf("a mirror for terraform only: %v, want the missing tofu address named", err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "registry.opentofu.org", "tfgate", "fakecloud"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := checkMirror(dir); err != nil {
		t.Error(err)
	}
}
