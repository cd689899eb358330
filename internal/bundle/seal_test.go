package bundle

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSealOpenRoundTrip(t *testing.T) {
	realWorkFactor(t)
	ctx := context.Background()
	dir := t.TempDir()
	planData := []byte("PK\x03\x04 a plan with a secret: hunter2")
	written := writeBundle(t, dir, planData, testManifest())
	if err := Seal(ctx, dir, testKey); err != nil {
		t.Fatal(err)
	}

	if _, err := os.Stat(filepath.Join(dir, PlanFile)); !os.IsNotExist(err) {
		t.Fatalf("the clear plan file stays after sealing: %v", err)
	}
	sealed, err := os.ReadFile(filepath.Join(dir, SealedFile))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(sealed, []byte("age-encryption.org/v1\n-> scrypt ")) || bytes.Contains(sealed, []byte("hunter2")) {
		t.Fatalf("bundle.age is not an scrypt age file: %.60q", sealed)
	}
	if stanza, _, _ := bytes.Cut(sealed[len("age-encryption.org/v1\n"):], []byte("\n")); !bytes.HasSuffix(stanza, []byte(" 16")) {
		t.Errorf("scrypt stanza %q, want work factor 16", stanza)
	}
	if st, _ := os.Stat(filepath.Join(dir, SealedFile)); st.Mode().Perm() != 0o600 {
		t.Errorf("bundle.age has mode %v, want 0600", st.Mode().Perm())
	}
	// The clear manifest still lists the bundle, without the key.
	clear, err := Read(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if !clear.Encrypted || clear.PlanSHA256 != sumOf(t, planData) || clear.Project != written.Project {
		t.Fatalf("clear manifest after sealing: %+v", clear)
	}

	scratch := scratchDir(t)
	o, err := Open(ctx, dir, testKey, scratch)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(o.PlanPath)
	if err != nil || !bytes.Equal(got, planData) {
		t.Fatalf("opened plan %q, %v", got, err)
	}
	if filepath.Dir(o.PlanPath) != o.Dir || !strings.HasPrefix(o.Dir, scratch+string(filepath.Separator)) {
		t.Errorf("opened into %s (plan %s), want a directory under %s", o.Dir, o.PlanPath, scratch)
	}
	for _, p := range []string{o.Dir, o.PlanPath} {
		st, _ := os.Stat(p)
		if want := map[bool]os.FileMode{true: 0o700, false: 0o600}[st.IsDir()]; st.Mode().Perm() != want {
			t.Errorf("%s has mode %v, want %v", p, st.Mode().Perm(), want)
		}
	}
	want := written
	want.Encrypted = true
	if diff, _ := diffFields(o.Manifest, want); len(diff) > 0 {
		t.Errorf("opened manifest differs from the written one in %v", diff)
	}
	// Opening twice into the same scratch gives two directories.
	o2, err := Open(ctx, dir, testKey, scratch)
	if err != nil || o2.Dir == o.Dir {
		t.Fatalf("second open: %v, %s", err, o2.Dir)
	}

	if err := Seal(ctx, dir, testKey); err == nil || !strings.Contains(err.Error(), "already sealed") {
		t.Errorf("sealing twice: %v", err)
	}
}

func TestOpenPlain(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	writeBundle(t, dir, []byte("plan"), testManifest())
	o, err := Open(ctx, dir, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if o.Dir != dir || o.PlanPath != filepath.Join(dir, PlanFile) || o.Manifest.Project != "envs/dev/app" {
		t.Fatalf("opened %+v", o)
	}
}

// TestOpenRefuses covers every way Open says no, each with the kind a caller branches on
// and the words a user reads.
func TestOpenRefuses(t *testing.T) {
	tests := []struct {
		name   string
		sealed bool
		edit   func(t *testing.T, dir string)
		key    string
		kind   error
		want   []string
	}{
		{name: "no key", sealed: true, key: "", kind: ErrNoKey,
			want: []string{"TFGATE_PLAN_KEY is needed to open it", "project envs/dev/app"}},
		{name: "wrong key", sealed: true, key: "another-key-of-enough-length", kind: ErrWrongKey,
			want: []string{"TFGATE_PLAN_KEY does not decrypt the bundle of project envs/dev/app (wrong key?)"}},
		{name: "flipped byte in payload", sealed: true, key: testKey, kind: ErrTampered, edit: flipByte(-20),
			want: []string{"bundle.age: damaged"}},
		{name: "flipped byte in header MAC", sealed: true, key: testKey, kind: ErrTampered, edit: flipHeaderMAC,
			want: []string{"bundle.age is damaged or not tfgate's"}},
		{name: "truncated", sealed: true, key: testKey, kind: ErrTampered, edit: truncate(100),
			want: []string{"damaged"}},
		{name: "manifest edited after sealing", sealed: true, key: testKey, kind: ErrTampered,
			edit: editManifest(func(f map[string]any) { f["pr"] = 8; f["applicable"] = true }), // applicable was true already
			want: []string{"manifest.json was altered after sealing (pr differs from the sealed copy)"}},
		{name: "plan sum edited after sealing", sealed: true, key: testKey, kind: ErrTampered,
			edit: editManifest(func(f map[string]any) { f["plan_sha256"] = strings.Repeat("0", 64) }),
			want: []string{"(plan_sha256 differs"}},
		{name: "sealed made plain", sealed: true, key: "", kind: ErrTampered,
			edit: func(t *testing.T, dir string) {
				os.WriteFile(filepath.Join(dir, PlanFile), []byte("plan"), 0o600)
				editManifest(func(f map[string]any) { delete(f, "encrypted") })(t, dir)
			},
			want: []string{"the manifest says plain but bundle.age is there"}},
		{name: "plain plan changed", key: "", kind: ErrTampered, edit: writePlan("plan!"),
			want: []string{"project envs/dev/app has sha256 " + sumOf(t, []byte("plan!"))[:12], "records " + sumOf(t, []byte("plan"))[:12],
				"the plan file was changed after planning"}},
		{name: "plain plan missing", key: "", kind: os.ErrNotExist, edit: func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, PlanFile)) },
			want: []string{"plan file of project envs/dev/app"}},
		{name: "plain with a key set", key: testKey, kind: ErrUnencrypted,
			want: []string{"is not encrypted, but TFGATE_PLAN_KEY is set"}},
		{name: "hostile work factor", sealed: true, key: testKey, kind: ErrTampered, edit: setWorkFactor(30),
			want: []string{"scrypt work factor too large: 30"}},
		{name: "one above the work factor", sealed: true, key: testKey, kind: ErrTampered, edit: setWorkFactor(workFactor + 1),
			want: []string{"scrypt work factor too large: " + itoa(workFactor+1)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			writeBundle(t, dir, []byte("plan"), testManifest())
			if tt.sealed {
				if err := Seal(ctx, dir, testKey); err != nil {
					t.Fatal(err)
				}
			}
			if tt.edit != nil {
				tt.edit(t, dir)
			}
			scratch := scratchDir(t)
			_, err := Open(ctx, dir, tt.key, scratch)
			if !errors.Is(err, tt.kind) {
				t.Fatalf("Open = %v, want %v", err, tt.kind)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if left, _ := os.ReadDir(scratch); len(left) > 0 {
				t.Errorf("a refused open left %d entries in scratch", len(left))
			}
		})
	}
}

