package plangen

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
)

// Hostile returns a plan JSON of n resource changes with random values, for equivalence
// tests of what reads and renders plans: nested lists and maps, sensitive and unknown
// markers anywhere (whole values and parts), strings that start workflow commands (`::`,
// `##[`), hold newlines, ANSI escapes, bidi overrides, invalid UTF-8 or are very long, keys
// that need quoting, every action, replace paths, moves, imports, drift and outputs. The
// same seed and n always give the same bytes.
func Hostile(seed uint64, n int) []byte {
	h := &hostile{rng: rand.New(rand.NewPCG(seed, uint64(n)))}
	var changes, drift []any
	for i := 0; i < n; i++ {
		changes = append(changes, h.resource(i))
		if i%7 == 3 {
			drift = append(drift, h.resource(i))
		}
	}
	outputs := map[string]any{}
	for i := 0; i < n/4+1; i++ {
		c := h.change(h.action())
		delete(c, "replace_paths")
		outputs[h.pick(hostileKeys)+fmt.Sprint(i)] = c
	}
	out, err := json.Marshal(map[string]any{
		"format_version": "1.2", "terraform_version": "1.9.8",
		"resource_changes": changes, "resource_drift": drift, "output_changes": outputs,
	})
	if err != nil {
		panic(fmt.Sprintf("plangen: %v", err))
	}
	return out
}

var hostileStrings = []string{
	"plain", "::error::forged", "  ::warning title=x::y", "x ##[group]g", "line1\nline2\r\n::add-mask::z",
	"\x1b[31mred\x1b[0m", "\x1b[2K::x", "tab\tsep", "\u202eevil\u202c", "ünïcødé 🔑", "fe80::1", `a"quote\`,
	"", "\xff\xfe::bad", "\u200b::error::zw", "hunter2-secret0 unmarked here",
	strings.Repeat("long value with spaces ", 300), strings.Repeat("x", 5000), strings.Repeat("::é", 700),
}

var hostileSecrets = []string{"hunter2-secret", "s3cr3t-value 42", "::stop-commands::pw", "pw\nline two", "ünï-secret"}

var hostileKeys = []string{"name", "tags", "Cost Center", "::key", "1abc", "new\nline", "with-dash", "k", "list", "\x1b[1mbold", "##[x"}

var hostileActions = [][]any{
	{"create"}, {"update"}, {"delete"}, {"delete", "create"}, {"create", "delete"}, {"read"}, {"no-op"},
	{"forget"}, {"create", "forget"},
}

type hostile struct{ rng *rand.Rand }

func (h *hostile) pick(s []string) string { return s[h.rng.IntN(len(s))] }

func (h *hostile) action() []any { return hostileActions[h.rng.IntN(len(hostileActions))] }

func (h *hostile) resource(i int) map[string]any {
	addr := fmt.Sprintf("terraform_data.%s[%d]", []string{"r", "x", "data"}[i%3], i)
	if i%5 == 0 {
		addr = fmt.Sprintf("module.m[%q].%s", h.pick(hostileKeys), addr)
	}
	rc := map[string]any{"address": addr, "mode": "managed", "type": "terraform_data", "name": "r", "provider_name": "terraform.io/builtin/terraform"}
	acts := h.action()
	c := h.change(acts)
	switch h.rng.IntN(10) {
	case 0:
		rc["previous_address"] = addr + "_old"
	case 1:
		c["importing"] = map[string]any{"id": h.pick(hostileStrings)}
	case 2:
		rc["action_reason"] = "replace_because_tainted"
	case 3:
		rc["deposed"] = "abc123"
	}
	rc["change"] = c
	return rc
}

// change builds a change of the given actions: before and after related as the action
// says, markers on either side.
func (h *hostile) change(acts []any) map[string]any {
	before, bs, _ := h.value(0, false)
	after, as, au := h.mutate(before, bs)
	switch acts[0] {
	case "create", "read":
		before, bs = nil, false
	case "delete", "forget":
		after, as, au = nil, false, false
	case "no-op":
		after, as, au = before, bs, false
	}
	c := map[string]any{"actions": acts, "before": before, "after": after, "after_unknown": au}
	if h.rng.IntN(20) > 0 { // now and then no markers at all, as before Terraform 0.14
		c["before_sensitive"], c["after_sensitive"] = bs, as
	}
	if len(acts) == 2 && acts[1] != "forget" {
		c["replace_paths"] = []any{h.path(after), []any{h.pick(hostileKeys)}}
	}
	return c
}

// path is a path into v: keys and indexes, as replace_paths spell them.
func (h *hostile) path(v any) []any {
	var p []any
	for {
		switch t := v.(type) {
		case map[string]any:
			if len(t) == 0 {
				return p
			}
			k := h.pick(sortedKeys(t))
			p, v = append(p, k), t[k]
		case []any:
			if len(t) == 0 {
				return p
			}
			i := h.rng.IntN(len(t))
			p, v = append(p, i), t[i]
		default:
			return p
		}
	}
}
