package stage

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/project"
	"github.com/tfgate/tfgate/internal/report"
	"github.com/tfgate/tfgate/internal/testenv"
)

// keptPlan plans root's project app with kept data directories under kept, and returns
// its result and what the run logged about init: "skipped", or the reason init ran.
func keptPlan(t *testing.T, root, kept string, env map[string]string) (report.Project, string) {
	t.Helper()
	ctx := context.Background()
	projects, err := project.Discover(ctx, root, config.Default())
	if err != nil {
		t.Fatal(err)
	}
	app, err := project.Select(projects, []string{"app"})
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	run, err := Plan(ctx, PlanOptions{Env: Env{Root: root, TerraformEnv: env, Terraform: TerraformOptions{DataDirs: kept},
		Log: slog.New(slog.NewTextHandler(&log, nil))}, Projects: app, Binary: testBinary(t)})
	if err != nil {
		t.Fatal(err)
	}
	p := run.Projects[0]
	if p.Status != report.StatusPlanned {
		t.Fatalf("app: %s: %s\n%s", p.Status, p.Error, log.String())
	}
	switch s := log.String(); {
	case strings.Contains(s, "terraform init skipped"):
		return p, "skipped"
	case strings.Contains(s, "terraform init runs"):
		_, reason, _ := strings.Cut(s, "reason=")
		return p, strings.Trim(strings.SplitN(reason, "\n", 2)[0], `"`)
	default:
		t.Fatalf("nothing logged about init:\n%s", s)
		return p, ""
	}
}

