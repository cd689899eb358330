package terraform

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCaptureReadsWhatTerraformPrinted: show -json, show (state) and state pull return
// exactly what terraform printed, however it wrote it (here: a 3 MB document in pieces,
// after the shell's own writes moved the shared file offset), and leave nothing behind in
// the temporary directory (the file held secrets).
func TestCaptureReadsWhatTerraformPrinted(t *testing.T) {
	tmp := t.TempDir()
	tmpdir := filepath.Join(tmp, "tmp")
	if err := os.Mkdir(tmpdir, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", tmpdir)
	doc := filepath.Join(tmp, "doc.json")
	var want bytes.Buffer
	want.WriteString(`{"format_version":"1.2","resource_changes":[`)
	for i := range 40000 {
		if i > 0 {
			want.WriteByte(',')
		}
		want.WriteString(`{"address":"terraform_data.r","secret":"s3cr3t-value-` + strings.Repeat("x", 40) + `"}`)
	}
	want.WriteString("]}\n")
	if err := os.WriteFile(doc, want.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	// Half by head, the rest by tail: two writes, the second at the offset the first left.
	print := `head -c 1000000 "$DOC"; tail -c +1000001 "$DOC"`
	bin := writeFake(t, filepath.Join(tmp, "bin"), "terraform", "1.5.7", map[string]string{"show": print, "state": print})
	r, err := NewRunner(tmp, Binary{Path: bin, Flavor: FlavorTerraform}, RunnerOptions{Env: map[string]string{"DOC": doc}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for name, get := range map[string]func() ([]byte, error){
		"show plan":  func() ([]byte, error) { return r.ShowPlan(ctx, "p.tfplan") },
		"show state": func() ([]byte, error) { return r.ShowState(ctx) },
		"state pull": func() ([]byte, error) { return r.StatePull(ctx) },
	} {
		got, err := get()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("%s: got %d bytes, want the %d terraform printed", name, len(got), want.Len())
		}
		if cap(got) != len(got) {
			t.Errorf("%s: buffer of %d bytes for %d: read into a buffer of its size", name, cap(got), len(got))
		}
	}
	left, err := os.ReadDir(tmpdir)
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 0 {
		t.Errorf("left in the temporary directory: %v", left)
	}
}

// TestCaptureEmptyShowIsAnError: a show -json that printed nothing is no plan.
func TestCaptureEmptyShowIsAnError(t *testing.T) {
	tmp := t.TempDir()
	bin := writeFake(t, filepath.Join(tmp, "bin"), "terraform", "1.5.7", map[string]string{"show": "true"})
	r, err := NewRunner(tmp, Binary{Path: bin, Flavor: FlavorTerraform}, RunnerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.ShowPlan(context.Background(), "p.tfplan"); err == nil || !strings.Contains(err.Error(), "printed nothing") {
		t.Fatalf("err = %v, want: printed nothing", err)
	}
}
