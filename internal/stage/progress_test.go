package stage

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/project"
	"github.com/tfgate/tfgate/internal/report"
	"github.com/tfgate/tfgate/internal/terraform"
	"github.com/tfgate/tfgate/internal/testenv"
)

// TestDetailerThrottles checks that thousands of counts a second become a few details a
// second, and that a new kind of news (the summary) is never held back.
func TestDetailerThrottles(t *testing.T) {
	now := time.Unix(0, 0)
	var got []string
	d := NewDetailer(func() time.Time { return now }, func(s string) { got = append(got, s) }, terraform.PlanDetail)
	p := terraform.Progress{}
	for i := 1; i <= 10000; i++ {
		p.Refreshing, p.Refreshed = i, i
		d.Update(p)
		now = now.Add(100 * time.Microsecond) // 10,000 a second: one second in all
	}
	p.Planned = 1
	d.Update(p)
	p.Summary = &terraform.ChangeSummary{Change: 1}
	d.Update(p)
	d.Update(p) // the same again says nothing
	if len(got) < 4 || len(got) > 7 {
		t.Errorf("%d details for a second of refreshes: %q", len(got), got)
	}
	if got[0] != "1 resource refreshed" || got[len(got)-2] != "1 change planned" || got[len(got)-1] != "0 to add, 1 to change, 0 to destroy" {
		t.Errorf("details %q", got)
	}
}

// detailLog is a Progress that keeps each project's details.
type detailLog struct {
	recordingProgress
	mu      sync.Mutex
	details []string
}

func (l *detailLog) Detail(_, d string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.details = append(l.details, d)
}

// TestPlanReportsDetail plans a real project whose resources are in the state and checks
// that its progress says how far terraform got, in terraform's own counts.
func TestPlanReportsDetail(t *testing.T) {
	t.Parallel()
	bin := testBinary(t)
	root := testenv.WriteTree(t, map[string]string{"p/main.tf": "resource \"terraform_data\" \"r\" {\n  count = 3\n  input = count.index\n}\n"})
	env := testenv.RunEnv()
	cmd := exec.Command(bin.Path, "init", "-input=false")
	cmd.Dir = filepath.Join(root, "p")
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	apply := exec.Command(bin.Path, "apply", "-auto-approve", "-input=false")
	apply.Dir, apply.Env = cmd.Dir, cmd.Env
	for _, c := range []*exec.Cmd{cmd, apply} {
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", c.Args, err, out)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "p", "main.tf"), []byte("resource \"terraform_data\" \"r\" {\n  count = 2\n  input = count.index\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	projects, err := project.Discover(context.Background(), root, config.Default())
	if err != nil {
		t.Fatal(err)
	}
	progress := &detailLog{}
	run, err := Plan(context.Background(), PlanOptions{Env: Env{Root: root, TerraformEnv: env, Progress: progress}, Projects: projects, Binary: bin})
	if err != nil || run.Projects[0].Status != report.StatusPlanned {
		t.Fatalf("plan: %v %+v", err, run.Projects)
	}
	// The three refreshes come faster than a detail each; the summary always shows.
	if len(progress.details) == 0 || !strings.HasSuffix(progress.details[0], "refreshed") ||
		!slices.Contains(progress.details, "0 to add, 0 to change, 1 to destroy") {
		t.Errorf("details %q", progress.details)
	}
}
