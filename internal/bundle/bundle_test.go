package bundle

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/tfgate/tfgate/internal/plan"
)

func TestHashInputsChangesWithContentAndPath(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	write := func(name, content string) {
		t.Helper()
		p := filepath.Join(root, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("app/main.tf", "a")
	write("modules/m/main.tf", "b")
	files := []string{"app/main.tf", "modules/m/main.tf"}

	sums, h1, err := HashInputs(ctx, root, files)
	if err != nil {
		t.Fatal(err)
	}
	if len(sums) != 2 || sums["app/main.tf"] != "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb" {
		t.Fatalf("unexpected sums %v", sums)
	}
	write("modules/m/main.tf", "c")
	_, h2, _ := HashInputs(ctx, root, files)
	if h1 == h2 {
		t.Fatal("input hash did not change when a module file changed")
	}
	// Same content under another path must hash differently.
	if InputHash(map[string]string{"x": "1"}) == InputHash(map[string]string{"y": "1"}) {
		t.Fatal("input hash ignores paths")
	}
	if _, _, err := HashInputs(ctx, root, []string{"missing.tf"}); err == nil {
		t.Fatal("missing input file must be an error")
	}
}

func TestWriteRead(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, PlanFile), []byte("plan"), 0o600); err != nil {
		t.Fatal(err)
	}
	m, err := Write(ctx, dir, Manifest{Project: "envs/dev/app", Dir: "envs/dev/app", Workspace: "default", Commit: "abc", Summary: plan.Summary{Add: 2}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := Read(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if got.PlanSHA256 != m.PlanSHA256 || got.PlanSHA256 == "" || got.Summary.Add != 2 || got.Project != "envs/dev/app" {
		t.Fatalf("round trip lost data: %+v", got)
	}
	os.WriteFile(filepath.Join(dir, ManifestFile), []byte(`{"schema_version": 99}`), 0o600)
	if _, err := Read(ctx, dir); err == nil {
		t.Fatal("unknown schema version must be refused")
	}
}

func TestDirName(t *testing.T) {
	tests := []struct{ project, ws, want string }{
		{"envs/prod/app", "default", "envs_prod_app"},
		{"net", "staging", "net@staging"},
		{"../../etc", "", "_.._.._etc"},
		{"..", "", "_.."},
	}
	for _, tt := range tests {
		if got := DirName(tt.project, tt.ws); got != tt.want {
			t.Errorf("DirName(%q,%q) = %q, want %q", tt.project, tt.ws, got, tt.want)
		}
	}
}
