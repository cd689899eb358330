package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tfgate/tfgate/internal/metrics"
)

func TestMetricsFlagErrors(t *testing.T) {
	dir := t.TempDir()
	for _, cmd := range []string{"plan", "apply", "drift"} {
		file := filepath.Join(dir, cmd+".json")
		code, _, stderr := run(t, nil, cmd, "--metrics", file, "--metrics-format", "prom")
		if code != ExitError || !strings.Contains(stderr, `--metrics-format "prom": want one of json, openmetrics`) {
			t.Errorf("%s: exit %d, %q", cmd, code, stderr)
		}
		if _, err := os.Stat(file); err == nil {
			t.Errorf("%s: a metrics file in a format nobody asked for", cmd)
		}
	}
}

// A command that stops before it runs anything still writes its numbers: the exit code and
// the GitHub calls are what an alert on a broken pipeline needs.
func TestMetricsWrittenWhenTheRunFails(t *testing.T) {
	dir := t.TempDir()
	for _, cmd := range []string{"plan", "apply", "drift"} {
		t.Run(cmd, func(t *testing.T) {
			file := filepath.Join(dir, cmd+".json")
			code, _, _ := run(t, nil, "-C", filepath.Join(dir, "nope"), cmd, "--metrics", file)
			if code != ExitError {
				t.Fatalf("exit %d", code)
			}
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var m metrics.Metrics
			if err := json.Unmarshal(data, &m); err != nil {
				t.Fatal(err)
			}
			if m.Command != cmd || m.ExitCode != ExitError || m.Projects == nil || len(m.Projects) != 0 || m.Started.IsZero() {
				t.Errorf("metrics %+v", m)
			}

			prom := filepath.Join(dir, cmd+".prom")
			run(t, nil, "-C", filepath.Join(dir, "nope"), cmd, "--metrics", prom, "--metrics-format", "openmetrics")
			text, err := os.ReadFile(prom)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(text), `tfgate_run_exit_code{command="`+cmd+`"} 1`+"\n") || !strings.HasSuffix(string(text), "# EOF\n") {
				t.Errorf("openmetrics:\n%s", text)
			}
		})
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*.tmp")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

func TestMetricsWriteError(t *testing.T) {
	repo := t.TempDir()
	if out, err := exec.Command("git", "-C", repo, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out) // git is required, as everywhere in these tests
	}
	missing := filepath.Join(t.TempDir(), "no", "such", "dir", "m.json")
	// A run that succeeds (no projects at all) fails on the file it could not write.
	code, _, stderr := run(t, nil, "-C", repo, "plan", "--all", "--metrics", missing)
	if code != ExitError || !strings.Contains(stderr, "--metrics: open "+filepath.Dir(missing)) {
		t.Errorf("exit %d, %q", code, stderr)
	}
	// A run that fails keeps its own error; the file is a warning.
	code, _, stderr = run(t, nil, "-C", repo, "plan", "--all", "--parallel", "-1", "--metrics", missing)
	if code != ExitError || !strings.Contains(stderr, "--parallel -1") || !strings.Contains(stderr, "warning: --metrics: open") {
		t.Errorf("exit %d, %q", code, stderr)
	}
}
