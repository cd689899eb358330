package bundle

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// zipDir is the artifact actions/upload-artifact makes of an --out directory, with edit
// applied to each file's content (nil: as is) and extra entries added.
func zipDir(t *testing.T, dir string, edit func(name string, data []byte) []byte, extra map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	add := func(name string, data []byte) {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
	}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		rel, _ := filepath.Rel(dir, path)
		if edit != nil {
			data = edit(filepath.ToSlash(rel), data)
		}
		add(filepath.ToSlash(rel), data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range extra {
		add(name, []byte(data))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestArtifactOpen: a bundle read in the artifact, without unpacking it, opens under the
// proofs Open makes on disk — plain or sealed, the plan file in memory the one planned —
// and is refused for what Open refuses.
func TestArtifactOpen(t *testing.T) {
	ctx := context.Background()
	for _, key := range []string{"", testKey} {
		out := t.TempDir()
		writeBundle(t, filepath.Join(out, "app"), []byte("the plan"), testManifest())
		if key != "" {
			if err := Seal(ctx, filepath.Join(out, "app"), key); err != nil {
				t.Fatal(err)
			}
		}
		art, err := ReadArtifact(zipDir(t, out, nil, map[string]string{"tfgate-result.json": "{}", ".hidden/manifest.json": "{}"}), "plan artifact x", Limits{})
		if err != nil {
			t.Fatal(err)
		}
		if got := art.Bundles(); !slices.Equal(got, []string{"app"}) {
			t.Errorf("key %q: bundles %q, want [app]", key, got)
		}
		o, err := art.Open(ctx, "app", key)
		if err != nil {
			t.Fatalf("key %q: %v", key, err)
		}
		if string(o.Plan) != "the plan" || o.PlanPath != "" || o.Manifest.Commit != testCommit || o.Manifest.Encrypted != (key != "") {
			t.Errorf("key %q: opened %+v, plan %q", key, o.Manifest, o.Plan)
		}
		dst := filepath.Join(t.TempDir(), "dst")
		if _, err := Reissue(ctx, o, dst, key, func(m Manifest) Manifest { return m }); err != nil {
			t.Fatalf("key %q: reissue: %v", key, err)
		}
		again, err := Open(ctx, dst, key, scratchDir(t))
		if err != nil || again.Manifest.PlanSHA256 != o.Manifest.PlanSHA256 {
			t.Errorf("key %q: the reissued bundle: %+v, %v", key, again.Manifest, err)
		}
		if _, err := art.Open(ctx, "app", map[string]string{"": testKey, testKey: ""}[key]); err == nil {
			t.Errorf("key %q: opened with the other key setting", key)
		}
	}
}

// TestArtifactOpenRefuses: what Open refuses on disk is refused in the artifact.
func TestArtifactOpenRefuses(t *testing.T) {
	ctx := context.Background()
	out := t.TempDir()
	writeBundle(t, filepath.Join(out, "app"), []byte("the plan"), testManifest())
	sealed := t.TempDir()
	writeBundle(t, filepath.Join(sealed, "app"), []byte("the plan"), testManifest())
	if err := Seal(ctx, filepath.Join(sealed, "app"), testKey); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		data []byte
		key  string
		want error
	}{
		{"plan file changed", zipDir(t, out, func(n string, d []byte) []byte {
			if n == "app/"+PlanFile {
				return []byte("another plan")
			}
			return d
		}, nil), "", ErrTampered},
		{"plain manifest beside bundle.age", zipDir(t, out, nil, map[string]string{"app/" + SealedFile: "x"}), "", ErrTampered},
		{"plain bundle with a key", zipDir(t, out, nil, nil), testKey, ErrUnencrypted},
		{"sealed bundle without a key", zipDir(t, sealed, nil, nil), "", ErrNoKey},
		{"sealed bundle, wrong key", zipDir(t, sealed, nil, nil), "another-key-of-enough-length", ErrWrongKey},
		{"sealed bundle, clear manifest edited", zipDir(t, sealed, func(n string, d []byte) []byte {
			if n == "app/"+ManifestFile {
				return bytes.Replace(d, []byte(testCommit), []byte("89abcdef0123456789abcdef0123456789abcdef"), 1)
			}
			return d
		}, nil), testKey, ErrTampered},
		{"not a zip archive", []byte("PK but not a zip"), "", ErrMalformed},
		{"no plan file", zipDir(t, out, func(n string, d []byte) []byte {
			if n == "app/"+PlanFile {
				return nil
			}
			return d
		}, nil), "", ErrTampered},
	}
	for _, c := range cases {
		art, err := ReadArtifact(c.data, "plan artifact x", Limits{})
		if err == nil {
			_, err = art.Open(ctx, "app", c.key)
		}
		if !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
}

// TestReadArtifactRefusesUnsafe: the archive is held to Unzip's checks and limits.
func TestReadArtifactRefusesUnsafe(t *testing.T) {
	out := t.TempDir()
	writeBundle(t, filepath.Join(out, "app"), bytes.Repeat([]byte("p"), 4096), testManifest())
	if _, err := ReadArtifact(zipDir(t, out, nil, map[string]string{"../evil": "x"}), "a", Limits{}); !errors.Is(err, ErrUnsafeArchive) {
		t.Errorf("an entry outside: %v, want ErrUnsafeArchive", err)
	}
	if _, err := ReadArtifact(zipDir(t, out, nil, nil), "a", Limits{MaxFiles: 1}); !errors.Is(err, ErrUnsafeArchive) {
		t.Errorf("too many entries: %v, want ErrUnsafeArchive", err)
	}
	// Headers claiming less than is there are caught while decompressing.
	art, err := ReadArtifact(zipDir(t, out, nil, nil), "a", Limits{MaxBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	art.left = 100
	if _, err := art.Open(context.Background(), "app", ""); !errors.Is(err, ErrUnsafeArchive) {
		t.Errorf("past the byte limit: %v, want ErrUnsafeArchive", err)
	}
}

// TestArtifactOpenConcurrently: reuse opens an artifact's bundles from several workers at
// once (run with -race).
func TestArtifactOpenConcurrently(t *testing.T) {
	out := t.TempDir()
	for _, name := range []string{"a", "b", "c", "d"} {
		writeBundle(t, filepath.Join(out, name), []byte("plan "+name), testManifest())
	}
	art, err := ReadArtifact(zipDir(t, out, nil, nil), "plan artifact x", Limits{})
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 4)
	for _, name := range art.Bundles() {
		go func() {
			o, err := art.Open(context.Background(), name, "")
			if err == nil && string(o.Plan) != "plan "+name {
				err = errors.New(name + ": another plan: " + string(o.Plan))
			}
			errs <- err
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
