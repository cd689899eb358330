package bundle

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tfgate/tfgate/internal/plan"
)

const (
	testCommit = "0123456789abcdef0123456789abcdef01234567"
	testKey    = "correct-horse-battery-staple-42"
)

func TestMain(m *testing.M) {
	// scrypt at WorkFactor costs seconds under -race per seal or open; the tests that are
	// about the work factor itself (TestSealOpenRoundTrip, BenchmarkSealOpen) set it back.
	workFactor = 10
	os.Exit(m.Run())
}

// realWorkFactor runs the rest of a test at WorkFactor.
func realWorkFactor(t testing.TB) {
	workFactor = WorkFactor
	t.Cleanup(func() { workFactor = 10 })
}

// testManifest is what the pipeline passes Write.
func testManifest() Manifest {
	inputs := map[string]string{
		"envs/dev/app/main.tf": "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb",
		"modules/app/main.tf":  "3e23e8160039594a33894f6564e1b1348bbd7a0088d42c4acb73eeaed59c009d",
	}
	return Manifest{Project: "envs/dev/app", Dir: "envs/dev/app", Workspace: "default", Commit: testCommit,
		PR: 7, Applicable: true, Inputs: inputs, InputHash: InputHash(inputs), TerraformVersion: "1.5.7",
		HasChanges: true, Summary: plan.Summary{Add: 2}, CreatedAt: time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC), TfgateVersion: "test"}
}

// testManifestWritten is testManifest as Write completes it, for a plan file "plan".
func testManifestWritten() Manifest {
	m := testManifest()
	m.SchemaVersion, m.PlanFile = SchemaVersion, PlanFile
	s := sha256.Sum256([]byte("plan"))
	m.PlanSHA256 = hex.EncodeToString(s[:])
	return m
}

// writeBundle writes a plan file and completes the bundle in dir, as `plan --out` does.
func writeBundle(t testing.TB, dir string, planData []byte, m Manifest) Manifest {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, PlanFile), planData, 0o600); err != nil {
		t.Fatal(err)
	}
	m, err := Write(context.Background(), dir, m)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func sumOf(t testing.TB, data []byte) string {
	t.Helper()
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

// scratchDir is a private directory, as the caller of Open provides.
func scratchDir(t testing.TB) string {
	t.Helper()
	d := filepath.Join(t.TempDir(), "scratch")
	if err := os.Mkdir(d, 0o700); err != nil {
		t.Fatal(err)
	}
	return d
}
