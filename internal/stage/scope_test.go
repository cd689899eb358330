package stage

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tfgate/tfgate/internal/project"
)

func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func readOr(t *testing.T, path, none string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return none
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestScopeHoldsWhatTheReviewCovers: the tree has the project's inputs (its directory's
// contents, its modules) and the shared files, and nothing else of the repository: not an
// inert file, not another project's, not terraform's own data directory.
func TestScopeHoldsWhatTheReviewCovers(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"app/main.tf":            `module "m" { source = "../modules/m" }`,
		"app/templates/user.tpl": "hello",
		"app/README.md":          "inert",
		"app/.terraform/x":       "terraform's own",
		"modules/m/main.tf":      "",
		"scripts/hook.sh":        "echo hook",
		"docs/notes.md":          "inert",
		"other/main.tf":          "",
		"other/secret.txt":       "another project's",
	})
	p := project.Project{Name: "app", Dir: "app", Workspace: "default", Modules: []string{"modules/m"}}
	r := &ProjectRun{Opts: &PlanOptions{Env: Env{Root: root}, SharedSums: map[string]string{"scripts/hook.sh": "sum"}}, Project: p}
	release, err := r.newScope(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	s := r.scope
	if got, want := r.WorkDir(), filepath.Join(s.root, "app"); got != want {
		t.Errorf("WorkDir = %s, want %s", got, want)
	}
	for _, f := range []string{"app/main.tf", "app/templates/user.tpl", "modules/m/main.tf", "scripts/hook.sh"} {
		if !regularFile(s.path(f)) {
			t.Errorf("%s is not in the tree", f)
		}
	}
	for _, f := range []string{"app/README.md", "app/.terraform/x", "docs/notes.md", "other/main.tf", "other/secret.txt"} {
		if _, err := os.Lstat(s.path(f)); err == nil {
			t.Errorf("%s is in the tree: terraform could read it, though no review of app covers it", f)
		}
	}
	if got := strings.Join(s.inputs, " "); got != "app/main.tf app/templates/user.tpl modules/m/main.tf" {
		t.Errorf("inputs = %s", got)
	}
}

