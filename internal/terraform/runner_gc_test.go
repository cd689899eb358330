package terraform

import (
	"context"
	"maps"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunnerGCPercent checks that GCPercent becomes terraform's GOGC for every command, and
// that a GOGC or GOMEMLIMIT the caller gives wins (a memory limit of the user's is never
// loosened by a GOGC of ours).
func TestRunnerGCPercent(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		env       map[string]string
		gcPercent int
		want      string // "" = not set
	}{
		{name: "unset", want: ""},
		{name: "set", gcPercent: 200, want: "200"},
		{name: "caller's GOGC wins", env: map[string]string{"GOGC": "50"}, gcPercent: 200, want: "50"},
		{name: "caller's GOMEMLIMIT wins", env: map[string]string{"GOMEMLIMIT": "1GiB"}, gcPercent: 200, want: ""},
		{name: "an empty GOGC is Go's default", env: map[string]string{"GOGC": ""}, gcPercent: 200, want: "200"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			checkTerraformEnv(t, tc.env, RunnerOptions{GCPercent: tc.gcPercent}, "GOGC", tc.want)
		})
	}
}

// checkTerraformEnv runs init, plan and show with a fake terraform that records its
// environment, and checks that name is want there in each ("" = not set). env is the
// caller's environment for terraform; opts.Env is set from it.
func checkTerraformEnv(t *testing.T, env map[string]string, opts RunnerOptions, name, want string) {
	t.Helper()
	tmp := t.TempDir()
	dump := filepath.Join(tmp, "env")
	script := `/usr/bin/env > "$DUMP"`
	bin := writeFake(t, filepath.Join(tmp, "bin"), "terraform", "1.5.7", map[string]string{"init": script, "plan": script, "show": script})
	opts.Env = map[string]string{"DUMP": dump}
	maps.Copy(opts.Env, env)
	r, err := NewRunner(tmp, Binary{Path: bin, Flavor: FlavorTerraform}, opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, sub := range []string{"init", "plan", "show"} {
		switch sub {
		case "init":
			err = r.Init(ctx)
		case "plan":
			_, err = r.Plan(ctx, PlanOptions{})
		case "show":
			_, _ = r.ShowPlan(ctx, "p") // the fake prints no JSON
			err = nil
		}
		if err != nil {
			t.Fatalf("%s: %v", sub, err)
		}
		got, set := "", false
		for _, line := range strings.Split(readFile(t, dump), "\n") {
			if v, ok := strings.CutPrefix(line, name+"="); ok {
				got, set = v, true
			}
		}
		if got != want || set != (want != "") {
			t.Errorf("%s: %s = %q (set %v), want %q", sub, name, got, set, want)
		}
	}
}