func TestOpenScratchMustBePrivate(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	writeBundle(t, dir, []byte("plan"), testManifest())
	if err := Seal(ctx, dir, testKey); err != nil {
		t.Fatal(err)
	}
	open := filepath.Join(t.TempDir(), "open")
	os.Mkdir(open, 0o755)
	os.Chmod(open, 0o755) // whatever the umask
	if _, err := Open(ctx, dir, testKey, open); err == nil || !strings.Contains(err.Error(), "private (0700)") {
		t.Fatalf("Open into a 0755 scratch: %v", err)
	}
	if _, err := Open(ctx, dir, testKey, filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Fatal("Open into a missing scratch succeeded")
	}
}

func TestSealRefuses(t *testing.T) {
	ctx := context.Background()
	t.Run("short key", func(t *testing.T) {
		dir := t.TempDir()
		writeBundle(t, dir, []byte("plan"), testManifest())
		if err := Seal(ctx, dir, "hunter2"); err == nil || !strings.Contains(err.Error(), "at least 16") {
			t.Fatalf("Seal with a 7-character key: %v", err)
		}
		if _, err := os.Stat(filepath.Join(dir, SealedFile)); err == nil {
			t.Fatal("a refused seal wrote bundle.age")
		}
	})
	t.Run("plan changed before sealing", func(t *testing.T) {
		dir := t.TempDir()
		writeBundle(t, dir, []byte("plan"), testManifest())
		os.WriteFile(filepath.Join(dir, PlanFile), []byte("other"), 0o600)
		if err := Seal(ctx, dir, testKey); !errors.Is(err, ErrTampered) || !strings.Contains(err.Error(), "changed after planning") {
			t.Fatalf("Seal of a changed plan: %v", err)
		}
		if es, _ := os.ReadDir(dir); len(es) != 2 {
			t.Errorf("a refused seal left %d files, want manifest.json and plan.tfplan only", len(es))
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		dir := t.TempDir()
		writeBundle(t, dir, []byte("plan"), testManifest())
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if err := Seal(cctx, dir, testKey); !errors.Is(err, context.Canceled) {
			t.Fatalf("Seal with a cancelled context: %v", err)
		}
	})
}

func TestOpenRefusesOversizedPlaintext(t *testing.T) {
	defer func(n int64) { maxOpen = n }(maxOpen)
	maxOpen = 4 << 20
	ctx := context.Background()
	dir := t.TempDir()
	writeBundle(t, dir, make([]byte, maxOpen+1), testManifest())
	if err := Seal(ctx, dir, testKey); err != nil {
		t.Fatal(err)
	}
	scratch := scratchDir(t)
	if _, err := Open(ctx, dir, testKey, scratch); !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "more than 4 MiB") {
		t.Fatalf("Open of a bundle over the limit: %v", err)
	}
	if left, _ := os.ReadDir(scratch); len(left) > 0 {
		t.Errorf("a refused open left %d entries in scratch", len(left))
	}
}

