package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/tfgate/tfgate/internal/bundle"
)

// forge [-key KEY] PLANFILE FROMDIR OUTDIR [FIELD=JSON...] makes the bundle a writer
// who holds TFGATE_PLAN_KEY could upload from a workflow of their own: the plan file
// PLANFILE under the manifest of the reviewed bundle in FROMDIR (its commit, inputs and
// input hash), with the plan file's sha256, the fields given set (a dotted path, a JSON
// value: summary.destroy=0), sealed with KEY into OUTDIR — consistent in every way the
// bundle itself can prove.
func cmdForgeBundle(ts *testscript.TestScript, neg bool, args []string) {
	key := ""
	if len(args) > 1 && args[0] == "-key" {
		key, args = args[1], args[2:]
	}
	if neg || len(args) < 3 {
		ts.Fatalf("usage: forge [-key KEY] PLANFILE FROMDIR OUTDIR [FIELD=JSON...]")
	}
	plan, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	var m map[string]any
	ts.Check(json.Unmarshal([]byte(ts.ReadFile(filepath.Join(args[1], bundle.ManifestFile))), &m))
	sum := sha256.Sum256(plan)
	m["plan_sha256"], m["encrypted"] = hex.EncodeToString(sum[:]), false
	for _, kv := range args[3:] {
		path, val, ok := strings.Cut(kv, "=")
		if !ok {
			ts.Fatalf("forge: %q is not FIELD=JSON", kv)
		}
		var v any
		ts.Check(json.Unmarshal([]byte(val), &v))
		cur := m
		parts := strings.Split(path, ".")
		for _, p := range parts[:len(parts)-1] {
			next, ok := cur[p].(map[string]any)
			if !ok {
				next = map[string]any{}
				cur[p] = next
			}
			cur = next
		}
		cur[parts[len(parts)-1]] = v
	}
	out := ts.MkAbs(args[2])
	ts.Check(os.RemoveAll(out))
	ts.Check(os.MkdirAll(out, 0o700))
	data, err := json.MarshalIndent(m, "", "  ")
	ts.Check(err)
	ts.Check(os.WriteFile(filepath.Join(out, bundle.ManifestFile), data, 0o600))
	ts.Check(os.WriteFile(filepath.Join(out, bundle.PlanFile), plan, 0o600))
	if key != "" {
		ts.Check(bundle.Seal(context.Background(), out, key))
	}
}
