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

func TestHostile(t *testing.T) {
	a, b := Hostile(1, 80), Hostile(1, 80)
	if !bytes.Equal(a, b) {
		t.Fatal("Hostile is not deterministic")
	}
	var p struct {
		ResourceChanges []map[string]any `json:"resource_changes"`
		ResourceDrift   []any            `json:"resource_drift"`
		OutputChanges   map[string]any   `json:"output_changes"`
	}
	if err := json.Unmarshal(a, &p); err != nil {
		t.Fatal(err)
	}
	if len(p.ResourceChanges) != 80 || len(p.ResourceDrift) == 0 || len(p.OutputChanges) == 0 {
		t.Errorf("plan lacks sections: %d changes, %d drift, %d outputs", len(p.ResourceChanges), len(p.ResourceDrift), len(p.OutputChanges))
	}
	for _, want := range []string{`::error::forged`, `##[group]`, `\n`, `\u001b[31m`, `"before_sensitive":true`, `"replace_paths"`, `\ufffd`, `"previous_address"`, `"importing"`} {
		if !bytes.Contains(a, []byte(want)) {
			t.Errorf("plan holds no %s", want)
		}
	}
}
