package terraform

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestRunning counts terraform processes from start to exit, and a cancelled context
// starts none. Not parallel: the count is process-wide.
func TestRunning(t *testing.T) {
	tmp := t.TempDir()
	bin := writeFake(t, filepath.Join(tmp, "bin"), "terraform", "1.5.7", map[string]string{"plan": `
echo started > "$STARTED"
trap 'exit 130' INT
while :; do /bin/sleep 0.05 >/dev/null 2>&1; done`})
	started := filepath.Join(tmp, "started")
	r, err := NewRunner(tmp, Binary{Path: bin, Flavor: FlavorTerraform}, RunnerOptions{Env: map[string]string{"STARTED": started}})
	if err != nil {
		t.Fatal(err)
	}
	if n := Running(); n != 0 {
		t.Fatalf("Running() = %d before any command", n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := r.Plan(ctx, PlanOptions{})
		done <- err
	}()
	waitFile(t, started)
	if n := Running(); n != 1 {
		t.Errorf("Running() = %d while terraform plans, want 1", n)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(time.Minute): // generous: only "it stops"
		t.Fatal("plan did not return after cancellation")
	}
	if n := Running(); n != 0 {
		t.Errorf("Running() = %d after terraform exited, want 0", n)
	}

	// With the context already done, nothing starts.
	os.Remove(started)
	if _, err := r.Plan(ctx, PlanOptions{}); err == nil {
		t.Error("plan with a cancelled context succeeded")
	}
	if _, err := os.Stat(started); err == nil {
		t.Error("terraform started although the context was cancelled")
	}
	if n := Running(); n != 0 {
		t.Errorf("Running() = %d after a cancelled start, want 0", n)
	}
}
