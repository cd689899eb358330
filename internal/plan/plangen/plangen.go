// Package plangen generates large, realistic `terraform show -json` plans for benchmarks
// (plan parsing, rendering, policy evaluation). The output is deterministic: the same n
// always gives the same bytes.
package plangen

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Generate returns a plan JSON with n resource changes, shaped like real terraform output:
// resource_changes with mixed actions (about half no-op, then create, update, delete,
// replace in both orders, data reads, moves and imports), nested blocks and maps, sensitive
// and unknown values, plus planned_values, prior_state and configuration sections sized
// as in a real plan, some resource_drift, output changes and variables.
func Generate(n int) []byte {
	g := &gen{}
	for i := 0; i < n; i++ {
		g.resource(i)
	}
	plan := map[string]any{
		"format_version":    "1.2",
		"terraform_version": "1.9.8",
		"applyable":         true,
		"complete":          true,
		"errored":           false,
		"timestamp":         "2026-11-29T12:00:00Z",
		"variables": map[string]any{
			"region":      map[string]any{"value": "eu-west-1"},
			"db_password": map[string]any{"value": "generated-variable-secret"},
		},
		"planned_values":      map[string]any{"outputs": g.plannedOutputs(), "root_module": g.planned.tree()},
		"resource_changes":    g.changes,
		"resource_drift":      g.drift,
		"output_changes":      g.outputChanges(),
		"prior_state":         map[string]any{"format_version": "1.0", "terraform_version": "1.9.8", "values": map[string]any{"root_module": g.prior.tree()}},
		"configuration":       map[string]any{"provider_config": providerConfig(), "root_module": g.config.tree()},
		"relevant_attributes": g.relevant,
	}
	out, err := json.Marshal(plan)
	if err != nil {
		panic(fmt.Sprintf("plangen: %v", err)) // only plain maps and slices: cannot happen
	}
	return out
}

type gen struct {
	changes, drift, relevant []any
	planned, prior, config   modules
}

// modules groups resource entries by module address, like planned_values/prior_state.
type modules struct {
	order []string
	by    map[string][]any
}

func (m *modules) add(module string, entry any) {
	if m.by == nil {
		m.by = map[string][]any{}
	}
	if _, ok := m.by[module]; !ok {
		m.order = append(m.order, module)
	}
	m.by[module] = append(m.by[module], entry)
}

func (m *modules) tree() map[string]any {
	root := map[string]any{"resources": m.by[""]}
	var children []any
	for _, mod := range m.order {
		if mod != "" {
			children = append(children, map[string]any{"address": mod, "resources": m.by[mod]})
		}
	}
	if len(children) > 0 {
		root["child_modules"] = children
	}
	return root
}

// action of resource i: ~50% no-op, the rest spread over every kind of change.
func action(i int) []any {
	switch i % 20 {
	case 10, 11, 12:
		return []any{"create"}
	case 13, 14, 15:
		return []any{"update"}
	case 16:
		return []any{"delete"}
	case 17:
		return []any{"delete", "create"}
	case 18:
		return []any{"create", "delete"}
	case 19:
		return []any{"read"}
	}
	return []any{"no-op"}
}

