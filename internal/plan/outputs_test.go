package plan

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Terraform 0.14 and later put the planned values of new outputs into prior_state; such an
// output is new, not unchanged. The fixtures were made with terraform 1.5.7: a fresh
// configuration with two outputs, then (after apply) one kept, one changed and one added.
func TestSummariseOutputsRealTerraform(t *testing.T) {
	tests := []struct {
		file string
		want string
	}{
		{"outputs-new-1.5.7.json", `create o null → "n"; create p null → "x"`},
		{"outputs-changed-1.5.7.json", `update p "x" → "y"; create q null → "z"`},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			c := Summarise(decodePlan(t, string(data)), Options{})
			if got := outputLines(c.Outputs); got != tt.want {
				t.Errorf("outputs = %s, want %s", got, tt.want)
			}
			if c.Summary.Outputs != 2 || !c.Summary.HasChanges() || len(c.Warnings) != 0 {
				t.Errorf("summary = %+v, warnings = %q", c.Summary, c.Warnings)
			}
		})
	}
}

// Only plans from before Terraform 0.14 call every output "create"; which plans those are
// comes from terraform_version, or without one, from the sensitivity markers 0.14 added.
func TestSummariseOutputsByVersion(t *testing.T) {
	const (
		sameUnmarked = `"same":{"actions":["create"],"before":null,"after":"v"}`
		sameMarked   = `"same":{"actions":["create"],"before":null,"after":"v","after_unknown":false,"before_sensitive":false,"after_sensitive":false}`
		prior        = `"prior_state":{"values":{"outputs":{"same":{"sensitive":false,"value":"v"}}}},"planned_values":{"outputs":{"same":{"sensitive":false}}}`
	)
	tests := []struct {
		name, version, change string
		wantListed            bool
	}{
		{"0.12", `"0.12.11"`, sameUnmarked, false},
		{"0.13", `"0.13.7"`, sameUnmarked, false},
		{"0.14", `"0.14.0"`, sameMarked, true},
		{"0.15 beta", `"0.15.0-beta2"`, sameMarked, true},
		{"1.1 dev", `"1.1.0-dev"`, sameMarked, true},
		{"1.2 rc", `"1.2.0-rc1"`, sameMarked, true},
		{"1.10", `"1.10.3"`, sameMarked, true},
		{"no version, markers", `""`, sameMarked, true},
		{"no version, no markers", `""`, sameUnmarked, false},
		{"garbage version, markers", `"dev"`, sameMarked, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := decodePlan(t, `{"format_version":"0.1","terraform_version":`+tt.version+`,`+prior+`,"output_changes":{`+tt.change+`}}`)
			c := Summarise(p, Options{})
			if listed := len(c.Outputs) == 1; listed != tt.wantListed {
				t.Fatalf("listed = %v, want %v (outputs %+v)", listed, tt.wantListed, c.Outputs)
			}
			warned := strings.Contains(strings.Join(c.Warnings, "\n"), "1 output is not listed")
			if warned == tt.wantListed {
				t.Errorf("warnings = %q; an output left out must be said, a listed one must not", c.Warnings)
			}
			if want := map[bool]int{true: 1}[tt.wantListed]; c.Summary.Outputs != want {
				t.Errorf("summary.outputs = %d, want %d", c.Summary.Outputs, want)
			}
		})
	}
}

func outputLines(outs []Output) string {
	parts := make([]string, len(outs))
	for i, o := range outs {
		parts[i] = string(o.Action) + " " + o.Name + " " + o.Before.Text + " → " + o.After.Text
	}
	return strings.Join(parts, "; ")
}
