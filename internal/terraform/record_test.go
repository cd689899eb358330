//go:build unix

package terraform

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"testing"
)

// The plan file carries the lineage and serial of the state it was made on: none for the
// first plan, the applied state's for the next; StateMeta reads the same from the backend.
func TestPlanPriorStateAndStateMeta(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r, dir, _ := newTestRunnerWith(t, realTerraform(t), map[string]string{"main.tf": dataConfig}, testEnv(t))
	if _, err := r.Plan(ctx, PlanOptions{Out: "first.tfplan"}); err != nil {
		t.Fatal(err)
	}
	prior, err := PlanPriorState(dir + "/first.tfplan")
	if err != nil {
		t.Fatal(err)
	}
	if prior.Lineage != "" {
		t.Errorf("first plan's prior state = %v, want none", prior)
	}
	if err := r.Apply(ctx, "first.tfplan", ApplyOptions{}); err != nil {
		t.Fatal(err)
	}
	cur, err := r.StateMeta(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if cur.Lineage == "" || cur.Serial == 0 {
		t.Fatalf("state after apply = %v", cur)
	}
	if _, err := r.Plan(ctx, PlanOptions{Out: "second.tfplan"}); err != nil {
		t.Fatal(err)
	}
	if second, err := PlanPriorState(dir + "/second.tfplan"); err != nil || second != cur {
		t.Errorf("second plan's prior state = %v, %v; want the state %v", second, err, cur)
	}
	if _, err := PlanPriorState(dir + "/main.tf"); err == nil {
		t.Error("PlanPriorState read a file that is no plan")
	}
}

// Apply's output goes to files, not pipes: a pipe breaks when tfgate dies and kills
// terraform (SIGPIPE) in the middle of an apply. What the command writes reaches the
// writers in full, however much.
func TestFollowOutputIsFilesAndCopiesAll(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("sh", "-c", `
		for fd in 1 2; do [ -f /proc/self/fd/$fd ] || { echo "fd $fd is not a regular file" >&2; exit 3; }; done
		i=0; while [ $i -lt 20000 ]; do echo "line $i"; i=$((i+1)); done
		echo "to stderr" >&2`)
	var stdout, stderr bytes.Buffer
	out, err := followOutput(cmd, &stdout, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	if err := out.run(cmd); err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(lines) != 20000 || lines[19999] != "line 19999" {
		t.Errorf("stdout has %d lines, last %q", len(lines), lines[len(lines)-1])
	}
	if stderr.String() != "to stderr\n" {
		t.Errorf("stderr = %q", stderr.String())
	}
}
