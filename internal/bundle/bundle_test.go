package bundle

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	want := testManifest()
	want.Policy = &PolicyVerdict{Evaluated: true, Warnings: 1}
	m := writeBundle(t, dir, []byte("plan"), want)
	got, err := Read(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if got.PlanSHA256 != m.PlanSHA256 || got.PlanSHA256 != sumOf(t, []byte("plan")) || got.Summary.Add != 2 ||
		got.Project != "envs/dev/app" || got.Policy == nil || got.Policy.Warnings != 1 || got.Encrypted {
		t.Fatalf("round trip lost data: %+v", got)
	}
	if diff, _ := diffFields(got, m); len(diff) > 0 {
		t.Fatalf("Read differs from what Write returned in %v", diff)
	}
	data, _ := os.ReadFile(filepath.Join(dir, ManifestFile))
	if strings.Contains(string(data), "encrypted") {
		t.Errorf("a plain manifest says encrypted: %s", data)
	}
}

func TestWriteRefusesManifestApplyWouldRefuse(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, PlanFile), []byte("plan"), 0o600)
	m := testManifest()
	m.Commit = ""
	if _, err := Write(context.Background(), dir, m); !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "commit") {
		t.Fatalf("Write without a commit: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, ManifestFile)); err == nil {
		t.Fatal("Write wrote a manifest it refused")
	}
}

func TestReadRefusesMalformed(t *testing.T) {
	tests := []struct {
		name string
		edit func(f map[string]any)
		raw  string // instead of edit
		want string
		kind error
	}{
		{name: "schema", edit: func(f map[string]any) { f["schema_version"] = 99 }, want: "schema_version 99, this tfgate reads 1"},
		{name: "no schema", edit: func(f map[string]any) { delete(f, "schema_version") }, want: "no schema_version"},
		{name: "no project", edit: func(f map[string]any) { f["project"] = "" }, want: "no project"},
		{name: "plan path", edit: func(f map[string]any) { f["plan_file"] = "../../etc/passwd" }, want: `plan_file "../../etc/passwd"`},
		{name: "plan subdir", edit: func(f map[string]any) { f["plan_file"] = "x/plan.tfplan" }, want: "always \"plan.tfplan\""},
		{name: "no plan sum", edit: func(f map[string]any) { delete(f, "plan_sha256") }, want: "plan_sha256"},
		{name: "upper-case sum", edit: func(f map[string]any) { f["plan_sha256"] = strings.Repeat("A", 64) }, want: "plan_sha256"},
		{name: "no commit", edit: func(f map[string]any) { f["commit"] = "" }, want: "not a full commit SHA"},
		{name: "short commit", edit: func(f map[string]any) { f["commit"] = "abc1234" }, want: "not a full commit SHA"},
		{name: "input escapes", edit: func(f map[string]any) { f["inputs"] = map[string]any{"../secret": strings.Repeat("0", 64)} }, want: `input "../secret"`},
		{name: "input absolute", edit: func(f map[string]any) { f["inputs"] = map[string]any{"/etc/passwd": strings.Repeat("0", 64)} }, want: "not a path inside"},
		{name: "input hash edited", edit: func(f map[string]any) { f["input_hash"] = strings.Repeat("0", 64) }, want: "the manifest was edited", kind: ErrTampered},
		{name: "dirty applicable", edit: func(f map[string]any) { f["dirty"] = true }, want: "never applicable"},
		{name: "control chars", edit: func(f map[string]any) { f["project"] = "app\x1b[31m" }, want: "control characters"},
		{name: "denies not denied", edit: func(f map[string]any) { f["policy"] = map[string]any{"evaluated": true, "denies": []string{"p: no"}} }, want: "denied is false"},
		{name: "negative warnings", edit: func(f map[string]any) { f["policy"] = map[string]any{"evaluated": true, "warnings": -1} }, want: "negative"},
		{name: "not json", raw: "{", want: "not a manifest"},
		{name: "null", raw: "null", want: "no schema_version"},
		{name: "trailing", raw: `{"schema_version":1} {}`, want: "not a manifest"},
		{name: "wrong type", raw: `{"schema_version":"1"}`, want: "not a manifest"},
	}
	good, err := json.Marshal(testManifestWritten())
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			data := []byte(tt.raw)
			if tt.edit != nil {
				var f map[string]any
				json.Unmarshal(good, &f)
				tt.edit(f)
				data, _ = json.Marshal(f)
			}
			os.WriteFile(filepath.Join(dir, ManifestFile), data, 0o600)
			_, err := Read(context.Background(), dir)
			kind := tt.kind
			if kind == nil {
				kind = ErrMalformed
			}
			if !errors.Is(err, kind) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), filepath.Join(dir, ManifestFile)) {
				t.Fatalf("Read = %v, want %v saying %q and naming the file", err, kind, tt.want)
			}
		})
	}
	t.Run("missing", func(t *testing.T) {
		dir := t.TempDir()
		if _, err := Read(context.Background(), dir); !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), dir) {
			t.Fatalf("Read of an empty dir = %v", err)
		}
	})
	t.Run("huge", func(t *testing.T) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, ManifestFile), make([]byte, maxManifestBytes+1), 0o600)
		if _, err := Read(context.Background(), dir); !errors.Is(err, ErrMalformed) {
			t.Fatalf("Read of a huge manifest = %v", err)
		}
	})
	t.Run("unknown fields are additive", func(t *testing.T) {
		dir := t.TempDir()
		var f map[string]any
		json.Unmarshal(good, &f)
		f["from_a_newer_tfgate"] = true
		data, _ := json.Marshal(f)
		os.WriteFile(filepath.Join(dir, ManifestFile), data, 0o600)
		if _, err := Read(context.Background(), dir); err != nil {
			t.Fatal(err)
		}
	})
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

// FuzzReadManifest: whatever manifest.json holds, Read does not panic, and what it accepts
// is a manifest tfgate would write, stable through writing it again.
func FuzzReadManifest(f *testing.F) {
	good, _ := json.Marshal(testManifestWritten())
	f.Add(good)
	sealed := testManifestWritten()
	sealed.Encrypted = true
	sealed.Policy = &PolicyVerdict{Evaluated: true, Denied: true, Denies: []string{"no-public-buckets: bucket x is public"}, Warnings: 2}
	s, _ := json.Marshal(sealed)
	f.Add(s)
	f.Add([]byte(`{"schema_version":1,"project":"p","plan_file":"../plan.tfplan"}`))
	f.Add([]byte(`{"schema_version":1,"inputs":{"../x":"00"}}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`{"schema_version":1e400}`))
	dir := f.TempDir() // one per worker: a t.TempDir each costs more than Read
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(filepath.Join(dir, ManifestFile), data, 0o600); err != nil {
			t.Fatal(err)
		}
		m, err := Read(context.Background(), dir)
		if err != nil {
			if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrTampered) {
				t.Fatalf("Read error of no known kind: %v", err)
			}
			return
		}
		if err := m.check(); err != nil || m.PlanFile != PlanFile || m.SchemaVersion != SchemaVersion {
			t.Fatalf("Read accepted an invalid manifest: %v, %+v", err, m)
		}
		again, err := marshalManifest(m)
		if err != nil {
			t.Fatal(err)
		}
		m2, err := parseManifest(again)
		if err != nil {
			t.Fatalf("an accepted manifest, written again, is refused: %v", err)
		}
		if diff, _ := diffFields(m, m2); len(diff) > 0 {
			t.Fatalf("an accepted manifest changes through writing in %v", diff)
		}
	})
}