func addresses(p report.Project) string {
	var out []string
	for _, r := range p.Changes.Resources {
		out = append(out, r.Address)
	}
	return strings.Join(out, " ")
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestKeptDataDirSkipsInitOnlyWhenProvablyCurrent: a second plan with nothing changed skips
// init; each change to what init reads or made runs it again, in an emptied directory, and
// the plan then sees the change (a skipped init would plan with the old module, lock file
// or backend, or fail).
func TestKeptDataDirSkipsInitOnlyWhenProvablyCurrent(t *testing.T) {
	type step struct {
		name   string
		change func(t *testing.T, root, kept string, env map[string]string)
		want   string // "skipped", or the reason init runs
		check  func(t *testing.T, root string, p report.Project)
	}
	keptDir := func(t *testing.T, kept string) string {
		t.Helper()
		dirs, _ := filepath.Glob(filepath.Join(kept, "*"))
		for _, d := range dirs {
			if fi, err := os.Stat(d); err == nil && fi.IsDir() {
				return d
			}
		}
		t.Fatalf("no kept data directory in %s", kept)
		return ""
	}
	steps := []step{
		{name: "first plan", want: "no earlier init recorded"},
		{name: "nothing changed", want: "skipped"},
		{name: "module source changed", want: "what init reads changed",
			change: func(t *testing.T, root, _ string, _ map[string]string) {
				writeFile(t, filepath.Join(root, "app", "main.tf"), "module \"m\" {\n  source = \"../modules/b\"\n}\n")
			},
			check: func(t *testing.T, _ string, p report.Project) {
				if got := addresses(p); got != "module.m.terraform_data.b" {
					t.Errorf("planned %q, want module b's resource", got)
				}
			}},
		{name: "nothing changed since", want: "skipped"},
		{name: "backend block changed", want: "what init reads changed",
			change: func(t *testing.T, root, _ string, _ map[string]string) {
				writeFile(t, filepath.Join(root, "app", "backend.tf"), "terraform {\n  backend \"local\" {\n    path = \"other.tfstate\"\n  }\n}\n")
			}},
		{name: "lock file changed", want: "what init reads changed",
			change: func(t *testing.T, root, _ string, _ map[string]string) {
				writeFile(t, filepath.Join(root, "app", ".terraform.lock.hcl"), "# changed\n")
			}},
		{name: "environment changed", want: "what init reads changed",
			change: func(t *testing.T, _, _ string, env map[string]string) { env["TF_REGISTRY_CLIENT_TIMEOUT"] = "20" }},
		{name: "shell's own variable changed", want: "skipped",
			change: func(t *testing.T, _, _ string, env map[string]string) { env["OLDPWD"] = "/elsewhere" }},
		{name: "data directory changed", want: "the data directory changed since init",
			change: func(t *testing.T, _, kept string, _ map[string]string) {
				if err := os.Remove(filepath.Join(keptDir(t, kept), "modules", "modules.json")); err != nil {
					t.Fatal(err)
				}
			}},
		{name: "data directory deleted", want: "the data directory changed since init", // the record beside it stays
			change: func(t *testing.T, _, kept string, _ map[string]string) {
				if err := os.RemoveAll(keptDir(t, kept)); err != nil {
					t.Fatal(err)
				}
			}},
		{name: "and kept again", want: "skipped"},
	}
	root := testenv.WriteTree(t, map[string]string{
		"app/main.tf":       "module \"m\" {\n  source = \"../modules/a\"\n}\n",
		"modules/a/main.tf": `resource "terraform_data" "a" {}`,
		"modules/b/main.tf": `resource "terraform_data" "b" {}`,
	})
	kept := filepath.Join(t.TempDir(), "tfdata")
	env := testenv.RunEnv()
	for _, s := range steps {
		if s.change != nil {
			s.change(t, root, kept, env)
		}
		p, got := keptPlan(t, root, kept, env)
		if got != s.want {
			t.Fatalf("%s: init %q, want %q", s.name, got, s.want)
		}
		if s.check != nil {
			s.check(t, root, p)
		}
	}
}

// TestKeptDataDirBusy: a data directory another run holds is not shared: the plan gets a
// new one, as in CI.
func TestKeptDataDirBusy(t *testing.T) {
	root := testenv.WriteTree(t, map[string]string{"app/main.tf": `resource "terraform_data" "a" {}`})
	kept := filepath.Join(t.TempDir(), "tfdata")
	env := testenv.RunEnv()
	if _, got := keptPlan(t, root, kept, env); got != "no earlier init recorded" {
		t.Fatalf("first plan: init %q", got)
	}
	locks, _ := filepath.Glob(filepath.Join(kept, "*"+dataDirLockSuffix))
	if len(locks) != 1 {
		t.Fatalf("locks = %v, want one", locks)
	}
	unlock, ok := lockFile(locks[0])
	if !ok {
		t.Fatal("lock not free after the run")
	}
	defer unlock()
	ctx := context.Background()
	projects, err := project.Discover(ctx, root, config.Default())
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	run, err := Plan(ctx, PlanOptions{Env: Env{Root: root, TerraformEnv: env, Terraform: TerraformOptions{DataDirs: kept},
		Log: slog.New(slog.NewTextHandler(&log, nil))}, Projects: projects, Binary: testBinary(t)})
	if err != nil || run.Projects[0].Status != report.StatusPlanned {
		t.Fatalf("plan: %v %+v", err, run.Projects)
	}
	if strings.Contains(log.String(), "terraform init") {
		t.Errorf("the busy kept directory was used:\n%s", log.String())
	}
}

func TestRemoteModules(t *testing.T) {
	for rec, want := range map[string]string{
		``: "",
		`{"Modules":[{"Key":"","Source":"","Dir":"."},{"Key":"a","Source":"./a","Dir":"a"},{"Key":"a.b","Source":"../b","Dir":"b"}]}`: "",
		`{"Modules":[{"Key":"","Source":"","Dir":"."},{"Key":"vpc","Source":"registry.terraform.io/terraform-aws-modules/vpc/aws"}]}`: "module vpc comes from registry.terraform.io/terraform-aws-modules/vpc/aws",
		`{"Modules":[{"Key":"g","Source":"git::https://example.com/m.git?ref=main"}]}`:                                                "module g comes from git::https://example.com/m.git?ref=main",
		`{`: "unreadable",
	} {
		dir := t.TempDir()
		if rec != "" {
			if err := os.MkdirAll(filepath.Join(dir, "modules"), 0o700); err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(dir, "modules", "modules.json"), rec)
		}
		got := remoteModules(dir)
		if want == "" && got != "" || !strings.Contains(got, want) {
			t.Errorf("remoteModules(%s) = %q, want %q", rec, got, want)
		}
	}
}
