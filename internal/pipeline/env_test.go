package pipeline

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/report"
	"github.com/tfgate/tfgate/internal/stage"
	"github.com/tfgate/tfgate/internal/testenv"
)

// Every runner fills in its environment with stage.Env.Defaults, and none has defaults of
// its own: called with an Env that says only where the repository is and how to run
// terraform (no logger, warnings, masker, progress or clock), plan and drift log, publish
// warns and recover reads the clock without panicking, gate, apply and notify-stale refuse
// to run without GitHub, and none writes to the process's stdout or stderr.
func TestRunnersDefaultTheirEnv(t *testing.T) {
	fx := newRunFixture(t, nil) // its repository, and its fake terraform: no real one needed
	env := stage.Env{Root: fx.root, Config: config.Default(), TerraformEnv: testenv.RunEnv(), Parallel: 1}
	withTerraform := func(*testing.T) stage.Env {
		e := env
		e.Terraform.Override = fx.tf
		return e
	}
	ctx := context.Background()
	runners := []struct {
		name string
		run  func(t *testing.T) error
		want string // in the error; "" = none
	}{
		{"plan", func(t *testing.T) error { // logs the terraform found
			run, err := RunPlan(ctx, PlanRequest{Env: withTerraform(t), Names: []string{"app"}})
			return endedAs(run, report.StatusPlanned, err)
		}, ""},
		{"drift", func(t *testing.T) error { // logs the terraform found
			run, err := RunDrift(ctx, DriftRequest{Env: withTerraform(t), Names: []string{"app"}})
			return endedAs(run, report.StatusPending, err)
		}, ""},
		{"publish", func(t *testing.T) error { // warns that nothing is expected
			_, err := RunPublish(ctx, PublishRequest{Env: env, Dirs: []string{t.TempDir()}})
			return err
		}, "holds no tfgate-result.json"},
		{"recover", func(*testing.T) error { // reads the clock
			_, err := RunRecover(ctx, RecoverRequest{Env: env, Names: []string{"app"}})
			return err
		}, ""},
		{"gate", func(*testing.T) error { _, err := RunGate(ctx, GateRequest{Env: env}); return err }, "GITHUB_TOKEN"},
		{"apply", func(*testing.T) error { _, err := RunApply(ctx, ApplyRequest{Env: env}); return err }, "GitHub"},
		{"notify-stale", func(*testing.T) error { _, err := RunNotifyStale(ctx, StaleRequest{Env: env}); return err }, "GITHUB_TOKEN"},
	}
	for _, r := range runners {
		t.Run(r.name, func(t *testing.T) {
			var err error
			out := captureOutput(t, func() { err = r.run(t) })
			if (r.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), r.want)) {
				t.Errorf("err = %v, want %q", err, r.want)
			}
			if out != "" {
				t.Errorf("wrote %q to stdout or stderr, want nothing", out)
			}
		})
	}
}

// endedAs is err, or an error when run's one project did not end as want.
func endedAs(run report.Run, want report.Status, err error) error {
	if err == nil && (len(run.Projects) != 1 || run.Projects[0].Status != want) {
		return fmt.Errorf("run %s, want app:%s", statuses(run.Projects), want)
	}
	return err
}

// captureOutput runs f with the process's stdout and stderr going to a pipe and returns
// what was written.
func captureOutput(t *testing.T, f func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, stderr := os.Stdout, os.Stderr
	os.Stdout, os.Stderr = w, w
	read := make(chan []byte)
	go func() { b, _ := io.ReadAll(r); read <- b }()
	restore := func() {
		os.Stdout, os.Stderr = stdout, stderr
		w.Close()
	}
	defer func() { // when f fails the test
		if os.Stdout == w {
			restore()
		}
	}()
	f()
	restore()
	return string(<-read)
}
