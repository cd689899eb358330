package pipeline

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/tfgate/tfgate/internal/bundle"
	"github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/gate"
	"github.com/tfgate/tfgate/internal/plan"
	"github.com/tfgate/tfgate/internal/policy"
)

func TestMergeVerdicts(t *testing.T) {
	pass := policy.Result{Verdict: policy.VerdictPass}
	deny := policy.Result{Verdict: policy.VerdictDeny, Findings: []policy.Finding{{Level: policy.LevelDeny, Rule: "deny", Package: "data.no_deletes", Msg: "x is deleted"}}}
	if v := mergeVerdicts([]policy.Result{pass}); v == nil || v.Denied || !v.Evaluated {
		t.Errorf("one pass: got %+v", v)
	}
	v := mergeVerdicts([]policy.Result{pass, deny})
	if v == nil || !v.Denied || len(v.Denies) != 1 {
		t.Errorf("pass and deny: got %+v, want denied", v)
	}
	if v := mergeVerdicts(nil); v != nil {
		t.Errorf("no policies: got %+v, want nil", v)
	}
}

// The plan modes gate judges are the ones bundle reads from a plan file.
func TestPlanModes(t *testing.T) {
	for gm, bm := range map[string]string{gate.PlanNormal: bundle.ModeNormal, gate.PlanDestroy: bundle.ModeDestroy, gate.PlanRefreshOnly: bundle.ModeRefreshOnly} {
		if gm != bm {
			t.Errorf("gate's plan mode %q is bundle's %q", gm, bm)
		}
	}
}

func TestManifestAccount(t *testing.T) {
	d := &derived{summary: plan.Summary{Destroy: 1}, destroyed: []string{"a.x"},
		policy: &bundle.PolicyVerdict{Evaluated: true, Denied: true, Denies: []string{"no"}, Error: "boom"}}
	want := gate.PlanAccount{Summary: d.summary, HasChanges: true, Destroyed: []string{"a.x"}, PolicyDenied: true, PolicyDenies: []string{"no"}, PolicyError: true}
	if got := d.account(); !reflect.DeepEqual(got, want) {
		t.Errorf("derived: got %+v, want %+v", got, want)
	}
	m := bundle.Manifest{Summary: d.summary, HasChanges: true, Policy: d.policy}
	want.Destroyed = nil
	if got := manifestAccount(m); !reflect.DeepEqual(got, want) {
		t.Errorf("manifest: got %+v, want %+v", got, want)
	}
	if got := gate.CheckManifest(manifestAccount(m), d.account()); len(got) != 0 {
		t.Errorf("an honest manifest: got %v", got)
	}
}

// planFileFacts reads a plan file's facts for gate.AcceptPlanFile and stops at the first
// it cannot read: what is not a zip archive, a zip without terraform's tfplan entry.
func TestPlanFileFacts(t *testing.T) {
	dir := t.TempDir()
	notZip := filepath.Join(dir, "not.zip")
	if err := os.WriteFile(notZip, []byte("not a plan"), 0o600); err != nil {
		t.Fatal(err)
	}
	noKind := filepath.Join(dir, "nokind.zip")
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	if _, err := zw.Create("tfconfig/main.tf"); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(noKind, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	a := &review{}
	for _, c := range []struct {
		path         string
		notZip, kind bool
	}{{notZip, true, false}, {noKind, false, true}} {
		f, err := a.planFileFacts(nil, &target{projectCase: projectCase{opened: bundle.Opened{PlanPath: c.path}}})
		if err != nil || (f.NotZip != "") != c.notZip || (f.NoKind != "") != c.kind {
			t.Errorf("%s: got %+v, %v", filepath.Base(c.path), f, err)
		}
		if got := gate.AcceptPlanFile(f, config.Apply{}); len(got) != 1 || got[0].Code != gate.CodeNotPlanFile {
			t.Errorf("%s: gate says %+v, want one not-plan-file", filepath.Base(c.path), got)
		}
	}
}

// A setting a plan file holds as unknown (bundle.Unknown) is never the merge's, even where
// the merge's were unknown too: gate reads it as bundle writes it.
func TestUnknownBackendSetting(t *testing.T) {
	b := gate.Backend(bundle.Backend{Type: "local", Config: map[string]string{"path": bundle.Unknown}})
	got := gate.AcceptPlanFile(gate.PlanFileFacts{Kind: gate.PlanKind{Mode: gate.PlanNormal}, Backend: b, MergeBackend: b}, config.Apply{})
	if len(got) != 1 || got[0].Code != gate.CodeBackend {
		t.Errorf("got %+v, want one %s", got, gate.CodeBackend)
	}
}

// A data directory without init's backend record is of a configuration without a backend
// block: the merge's backend is local, every setting unset.
func TestMergeBackendNone(t *testing.T) {
	got, err := mergeBackend(t.TempDir())
	if err != nil || got.Type != "local" || len(got.Config) != 0 {
		t.Errorf("got %+v, %v", got, err)
	}
}
