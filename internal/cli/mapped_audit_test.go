//go:build linux

package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/tfgate/tfgate/internal/policy"
	"github.com/tfgate/tfgate/internal/stage"
)

// Found by the second audit of the mapped plan (policy eval): a mapping of the file itself
// was no snapshot. The plan is now read into memory of its own (mapFile): a snapshot.

const auditPolicy = `package audit
import rego.v1
deny contains "a resource is deleted" if {
	some rc in input.resource_changes
	"delete" in rc.change.actions
}
deny contains "output x is bad" if input.output_changes.x.after == "bad!"
`

// auditPlan is a plan whose one resource change has action act and whose output x is out;
// every variant has the same length and layout.
func auditPlan(act, out string) []byte {
	pad := strings.Repeat("p", 3*os.Getpagesize())
	return []byte(`{"format_version":"1.2","terraform_version":"1.5.7","planned_values":{"root_module":{}},` +
		`"resource_changes":[{"address":"terraform_data.a","mode":"managed","type":"terraform_data","name":"a",` +
		`"change":{"actions":["` + act + `"],"before":{"pad":"` + pad + `"},"after":null}}],` +
		`"output_changes":{"x":{"actions":["update"],"before":"old!","after":"` + out + `"}},` +
		`"configuration":{"pad":"` + pad + `"}}`)
}

func auditEval(t *testing.T, name string, mapped bool, during func()) (policy.Result, error) {
	t.Helper()
	in, err := openInput(strings.NewReader(""), name, mapped)
	if err != nil {
		t.Fatal(err)
	}
	defer in.close()
	release := in.release
	once := false
	hook := func(part []byte) {
		if !once && len(part) > 0 && part[0] == '[' { // the decoder is done with resource_changes
			once = true
			during() // another process writes the plan file while it is being judged
		}
		if release != nil {
			release(part)
		}
	}
	src := policy.Source{FS: fstest.MapFS{"p.rego": &fstest.MapFile{Data: []byte(auditPolicy)}}, Paths: []string{"."}}
	if !mapped {
		during()
		hook = nil
	}
	return stage.EvalPlan(context.Background(), stage.EvalOptions{Source: src, Plan: in.data, Release: hook,
		PlanName: name, Project: "p"})
}

// A plan file rewritten in place (same size) while policy eval judges it: mapped or not,
// the plan is judged as it was read (denied: output x is bad). A mapping of the file itself
// judged it torn (old resource changes, new outputs) and passed it.
func TestAudit2MappedPlanRewrittenDuringEvalJudgedTorn(t *testing.T) {
	oldPlan, newPlan := auditPlan("create", "bad!"), auditPlan("delete", "good")
	for _, mapped := range []bool{false, true} {
		name := filepath.Join(t.TempDir(), "plan.json")
		if err := os.WriteFile(name, oldPlan, 0o644); err != nil {
			t.Fatal(err)
		}
		rewrite := func() {
			f, err := os.OpenFile(name, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.WriteAt(newPlan, 0); err != nil {
				t.Fatal(err)
			}
		}
		res, err := auditEval(t, name, mapped, rewrite)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("mapped=%v: verdict %s findings %v", mapped, res.Verdict, res.Findings)
		if !res.Denied() {
			t.Errorf("mapped=%v: a plan rewritten during policy eval passes; both its versions are denied (verdict %s)", mapped, res.Verdict)
		}
	}
}

// A plan file truncated while policy eval judges it: judged as it was read. A mapping of the
// file itself died of SIGBUS with exit status 2 (ExitChanges) instead of an error.
func TestAudit2MappedPlanTruncatedDuringEvalCrashes(t *testing.T) {
	if name := os.Getenv("TFGATE_AUDIT2_CHILD"); name != "" {
		_, err := auditEval(t, name, true, func() {
			if err := os.Truncate(name, 0); err != nil {
				t.Fatal(err)
			}
		})
		if err == nil {
			t.Fatal("no error")
		}
		t.Logf("error: %v", err)
		return
	}
	name := filepath.Join(t.TempDir(), "plan.json")
	if err := os.WriteFile(name, auditPlan("create", "bad!"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestAudit2MappedPlanTruncatedDuringEvalCrashes$", "-test.v")
	cmd.Env = append(os.Environ(), "TFGATE_AUDIT2_CHILD="+name)
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	if strings.Contains(string(out), "unexpected fault address") || code == ExitChanges {
		first := string(out)
		if i := strings.Index(first, "\ngoroutine "); i > 0 {
			first = first[:i]
		}
		t.Errorf("a plan truncated during policy eval crashes the process (exit %d = ExitChanges):\n%s", code, first)
	}
}
