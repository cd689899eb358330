// Command bench measures tfgate against what a user would otherwise run, as whole
// processes side by side, and prints the ratios (`make bench`):
//
//	(a) fixed cost: `tfgate plan P` on a tiny project ÷ terraform init, plan -out, show -json
//	(b) `tfgate policy eval` ÷ `conftest test --all-namespaces` on a 10,000-change plan,
//	    wall time and peak memory
//	(c) `tfgate plan P` on 10,000 terraform_data ÷ raw `terraform plan` with its text output
//	(d) `tfgate projects --changed` on 500 projects and 100 modules ÷ on 50 and 10; and 40
//	    small projects planned with --parallel 2 ÷ a sequential terraform loop
//	(e) a push to a pull request changing 1 of 40 planned projects, reusing the other 39
//	    plans ÷ a pull request changing that one alone; and the push's API calls with reuse
//	    ÷ without (cases_reuse.go)
//	(f) a laptop's second `tfgate plan P`, nothing changed (init skipped) ÷ `terraform plan`
//
// The two sides of a comparison run alternately in one loop and are summarised by their
// medians, so that the load of a shared machine falls on both: only the ratios are
// meaningful, never the times themselves. Nothing here is a test: tests never assert
// timings.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

func main() {
	var (
		t      Tools
		only   string
		rounds int
	)
	flag.StringVar(&t.Tfgate, "tfgate", ".bin/tfgate", "the tfgate binary")
	flag.StringVar(&t.Terraform, "terraform", ".bin/terraform", "the terraform binary both sides run")
	flag.StringVar(&t.Conftest, "conftest", ".bin/conftest", "the conftest binary (\"\" skips the policy comparison)")
	flag.StringVar(&t.Policies, "policies", "policies", "the directory of tfgate's default policies")
	flag.StringVar(&only, "only", "", "comma-separated cases to run (fixed, policy, growth, parallel, reuse, large, replan, fixed-ci); default all")
	flag.IntVar(&rounds, "rounds", 0, "rounds per comparison (default: each case's own)")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, t, only, rounds); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, t Tools, only string, rounds int) error {
	for _, p := range []*string{&t.Tfgate, &t.Terraform, &t.Conftest, &t.Policies} {
		if *p == "" {
			continue
		}
		abs, err := filepath.Abs(*p)
		if err != nil {
			return err
		}
		*p = abs
	}
	if _, err := os.Stat(t.Conftest); t.Conftest != "" && err != nil {
		t.Conftest = ""
	}
	work, err := os.MkdirTemp("", "tfgate-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	t.Work = work

	loadBefore := loadAverage()
	var rows []Row
	var skipped []string
	for _, c := range cases {
		if only != "" && !slices.Contains(strings.Split(only, ","), c.Name) {
			continue
		}
		n := c.Rounds
		if rounds > 0 {
			n = rounds
		}
		r, err := runCase(ctx, c, t, n)
		var skip errSkip
		if errors.As(err, &skip) {
			skipped = append(skipped, fmt.Sprintf("%s: skipped: %s", c.Name, skip))
			continue
		}
		if err != nil {
			return fmt.Errorf("%s: %w", c.Name, err)
		}
		rows = append(rows, r...)
	}
	fmt.Print("\n" + table(rows))
	for _, s := range skipped {
		fmt.Println(s)
	}
	fmt.Println("a and b are medians of alternating runs; only the ratios compare (the machine is shared).")
	fmt.Printf("%d CPUs; load average (1 min) %s before, %s after: the parallel comparison needs idle CPUs to mean anything.\n",
		runtime.NumCPU(), loadBefore, loadAverage())
	return nil
}

// runCase sets c up and runs its sides (its floor too, when it has one) n rounds; an
// errSkip says it cannot run here.
func runCase(ctx context.Context, c Case, t Tools, n int) ([]Row, error) {
	fmt.Fprintf(os.Stderr, "== %s: setting up\n", c.Name)
	a, b, err := c.Setup(ctx, t)
	if err != nil {
		return nil, err
	}
	seqs := []Sequence{a, b}
	if c.Floor != nil {
		floor, err := c.Floor(ctx, t)
		if err != nil {
			return nil, err
		}
		seqs = append(seqs, floor)
	}
	st, err := compare(ctx, seqs, n, func(s string) { fmt.Fprintf(os.Stderr, "   %s %s\n", c.Name, s) })
	if err != nil {
		return nil, err
	}
	rows := c.Rows(st[0], st[1])
	if c.Floor != nil {
		rows = append(rows, c.FloorRows(st[0], st[1], st[2])...)
	}
	return rows, nil
}

// loadAverage is the machine's one-minute load average, "?" where /proc does not say.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) > 0 {
		return f[0]
	}
	return "?"
}