func flipByte(at int) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		p := filepath.Join(dir, SealedFile)
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if at < 0 {
			at += len(data)
		}
		data[at] ^= 1
		os.WriteFile(p, data, 0o600)
	}
}

// flipHeaderMAC changes the header's MAC line ("--- <mac>"), which age checks first.
func flipHeaderMAC(t *testing.T, dir string) {
	data, _ := os.ReadFile(filepath.Join(dir, SealedFile))
	i := bytes.Index(data, []byte("\n--- "))
	if i < 0 {
		t.Fatal("no header MAC")
	}
	flipByte(i+6)(t, dir)
}

func truncate(n int) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		p := filepath.Join(dir, SealedFile)
		st, _ := os.Stat(p)
		os.Truncate(p, st.Size()-int64(n))
	}
}

// setWorkFactor rewrites the scrypt stanza's work factor, as a hostile file would.
func setWorkFactor(logN int) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		p := filepath.Join(dir, SealedFile)
		data, _ := os.ReadFile(p)
		data = bytes.Replace(data, []byte(" "+itoa(workFactor)+"\n"), []byte(" "+itoa(logN)+"\n"), 1)
		os.WriteFile(p, data, 0o600)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func editManifest(edit func(f map[string]any)) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		p := filepath.Join(dir, ManifestFile)
		data, _ := os.ReadFile(p)
		var f map[string]any
		if err := json.Unmarshal(data, &f); err != nil {
			t.Fatal(err)
		}
		edit(f)
		data, _ = json.Marshal(f)
		os.WriteFile(p, data, 0o600)
	}
}

func writePlan(content string) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		os.WriteFile(filepath.Join(dir, PlanFile), []byte(content), 0o600)
	}
}

// BenchmarkSealOpen seals and opens a 10 MiB plan at WorkFactor: the cost per project of
// TFGATE_PLAN_KEY, once on plan and once on apply.
func BenchmarkSealOpen(b *testing.B) {
	realWorkFactor(b)
	ctx := context.Background()
	planData := make([]byte, 10<<20)
	rand.Read(planData) // plan files are zip archives: incompressible
	m := testManifest()
	b.Run("seal", func(b *testing.B) {
		b.SetBytes(int64(len(planData)))
		for b.Loop() {
			b.StopTimer()
			dir := filepath.Join(b.TempDir(), "b")
			writeBundle(b, dir, planData, m)
			b.StartTimer()
			if err := Seal(ctx, dir, testKey); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("open", func(b *testing.B) {
		dir := filepath.Join(b.TempDir(), "b")
		writeBundle(b, dir, planData, m)
		if err := Seal(ctx, dir, testKey); err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(planData)))
		for b.Loop() {
			b.StopTimer()
			scratch := scratchDir(b)
			b.StartTimer()
			if _, err := Open(ctx, dir, testKey, scratch); err != nil {
				b.Fatal(err)
			}
		}
	})
}
