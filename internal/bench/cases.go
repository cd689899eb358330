package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tfgate/tfgate/internal/plan/plangen"
)

// Tools are the binaries the comparisons run.
type Tools struct {
	Tfgate, Terraform, Conftest string
	Policies                    string // the repository's policies/ directory
	Work                        string // scratch directory, removed afterwards
}

// env is the environment of every process: hermetic (no user config, no CI variables),
// the same for tfgate and for what it is compared with.
func (t Tools) env() []string {
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + filepath.Join(t.Work, "home"),
		"XDG_CACHE_HOME=" + filepath.Join(t.Work, "home", ".cache"),
		"TF_CLI_CONFIG_FILE=/dev/null",
		"TF_IN_AUTOMATION=1",
		"CHECKPOINT_DISABLE=1",
		"TFGATE_TERRAFORM=" + t.Terraform,
		"NO_COLOR=1",
	}
	return append(env, gitEnv...)
}

// A case is one comparison: a and b, and the rows it reports.
type Case struct {
	Name   string
	Rounds int
	Setup  func(ctx context.Context, t Tools) (a, b Sequence, err error)
	Rows   func(a, b Stats) []Row
	// Floor, when set, is a third side run in the same rounds: the commands of terraform's
	// that a must run itself, which tell a's own share of its time from theirs. FloorRows
	// reports it.
	Floor     func(ctx context.Context, t Tools) (Sequence, error)
	FloorRows func(a, b, floor Stats) []Row
}

// Row is one line of the table: a measured ratio and the target it must stay under.
type Row struct {
	What   string
	A, B   string // the two medians, formatted
	Ratio  float64
	Target float64
}

func (r Row) Pass() bool { return r.Ratio <= r.Target }

func wallRow(what string, target float64) func(a, b Stats) []Row {
	return func(a, b Stats) []Row {
		return []Row{{What: what, A: ms(a.Wall()), B: ms(b.Wall()), Ratio: ratio(a.Wall(), b.Wall()), Target: target}}
	}
}

func ratio[T ~int64](a, b T) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

var cases = []Case{
	{
		Name: "fixed", Rounds: 15,
		Setup: fixedCost,
		Rows:  wallCPURows("(a) tiny project: tfgate plan P ÷ terraform init && plan -out && show -json", 1.05),
	},
	{Name: "fixed-ci", Rounds: 15, Setup: fixedCostCI, Rows: wallCPURows("(a) the same in CI (CI=true: init every run, as terraform's side)", 1.05)},
	{Name: "large", Rounds: 7, Setup: largePlan, Rows: wallCPURows("(c) 10,000 terraform_data: tfgate plan P ÷ terraform plan (text)", 1.2),
		Floor: largeFloor, FloorRows: largeFloorRows},
	{Name: "replan", Rounds: 15, Setup: laptopReplan, Rows: wallRow("(f) laptop, nothing changed: second tfgate plan P ÷ terraform plan", 1.0)},
	{
		Name: "policy", Rounds: 5,
		Setup: policyEval,
		Rows: func(a, b Stats) []Row {
			return []Row{
				{What: "(b) policy eval, 10,000 changes: wall, tfgate ÷ conftest test --all-namespaces", A: ms(a.Wall()), B: ms(b.Wall()), Ratio: ratio(a.Wall(), b.Wall()), Target: 0.2},
				{What: "(b) policy eval, 10,000 changes: max RSS, tfgate ÷ conftest", A: mib(a.MaxRSS()), B: mib(b.MaxRSS()), Ratio: ratio(a.MaxRSS(), b.MaxRSS()), Target: 0.2},
				{What: "(b) policy eval, 10,000 changes: tfgate's max RSS ÷ the plan's size", A: mib(a.MaxRSS()), B: mib(policyPlanSize), Ratio: ratio(a.MaxRSS(), policyPlanSize), Target: 3},
				// The wall time's ratio on a busy machine swings by a third between runs; the CPU
				// time's, the work each does, much less.
				{What: "(b) policy eval, 10,000 changes: CPU (user+sys), tfgate ÷ conftest", A: ms(a.CPU()), B: ms(b.CPU()), Ratio: ratio(a.CPU(), b.CPU()), Target: 0.2},
			}
		},
	},
	{
		Name: "growth", Rounds: 11,
		Setup: projectsGrowth,
		Rows:  wallRow("(d) projects --changed: 500 projects/100 modules ÷ 50 projects/10 modules", 12),
	},
	{
		Name: "parallel", Rounds: 3,
		Setup: parallelPlan,
		Rows:  wallRow("(d) 40 projects: tfgate plan --all --parallel 2 ÷ sequential terraform loop", 0.6),
	},
	reuseCase, // cases_reuse.go
}

// fixedCost: one tiny project, `tfgate plan P` against the three terraform commands it
// stands for. Each side has its own checkout, already initialised after the warm-up round.
func fixedCost(ctx context.Context, t Tools) (Sequence, Sequence, error) {
	env := t.env()
	dirs := [2]string{filepath.Join(t.Work, "fixed-tfgate"), filepath.Join(t.Work, "fixed-raw")}
	for _, d := range dirs {
		if err := writeTree(d, map[string]string{"app/main.tf": smallProject(0)}); err != nil {
			return Sequence{}, Sequence{}, err
		}
		if err := commitAll(ctx, d, "tiny"); err != nil {
			return Sequence{}, Sequence{}, err
		}
	}
	a := Sequence{Name: "tfgate", Commands: []Command{{Args: []string{t.Tfgate, "plan", "app", "--publish", "none"}, Dir: dirs[0], Env: env}}}
	b := Sequence{Name: "terraform", Commands: rawPlan(t, filepath.Join(dirs[1], "app"), env)}
	return a, b, nil
}