func (g *gen) resource(i int) {
	acts := action(i)
	k := kinds[i%len(kinds)]
	mode, typ := "managed", k.typ
	if acts[0] == "read" {
		k, mode, typ = dataKind, "data", dataKind.typ
	}
	name := fmt.Sprintf("r%d", i)
	module := ""
	if i%3 == 0 {
		module = fmt.Sprintf("module.app_%d", i/300)
	}
	addr := typ + "." + name
	if mode == "data" {
		addr = "data." + addr
	}
	if module != "" {
		addr = module + "." + addr
	}
	before, after := k.values(i, 0), k.values(i, 1)
	sens := k.sensitive()
	unknown := map[string]any{}
	rc := map[string]any{
		"address": addr, "mode": mode, "type": typ, "name": name,
		"provider_name": "registry.terraform.io/hashicorp/aws",
	}
	if module != "" {
		rc["module_address"] = module
	}
	change := map[string]any{"actions": acts, "before_sensitive": sens, "after_sensitive": sens}
	what := acts[0].(string)
	if len(acts) == 2 {
		what = "replace" // in either order
	}
	switch what {
	case "no-op":
		after = before
		if i%100 == 0 {
			rc["previous_address"] = strings.Replace(addr, name, name+"_old", 1)
		}
		if i%100 == 1 {
			change["importing"] = map[string]any{"id": fmt.Sprintf("imported-%d", i)}
		}
	case "create", "read":
		before = nil
		change["before_sensitive"] = false
		unknownComputed(k, after, unknown)
	case "delete":
		after = nil
		change["after_sensitive"] = false
		rc["action_reason"] = "delete_because_no_resource_config"
	case "update":
		after["id"] = before["id"]
	case "replace":
		unknownComputed(k, after, unknown)
		change["replace_paths"] = []any{[]any{k.forces}}
		rc["action_reason"] = "replace_because_cannot_update"
	}
	change["before"], change["after"], change["after_unknown"] = before, after, unknown
	rc["change"] = change
	g.changes = append(g.changes, rc)

	entry := func(values map[string]any) map[string]any {
		return map[string]any{
			"address": addr, "mode": mode, "type": typ, "name": name, "schema_version": 1,
			"provider_name": "registry.terraform.io/hashicorp/aws", "values": values, "sensitive_values": sens,
		}
	}
	if after != nil {
		g.planned.add(module, entry(after))
	}
	if before != nil {
		g.prior.add(module, entry(before))
	}
	g.config.add(module, configEntry(addr, mode, typ, name, after, before))
	if acts[0] == "no-op" && i%97 == 5 {
		g.driftEntry(rc, before, sens, i)
	}
	if i%50 == 13 {
		g.relevant = append(g.relevant, map[string]any{"resource": addr, "attribute": []any{"tags", "team"}})
	}
}

func (g *gen) driftEntry(rc map[string]any, before map[string]any, sens any, i int) {
	refreshed := map[string]any{}
	for k, v := range before {
		refreshed[k] = v
	}
	refreshed["tags"] = map[string]any{"Name": fmt.Sprintf("drifted-%d", i), "env": "prod", "changed_by": "console"}
	d := map[string]any{}
	for k, v := range rc {
		d[k] = v
	}
	d["change"] = map[string]any{
		"actions": []any{"update"}, "before": before, "after": refreshed, "after_unknown": map[string]any{},
		"before_sensitive": sens, "after_sensitive": sens,
	}
	g.drift = append(g.drift, d)
}

func configEntry(addr, mode, typ, name string, after, before map[string]any) map[string]any {
	v := after
	if v == nil {
		v = before
	}
	exprs := map[string]any{}
	for k, val := range v {
		switch k {
		case "id", "arn":
			continue
		case "tags":
			exprs[k] = map[string]any{"references": []any{"local.tags", "local"}}
		default:
			exprs[k] = map[string]any{"constant_value": val}
		}
	}
	return map[string]any{
		"address": strings.TrimPrefix(addr, "module."), "mode": mode, "type": typ, "name": name,
		"provider_config_key": "aws", "expressions": exprs, "schema_version": 1,
	}
}

func providerConfig() map[string]any {
	return map[string]any{"aws": map[string]any{
		"name": "aws", "full_name": "registry.terraform.io/hashicorp/aws", "version_constraint": "~> 5.0",
		"expressions": map[string]any{"region": map[string]any{"references": []any{"var.region"}}},
	}}
}

func (g *gen) plannedOutputs() map[string]any {
	out := map[string]any{}
	for o := 0; o < 20; o++ {
		out[fmt.Sprintf("output_%d", o)] = map[string]any{"sensitive": o == 3, "value": fmt.Sprintf("value-%d-new", o), "type": "string"}
	}
	return out
}

func (g *gen) outputChanges() map[string]any {
	out := map[string]any{}
	for o := 0; o < 20; o++ {
		acts, before := []any{"no-op"}, fmt.Sprintf("value-%d-new", o)
		if o%4 == 0 || o == 3 {
			acts, before = []any{"update"}, fmt.Sprintf("value-%d-old", o)
		}
		out[fmt.Sprintf("output_%d", o)] = map[string]any{
			"actions": acts, "before": before, "after": fmt.Sprintf("value-%d-new", o), "after_unknown": false,
			"before_sensitive": o == 3, "after_sensitive": o == 3,
		}
	}
	return out
}

func unknownComputed(k kind, after, unknown map[string]any) {
	for _, c := range k.computed {
		delete(after, c)
		unknown[c] = true
	}
}
