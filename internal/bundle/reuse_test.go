package bundle

import (
	"archive/zip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestReissue: a reissued bundle holds the same plan file under the edited manifest, plain
// or sealed again, and opens as any bundle; a manifest apply would refuse is not written.
func TestReissue(t *testing.T) {
	ctx := context.Background()
	for _, key := range []string{"", testKey} {
		src := filepath.Join(t.TempDir(), "src")
		writeBundle(t, src, []byte("plan"), testManifest())
		if key != "" {
			if err := Seal(ctx, src, key); err != nil {
				t.Fatal(err)
			}
		}
		o, err := Open(ctx, src, key, scratchDir(t))
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(t.TempDir(), "dst")
		next := "89abcdef0123456789abcdef0123456789abcdef"
		m, err := Reissue(ctx, o, dst, key, func(m Manifest) Manifest {
			m.ReusedFrom, m.Commit = m.Commit, next
			return m
		})
		if err != nil {
			t.Fatal(err)
		}
		if m.Encrypted != (key != "") || m.PlanSHA256 != o.Manifest.PlanSHA256 {
			t.Errorf("key %q: reissued %+v", key, m)
		}
		again, err := Open(ctx, dst, key, scratchDir(t))
		if err != nil {
			t.Fatalf("key %q: the reissued bundle does not open: %v", key, err)
		}
		if again.Manifest.Commit != next || again.Manifest.ReusedFrom != testCommit || again.Manifest.InputHash != o.Manifest.InputHash {
			t.Errorf("key %q: reissued manifest %+v", key, again.Manifest)
		}
		data, err := os.ReadFile(again.PlanPath)
		if err != nil || string(data) != "plan" {
			t.Errorf("key %q: plan file %q, %v", key, data, err)
		}
		_, err = Reissue(ctx, o, filepath.Join(t.TempDir(), "bad"), key, func(m Manifest) Manifest {
			m.ReusedFrom = "abc"
			return m
		})
		if !errors.Is(err, ErrMalformed) {
			t.Errorf("key %q: a malformed reused_from: %v, want ErrMalformed", key, err)
		}
	}
}

// TestReadPlanBasis reads the state, the lock file and the module sources of a plan file
// (the zip terraform writes; its tfplan entry empty: a plan with no backend recorded).
func TestReadPlanBasis(t *testing.T) {
	path := filepath.Join(t.TempDir(), "plan.tfplan")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	z := zip.NewWriter(f)
	for name, content := range map[string]string{
		"tfplan":              "",
		"tfstate":             `{"version": 4, "serial": 3, "lineage": "abc-123"}`,
		".terraform.lock.hcl": "provider \"registry.terraform.io/tfgate/fakecloud\" {\n}\n",
		"tfconfig/modules.json": `[{"Key": "", "Dir": "."}, {"Key": "net", "Source": "../../modules/net", "Dir": "../../modules/net"},
			{"Key": "vpc", "Source": "registry.terraform.io/x/vpc/aws", "Dir": ".terraform/modules/vpc"}]`,
	} {
		w, err := z.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(content)); err != nil {
			t.Fatal(err)
		}
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	b, err := ReadPlanBasis(path)
	if err != nil {
		t.Fatal(err)
	}
	if b.Lineage != "abc-123" || b.Serial != 3 || !b.Providers || !slices.Equal(b.RemoteModules, []string{"vpc"}) {
		t.Errorf("basis %+v", b)
	}
	if _, err := ReadPlanBasis(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("a missing plan file: no error")
	}
}

// TestStateSerial: a state file's lineage and serial; none yet is "" and 0.
func TestStateSerial(t *testing.T) {
	dir := t.TempDir()
	if l, s, err := StateSerial(filepath.Join(dir, "terraform.tfstate")); l != "" || s != 0 || err != nil {
		t.Errorf("no state: %q %d %v", l, s, err)
	}
	path := filepath.Join(dir, "terraform.tfstate")
	if err := os.WriteFile(path, []byte(`{"version": 4, "serial": 7, "lineage": "L"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if l, s, err := StateSerial(path); l != "L" || s != 7 || err != nil {
		t.Errorf("state: %q %d %v", l, s, err)
	}
	if err := os.WriteFile(path, []byte(`not json`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := StateSerial(path); err == nil {
		t.Error("a state that is not JSON: no error")
	}
}
