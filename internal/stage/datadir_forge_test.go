package stage

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tfgate/tfgate/internal/testenv"
)

// TestKeptDataDirCannotVouchForItself: terraform, and whatever a configuration runs during
// a plan, may change the project's kept data directory in full. Such a change, with
// everything that directory holds made to agree with it (a record there re-signed with the
// salt it shows), still runs init again, and the plan never uses the changed directory: a
// module record pointing elsewhere is not followed. The record that proves an init current
// lies where terraform cannot write (beside the directory, out of the read guard's reach).
func TestKeptDataDirCannotVouchForItself(t *testing.T) {
	root := testenv.WriteTree(t, map[string]string{
		"app/main.tf":       "module \"m\" {\n  source = \"../modules/a\"\n}\n",
		"modules/a/main.tf": `resource "terraform_data" "a" {}`,
		"modules/b/main.tf": `resource "terraform_data" "b" {}`,
	})
	kept := filepath.Join(t.TempDir(), "tfdata")
	env := testenv.RunEnv()
	if _, got := keptPlan(t, root, kept, env); got != "no earlier init recorded" {
		t.Fatalf("first plan: init %q", got)
	}
	dirs, _ := filepath.Glob(filepath.Join(kept, "*"))
	var dir string
	for _, d := range dirs {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			dir = d
		}
	}
	if dir == "" {
		t.Fatalf("no kept data directory in %v", dirs)
	}
	// What a process with the data directory's rights can do: redirect the module to code
	// of its own, anywhere it may write.
	evil := testenv.WriteTree(t, map[string]string{"main.tf": `resource "terraform_data" "evil" {}`})
	manifest := filepath.Join(dir, "modules", "modules.json")
	data, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	poisoned := strings.Replace(string(data), `"Dir":"../modules/a"`, `"Dir":"`+evil+`"`, 1)
	if poisoned == string(data) {
		t.Fatalf("no module record to change: %s", data)
	}
	writeFile(t, manifest, poisoned)
	// And make every record it can reach agree with the change.
	resigned := 0
	err = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".json") {
			return err
		}
		var rec initRecord
		b, err := os.ReadFile(p)
		if err != nil || json.Unmarshal(b, &rec) != nil || rec.Salt == "" {
			return nil
		}
		if rec.Data, err = dataDirDigest(dir, rec.Salt); err != nil {
			return err
		}
		b, _ = json.Marshal(rec)
		resigned++
		return os.WriteFile(p, b, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
	p, got := keptPlan(t, root, kept, env)
	if got != "the data directory changed since init" {
		t.Errorf("after the data directory changed (%d records in it re-signed): init %q, want it run", resigned, got)
	}
	if a := addresses(p); a != "module.m.terraform_data.a" {
		t.Errorf("planned %q, want module a's resource (the configuration's)", a)
	}
}

// TestKeptDataDirHoldsNoSecret: what a kept data directory and its record keep between
// runs holds no value of the environment (backend credentials, tokens) in the clear: the
// record has hashes only, of which the salt is the only other field.
func TestKeptDataDirHoldsNoSecret(t *testing.T) {
	const value = "kept-secret-3f9a7c"
	root := testenv.WriteTree(t, map[string]string{
		"app/main.tf": "variable \"token\" {\n  type      = string\n  sensitive = true\n}\nresource \"terraform_data\" \"a\" {}\n",
	})
	kept := filepath.Join(t.TempDir(), "tfdata")
	env := testenv.RunEnv()
	env["AWS_SECRET_ACCESS_KEY"], env["TF_VAR_token"] = value, value
	for _, want := range []string{"no earlier init recorded", "skipped"} {
		if _, got := keptPlan(t, root, kept, env); got != want {
			t.Fatalf("init %q, want %q", got, want)
		}
	}
	records := 0
	err := filepath.WalkDir(kept, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.Contains(string(b), value) {
			t.Errorf("%s holds the secret", p)
		}
		if strings.HasSuffix(p, initRecordSuffix) {
			records++
			var fields map[string]string
			if err := json.Unmarshal(b, &fields); err != nil || len(fields) != 3 || len(fields["inputs"]) != 64 || len(fields["data"]) != 64 {
				t.Errorf("record %s = %s, want the salt and two hashes", p, b)
			}
		}
		return nil
	})
	if err != nil || records != 1 {
		t.Fatalf("walk: %v, %d records", err, records)
	}
}