// TestScopeCarriesWorkingFiles: the local state, its workspace's directory and the lock
// file go into the tree, and what terraform changed or created there comes back; what it
// left alone is not written back (another project in the same directory may have changed
// it meanwhile), and nothing else it wrote survives.
func TestScopeCarriesWorkingFiles(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"app/main.tf":                            "",
		"app/terraform.tfstate":                  "state v1",
		"app/.terraform.lock.hcl":                "lock v1",
		"app/terraform.tfstate.d/blue/.keep":     "",
		"state/shared.tfstate":                   "shared v1",
		"app2/main.tf":                           "terraform {\n  backend \"local\" {\n    path = \"../state/shared.tfstate\"\n  }\n}\n",
		"app2/terraform.tfstate.d/green/unknown": "",
	})
	app := project.Project{Name: "app", Dir: "app", Workspace: "default"}
	r := &ProjectRun{Opts: &PlanOptions{Env: Env{Root: root}}, Project: app}
	release, err := r.newScope(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	s := r.scope
	if got := readOr(t, s.path("app/terraform.tfstate"), "none"); got != "state v1" {
		t.Fatalf("state in the tree: %s", got)
	}
	writeTree(t, s.root, map[string]string{
		"app/terraform.tfstate":        "state v2",
		"app/terraform.tfstate.backup": "state v1",
		"app/errored.tfstate":          "unsaved",
		"app/provisioner-output.txt":   "lost",
	})
	if err := os.Chmod(s.path("app/errored.tfstate"), 0o755); err != nil {
		t.Fatal(err)
	}
	// Meanwhile the checkout's lock file changed: the tree's, untouched, must not undo it.
	writeTree(t, root, map[string]string{"app/.terraform.lock.hcl": "lock v2"})
	if err := release(); err != nil {
		t.Fatal(err)
	}
	for f, want := range map[string]string{
		"app/terraform.tfstate":        "state v2",
		"app/terraform.tfstate.backup": "state v1",
		"app/errored.tfstate":          "unsaved",
		"app/.terraform.lock.hcl":      "lock v2",
		"app/provisioner-output.txt":   "none",
	} {
		if got := readOr(t, filepath.Join(root, f), "none"); got != want {
			t.Errorf("%s in the checkout: %q, want %q", f, got, want)
		}
	}
	if fi, err := os.Stat(filepath.Join(root, "app/errored.tfstate")); err != nil || fi.Mode()&0o111 != 0 {
		t.Errorf("errored.tfstate came back executable: %v", fi.Mode())
	}
	if _, err := os.Stat(s.base); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the tree is still there: %v", err)
	}

	// A workspace whose directory exists before its state does; a literal path outside
	// the project's directory.
	blue := project.Project{Name: "blue", Dir: "app", Workspace: "blue"}
	r = &ProjectRun{Opts: &PlanOptions{Env: Env{Root: root}}, Project: blue}
	if release, err = r.newScope(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !isDir(filepath.Join(r.scope.root, "app/terraform.tfstate.d/blue")) {
		t.Error("the workspace's directory is not in the tree: terraform would not find the workspace")
	}
	writeTree(t, r.scope.root, map[string]string{"app/terraform.tfstate.d/blue/terraform.tfstate": "blue v1"})
	if err := release(); err != nil {
		t.Fatal(err)
	}
	if got := readOr(t, filepath.Join(root, "app/terraform.tfstate.d/blue/terraform.tfstate"), "none"); got != "blue v1" {
		t.Errorf("blue's state: %q", got)
	}
	// terraform workspace new makes the directory before any state.
	green := project.Project{Name: "green", Dir: "app", Workspace: "green"}
	r = &ProjectRun{Opts: &PlanOptions{Env: Env{Root: root}}, Project: green}
	if release, err = r.newScope(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(r.scope.root, "app/terraform.tfstate.d/green"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := release(); err != nil {
		t.Fatal(err)
	}
	if !isDir(filepath.Join(root, "app/terraform.tfstate.d/green")) {
		t.Error("a new workspace's directory did not come back: the workspace is lost")
	}
	// A "state" that is another file of the repository is not carried into the tree.
	writeTree(t, root, map[string]string{
		"thief/main.tf":    "terraform {\n  backend \"local\" {\n    path = \"../other/secret.txt\"\n  }\n}\n",
		"other/secret.txt": "another project's",
	})
	thief := project.Project{Name: "thief", Dir: "thief", Workspace: "default"}
	r = &ProjectRun{Opts: &PlanOptions{Env: Env{Root: root}}, Project: thief}
	if _, err = r.newScope(t.Context()); err == nil || !strings.Contains(err.Error(), "path other/secret.txt is not a .tfstate file") {
		t.Errorf("another project's file as a state: %v", err)
	}
	// Nor is anything written back through a link among the checkout's directories.
	writeTree(t, root, map[string]string{"linker/main.tf": "terraform {\n  backend \"local\" {\n    path = \"../out/x.tfstate\"\n  }\n}\n"})
	if err := os.Symlink(t.TempDir(), filepath.Join(root, "out")); err != nil {
		t.Fatal(err)
	}
	linker := project.Project{Name: "linker", Dir: "linker", Workspace: "default"}
	r = &ProjectRun{Opts: &PlanOptions{Env: Env{Root: root}}, Project: linker}
	if release, err = r.newScope(t.Context()); err != nil {
		t.Fatal(err)
	}
	writeTree(t, r.scope.root, map[string]string{"out/x.tfstate": "state"})
	if err := release(); err == nil || !strings.Contains(err.Error(), "through a symbolic link") {
		t.Errorf("written through a link: %v", err)
	}
	app2 := project.Project{Name: "app2", Dir: "app2", Workspace: "default"}
	r = &ProjectRun{Opts: &PlanOptions{Env: Env{Root: root}}, Project: app2}
	if release, err = r.newScope(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := readOr(t, filepath.Join(r.scope.root, "state/shared.tfstate"), "none"); got != "shared v1" {
		t.Errorf("app2's state in the tree: %q", got)
	}
	writeTree(t, r.scope.root, map[string]string{"state/shared.tfstate": "shared v2"})
	if err := release(); err != nil {
		t.Fatal(err)
	}
	if got := readOr(t, filepath.Join(root, "state/shared.tfstate"), "none"); got != "shared v2" {
		t.Errorf("app2's state: %q", got)
	}
}

// TestScopeExplains: a failure that names a file the checkout has and the tree lacks says
// why terraform could not read it and how to bring it into the review; other failures are
// left as they are.
func TestScopeExplains(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"app/main.tf": "", "docs/notes.md": "inert"})
	p := project.Project{Name: "app", Dir: "app", Workspace: "default"}
	r := &ProjectRun{Opts: &PlanOptions{Env: Env{Root: root}}, Project: p}
	release, err := r.newScope(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	tfErr := errors.New(`Error: Invalid function argument: no file exists at "../docs/notes.md"; this function works only with files`)
	got := r.scope.explain(tfErr, root, p).Error()
	if !strings.HasPrefix(got, tfErr.Error()+"\n") || !strings.Contains(got, "docs/notes.md is in the repository but not in what a review of app covers") {
		t.Errorf("explained: %s", got)
	}
	other := errors.New(`no file exists at "../docs/missing.md"`)
	if got := r.scope.explain(other, root, p); got != other {
		t.Errorf("a file the checkout lacks too: %v", got)
	}
	abs := errors.New(`open ` + filepath.Join(root, "other/secret.txt") + `: permission denied; open ` + filepath.Join(root, "app/main.tf") + `: permission denied`)
	writeTree(t, root, map[string]string{"other/secret.txt": "another project's"})
	got = r.scope.explain(abs, root, p).Error()
	if !strings.Contains(got, "other/secret.txt is in the repository but not in what a review of app covers") ||
		!strings.Contains(got, "app/main.tf was read by its path in the checkout, which terraform cannot reach") {
		t.Errorf("explained absolute paths: %s", got)
	}
	var none *scope
	if got := none.explain(other, root, p); got != other {
		t.Errorf("no tree: %v", got)
	}
}

// TestGuardDeniesOthersTemporary: tfgate's other directories in the temporary directory
// (another project's tree or data directory, apply's unpacked bundles) are denied to
// terraform; its own tree and data directory are not.
func TestGuardDeniesOthersTemporary(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	for _, d := range []string{"tfgate-scope-mine", "tfgate-tfdata-mine", "tfgate-scope-other", "tfgate-apply-1", "unrelated"} {
		if err := os.Mkdir(filepath.Join(tmp, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	r := &ProjectRun{}
	got := r.othersTemporary([]string{filepath.Join(tmp, "tfgate-scope-mine"), filepath.Join(tmp, "tfgate-tfdata-mine"), filepath.Join(tmp, "tfgate-apply-1", "bundle-x")})
	want := []string{filepath.Join(tmp, "tfgate-apply-1"), filepath.Join(tmp, "tfgate-scope-other")}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("denied %v, want %v", got, want)
	}
}

// TestGuardOff: where the kernel cannot guard, the run's note says terraform ran without
// the guard, and a run that requires it (apply.read_guard: required) fails the project
// instead of running terraform.
func TestGuardOff(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"app/main.tf": ""})
	opts := &PlanOptions{Env: Env{Root: root}}
	opts.guard = &runGuard{off: errors.New("this Linux kernel has no Landlock")}
	opts.guard.once.Do(func() {}) // as setUp found it
	r := &ProjectRun{Opts: opts, Project: project.Project{Name: "app", Dir: "app", Workspace: "default"}}
	release, err := r.newScope(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if spec, err := r.guardSpec(t.Context()); spec != nil || err != nil {
		t.Errorf("guardSpec = %v, %v: want no guard, no error", spec, err)
	}
	if note := opts.GuardNote(); !strings.Contains(note, "terraform ran without the read guard (this Linux kernel has no Landlock)") {
		t.Errorf("note: %q", note)
	}
	opts.RequireGuard = true
	if _, err := r.guardSpec(t.Context()); err == nil || !strings.Contains(err.Error(), "apply.read_guard is required") {
		t.Errorf("required: %v", err)
	}
}

// TestScopeParentFitsASocket: under a long TMPDIR the trees go in /tmp, so that a
// provider's plugin socket in terraform's TMPDIR stays within the kernel's 107 bytes.
func TestScopeParentFitsASocket(t *testing.T) {
	short := t.TempDir()
	t.Setenv("TMPDIR", short)
	if got := scopeParent(); got != short {
		t.Errorf("short TMPDIR: %s, want %s", got, short)
	}
	long := filepath.Join(short, strings.Repeat("x", 70))
	if err := os.Mkdir(long, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", long)
	if got := scopeParent(); got != "/tmp" {
		t.Errorf("long TMPDIR: %s, want /tmp", got)
	}
	if socket := filepath.Join(scopeParent(), scopeDirPrefix+"1234567890", "t", "plugin1234567890"); len(socket) > 107 {
		t.Errorf("socket path %d bytes: %s", len(socket), socket)
	}
}
