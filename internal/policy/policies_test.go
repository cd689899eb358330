package policy

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/open-policy-agent/opa/v1/format"
)

// TestDefaultPolicies runs the Rego unit tests of the default policy library,
// so `go test ./internal/policy/...` fails when any of them fails. They must
// also pass when a team configures every setting (the example in the
// library's README), so that tuning a copy keeps `tfgate policy test` green.
func TestDefaultPolicies(t *testing.T) {
	for name, fsys := range map[string]fs.FS{
		"defaults":        os.DirFS("../.."),
		"README settings": withReadmeSettings(t),
	} {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			passed, failed, err := Test(context.Background(), Source{FS: fsys, Paths: []string{"policies"}}, &out, false)
			if err != nil {
				t.Fatalf("policy tests: %v\n%s", err, out.String())
			}
			if failed > 0 || passed == 0 {
				t.Fatalf("policy tests: %d passed, %d failed\n%s", passed, failed, out.String())
			}
		})
	}
}

// withReadmeSettings returns the policy library with the settings example of
// policies/README.md saved as policies/settings.yaml.
func withReadmeSettings(t *testing.T) fs.FS {
	t.Helper()
	readme, err := os.ReadFile("../../policies/README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(readme), "```yaml\n")
	example, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("policies/README.md has no ```yaml settings example")
	}
	fsys := fstest.MapFS{"policies/settings.yaml": {Data: []byte(example)}}
	files, err := filepath.Glob("../../policies/*.rego")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		fsys["policies/"+filepath.Base(f)] = &fstest.MapFile{Data: b}
	}
	return fsys
}

// TestDefaultPoliciesOnPlan evaluates the whole default library, with
// settings layered from a second path, against a plan that trips each policy.
func TestDefaultPoliciesOnPlan(t *testing.T) {
	ctx := context.Background()
	e, err := Load(ctx, Source{FS: os.DirFS("../.."), Paths: []string{"policies", "internal/policy/testdata/settings"}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := os.ReadFile("testdata/plan_mixed.json")
	if err != nil {
		t.Fatal(err)
	}
	r := e.Eval(ctx, plan, Project{Name: "envs/prod/app"})
	// A plain listing: how results look to users is render's business (and golden-tested there).
	var out bytes.Buffer
	fmt.Fprintf(&out, "verdict: %s\n", r.Verdict)
	for _, f := range r.Findings {
		fmt.Fprintf(&out, "%s %s: %s\n", f.Level, f.Policy(), f.Text())
	}
	if r.Err != nil {
		fmt.Fprintf(&out, "error: %v\n", r.Err)
	}
	goldenCheck(t, "TestDefaultPoliciesOnPlan", out.Bytes())
}

// TestDefaultPoliciesFormatted keeps the library in `opa fmt` style.
func TestDefaultPoliciesFormatted(t *testing.T) {
	files, err := filepath.Glob("../../policies/*.rego")
	if err != nil || len(files) == 0 {
		t.Fatalf("no policies found: %v", err)
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out, err := format.Source(f, src)
		if err != nil {
			t.Fatalf("format %s: %v", f, err)
		}
		if string(out) != string(src) {
			t.Errorf("%s is not formatted like `opa fmt` would:\n%s", f, out)
		}
	}
}
