package pipeline

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/tfgate/tfgate/internal/testenv"
)

// largePlanResources is the size of BenchmarkLargePlan's project; TFGATE_BENCH_RESOURCES
// overrides it (a quicker look while changing things).
const largePlanResources = 10000

// BenchmarkLargePlan compares, as whole processes taking turns, `tfgate plan PROJECT` with
// what a user would otherwise run: raw `terraform plan` with its text output, on a project
// of 10,000 terraform_data resources (all to create: terraform's text rendering of the
// changes is what -json skips). Both start from the same initialised directory; tfgate
// runs its init, workspace, plan -json, show -json, decoding and rendering. Target:
// tfgate/raw (the ratio of the median wall times) ≤ 1.2 (issue 32; `make bench`, row (c));
// pair-ratio (the median of each pair's ratio) and cpu-ratio (of CPU times) say how much of
// it is the machine's noise. One iteration is one pair (about 10–30 s):
//
//	go test -run '^$' -bench LargePlan -benchtime 5x ./internal/pipeline
//
// TFGATE_BENCH_TFGATE names a tfgate binary to measure instead of building this tree's
// (to measure an older tfgate on the same machine, in the same minutes).
func BenchmarkLargePlan(b *testing.B) {
	n := largePlanResources
	if s := os.Getenv("TFGATE_BENCH_RESOURCES"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			b.Fatalf("TFGATE_BENCH_RESOURCES=%q: %v", s, err)
		}
	}
	tf := testBinary(b)
	tfgate := os.Getenv("TFGATE_BENCH_TFGATE")
	if tfgate == "" {
		tfgate = filepath.Join(b.TempDir(), "tfgate")
		build := exec.Command("go", "build", "-o", tfgate, "./cmd/tfgate")
		build.Dir = testenv.RepoRoot(b)
		if out, err := build.CombinedOutput(); err != nil {
			b.Fatalf("go build: %v\n%s", err, out)
		}
	}

	root := testenv.WriteTree(b, map[string]string{"p/main.tf": benchProject(n)})
	dir := filepath.Join(root, "p")
	env := testenv.RunEnv()
	env["HOME"] = b.TempDir()
	env["CHECKPOINT_DISABLE"] = "1"
	env["TFGATE_TERRAFORM"] = tf.Path
	env["GIT_CONFIG_GLOBAL"] = "/dev/null"
	var environ []string
	for k, v := range env {
		environ = append(environ, k+"="+v)
	}
	// run returns a command's wall time and its CPU time (user and system, its terraform
	// processes included: they are waited-for children). On a shared machine the CPU time
	// moves less with the neighbours' load than the wall time does.
	run := func(dir string, name string, args ...string) sample {
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env = dir, environ
		start := time.Now()
		out, err := cmd.CombinedOutput()
		d := time.Since(start)
		if err != nil {
			b.Fatalf("%s %v: %v\n%.2000s", name, args, err, out)
		}
		return sample{wall: d, cpu: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}
	}
	run(root, "git", "init", "-q", "-b", "main")
	run(root, "git", "-c", "user.name=bench", "-c", "user.email=bench@example.com", "add", "-A")
	run(root, "git", "-c", "user.name=bench", "-c", "user.email=bench@example.com", "commit", "-qm", "bench")
	run(dir, tf.Path, "init", "-input=false", "-no-color")

	var raw, gate []sample
	for i := 0; b.Loop(); i++ {
		// Take turns, and change who goes first, so that neither always runs on a machine
		// the other has just warmed (or loaded).
		rawPlan := func() {
			raw = append(raw, run(dir, tf.Path, "plan", "-input=false", "-out="+filepath.Join(root, "raw.tfplan")))
		}
		gatePlan := func() { gate = append(gate, run(root, tfgate, "plan", "p")) }
		if i%2 == 0 {
			rawPlan()
			gatePlan()
		} else {
			gatePlan()
			rawPlan()
		}
	}
	var rawWall, gateWall, rawCPU, gateCPU, pairs []float64
	for i := range raw {
		rawWall, gateWall = append(rawWall, raw[i].wall.Seconds()), append(gateWall, gate[i].wall.Seconds())
		rawCPU, gateCPU = append(rawCPU, raw[i].cpu.Seconds()), append(gateCPU, gate[i].cpu.Seconds())
		pairs = append(pairs, gate[i].wall.Seconds()/raw[i].wall.Seconds())
	}
	b.ReportMetric(median(rawWall), "raw-s")
	b.ReportMetric(median(gateWall), "tfgate-s")
	b.ReportMetric(median(gateWall)/median(rawWall), "tfgate/raw")
	b.ReportMetric(median(pairs), "pair-ratio")
	b.ReportMetric(median(gateCPU)/median(rawCPU), "cpu-ratio")
	b.Logf("%d resources, %d pairs (seconds): raw terraform plan wall %.2f, cpu %.2f; tfgate plan wall %.2f, cpu %.2f",
		n, len(raw), rawWall, rawCPU, gateWall, gateCPU)
	b.Logf("tfgate/raw: %.2f× (medians of wall time), %.2f× (median of each pair's ratio), %.2f× (medians of CPU time)",
		median(gateWall)/median(rawWall), median(pairs), median(gateCPU)/median(rawCPU))
}

type sample struct{ wall, cpu time.Duration }

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