// rawPlan is what a user runs by hand for one project.
func rawPlan(t Tools, dir string, env []string) []Command {
	return []Command{
		{Args: []string{t.Terraform, "init", "-input=false"}, Dir: dir, Env: env},
		{Args: []string{t.Terraform, "plan", "-input=false", "-out=tfplan"}, Dir: dir, Env: env},
		{Args: []string{t.Terraform, "show", "-json", "tfplan"}, Dir: dir, Env: env},
	}
}

// benchPolicies are the policies both tools evaluate: three of the default library and
// the helpers they share.
var benchPolicies = []string{"lib.rego", "protected_resources.rego", "blast_radius.rego", "required_tags.rego"}

// policyPlanSize is the size of policyEval's plan, for its peak-memory row.
var policyPlanSize int64

// policyEval: a generated plan of 10,000 resource changes, judged by tfgate and by conftest
// with the same Rego files.
func policyEval(ctx context.Context, t Tools) (Sequence, Sequence, error) {
	if t.Conftest == "" {
		return Sequence{}, Sequence{}, errSkip("no conftest (-conftest; `make bench` builds it into .bin/)")
	}
	dir := filepath.Join(t.Work, "policy")
	pols := filepath.Join(dir, "policies")
	files := map[string]string{"plan.json": string(plangen.Generate(10000))}
	policyPlanSize = int64(len(files["plan.json"]))
	for _, f := range benchPolicies {
		src, err := os.ReadFile(filepath.Join(t.Policies, f))
		if err != nil {
			return Sequence{}, Sequence{}, err
		}
		files["policies/"+f] = string(src)
	}
	if err := writeTree(dir, files); err != nil {
		return Sequence{}, Sequence{}, err
	}
	env := t.env()
	a := Sequence{Name: "tfgate", Commands: []Command{{Args: []string{t.Tfgate, "policy", "eval", "plan.json", "--policies", pols}, Dir: dir, Env: env, OK: []int{3}}}}
	b := Sequence{Name: "conftest", Commands: []Command{{Args: []string{t.Conftest, "test", "--all-namespaces", "--no-color", "-p", pols, "plan.json"}, Dir: dir, Env: env, OK: []int{1}}}}
	return a, b, nil
}

// projectsGrowth: the same command on a repository ten times larger.
func projectsGrowth(ctx context.Context, t Tools) (Sequence, Sequence, error) {
	large, small := filepath.Join(t.Work, "growth-500"), filepath.Join(t.Work, "growth-50")
	if err := monorepo(ctx, large, 5, 100, 100); err != nil {
		return Sequence{}, Sequence{}, err
	}
	if err := monorepo(ctx, small, 5, 10, 10); err != nil {
		return Sequence{}, Sequence{}, err
	}
	env := t.env()
	cmd := func(dir string) []Command {
		return []Command{{Args: []string{t.Tfgate, "projects", "--changed", "--base", "main", "--format", "json"}, Dir: dir, Env: env}}
	}
	return Sequence{Name: "500 projects", Commands: cmd(large)}, Sequence{Name: "50 projects", Commands: cmd(small)}, nil
}

// parallelPlan: 40 small projects planned by tfgate two at a time, against a loop running
// terraform on each in turn.
func parallelPlan(ctx context.Context, t Tools) (Sequence, Sequence, error) {
	dirs := [2]string{filepath.Join(t.Work, "parallel-tfgate"), filepath.Join(t.Work, "parallel-raw")}
	var names []string
	for _, d := range dirs {
		var err error
		if names, err = plansRepo(ctx, d, 40); err != nil {
			return Sequence{}, Sequence{}, err
		}
	}
	env := t.env()
	a := Sequence{Name: "tfgate", Commands: []Command{{Args: []string{t.Tfgate, "plan", "--all", "--parallel", "2", "--publish", "none"}, Dir: dirs[0], Env: env}}}
	b := Sequence{Name: "terraform loop"}
	for _, n := range names {
		b.Commands = append(b.Commands, rawPlan(t, filepath.Join(dirs[1], n), env)...)
	}
	return a, b, nil
}

type errSkip string

func (e errSkip) Error() string { return string(e) }

func ms[T ~int64](d T) string {
	v := float64(d) / 1e6
	if v >= 1000 {
		return fmt.Sprintf("%.2f s", v/1000)
	}
	return fmt.Sprintf("%.0f ms", v)
}

func mib(b int64) string { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }

// table writes the rows as an aligned table.
func table(rows []Row) string {
	var b strings.Builder
	width := len("comparison")
	for _, r := range rows {
		width = max(width, len([]rune(r.What)))
	}
	pad := func(s string, n int) string { return s + strings.Repeat(" ", max(0, n-len([]rune(s)))) }
	fmt.Fprintf(&b, "%s  %10s  %10s  %7s  %7s  %s\n", pad("comparison", width), "a", "b", "a ÷ b", "target", "")
	for _, r := range rows {
		verdict := "ok"
		if !r.Pass() {
			verdict = "OVER"
		}
		fmt.Fprintf(&b, "%s  %10s  %10s  %6.2f×  %s  %s\n", pad(r.What, width), r.A, r.B, r.Ratio, pad(fmt.Sprintf("≤%.2f×", r.Target), 7), verdict)
	}
	return b.String()
}
