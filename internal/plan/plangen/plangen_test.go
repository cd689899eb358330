package plangen

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestGenerate(t *testing.T) {
	a, b := Generate(120), Generate(120)
	if !bytes.Equal(a, b) {
		t.Fatal("Generate is not deterministic")
	}
	var p struct {
		FormatVersion   string           `json:"format_version"`
		ResourceChanges []map[string]any `json:"resource_changes"`
		ResourceDrift   []any            `json:"resource_drift"`
		PlannedValues   map[string]any   `json:"planned_values"`
		PriorState      map[string]any   `json:"prior_state"`
		Configuration   map[string]any   `json:"configuration"`
		OutputChanges   map[string]any   `json:"output_changes"`
	}
	if err := json.Unmarshal(a, &p); err != nil {
		t.Fatal(err)
	}
	if p.FormatVersion == "" || len(p.ResourceChanges) != 120 || len(p.ResourceDrift) == 0 ||
		p.PlannedValues == nil || p.PriorState == nil || p.Configuration == nil || len(p.OutputChanges) != 20 {
		t.Errorf("plan lacks sections: %d changes, %d drift", len(p.ResourceChanges), len(p.ResourceDrift))
	}
	actions := map[string]bool{}
	for _, rc := range p.ResourceChanges {
		b, _ := json.Marshal(rc["change"].(map[string]any)["actions"])
		actions[string(b)] = true
	}
	for _, want := range []string{`["no-op"]`, `["create"]`, `["update"]`, `["delete"]`, `["delete","create"]`, `["create","delete"]`, `["read"]`} {
		if !actions[want] {
			t.Errorf("no resource with actions %s", want)
		}
	}
}
