package ci

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// parseOutputs reads $GITHUB_OUTPUT as the runner does (name=value or name<<DELIM … DELIM).
func parseOutputs(t *testing.T, data string) map[string]string {
	t.Helper()
	out := map[string]string{}
	lines := strings.Split(strings.TrimSuffix(data, "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		name, delim, ok := strings.Cut(lines[i], "<<")
		if !ok {
			k, v, _ := strings.Cut(lines[i], "=")
			out[k] = v
			continue
		}
		var val []string
		for i++; i < len(lines) && lines[i] != delim; i++ {
			val = append(val, lines[i])
		}
		out[name] = strings.Join(val, "\n")
	}
	return out
}

func TestWriteOutputsCannotBeInjected(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out")
	evil := "x\nEOF\nhas_changes=false\ninjected<<EOF\nboom\nEOF"
	if err := WriteOutputs(path, []Output{{"has_changes", "true"}, {"projects", evil}}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	got := parseOutputs(t, string(data))
	if len(got) != 2 || got["has_changes"] != "true" || got["projects"] != evil {
		t.Fatalf("outputs = %q", got)
	}
	if err := WriteOutputs(path, []Output{{"a\nb", "x"}}); err == nil {
		t.Error("a name with a newline must be refused")
	}
}

func TestAppendSummaryStaysUnderTheLimit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "summary")
	small := "# tfgate\n\nall good\n"
	if cut, err := AppendSummary(path, small); err != nil || cut {
		t.Fatalf("small summary: cut %v, err %v", cut, err)
	}
	big := strings.Repeat("| `envs/app` | +1 ü |\n", 80000) // ~1.7 MB
	cut, err := AppendSummary(path, big)
	if err != nil || !cut {
		t.Fatalf("big summary: cut %v, err %v", cut, err)
	}
	data, _ := os.ReadFile(path)
	if len(data) > MaxSummaryBytes {
		t.Fatalf("summary is %d bytes, over GitHub's %d", len(data), MaxSummaryBytes)
	}
	if !strings.HasPrefix(string(data), small) || !strings.Contains(string(data), "The job summary is cut here") {
		t.Fatalf("summary lost its start or does not say it was cut")
	}
}
