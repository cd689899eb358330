package bundle

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// entry is one zip entry; mode 0 means a regular 0644 file (a directory when the name
// ends in "/").
type entry struct {
	name    string
	body    string
	mode    fs.FileMode
	flags   uint16
	deflate bool
	attrs   uint32 // raw Unix mode bits, for what SetMode cannot express
}

func zipOf(t testing.TB, entries ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		h := &zip.FileHeader{Name: e.name, Method: zip.Store, Flags: e.flags}
		if e.deflate {
			h.Method = zip.Deflate
		}
		switch {
		case e.mode != 0:
			h.SetMode(e.mode)
		case strings.HasSuffix(e.name, "/"):
			h.SetMode(fs.ModeDir | 0o755)
		default:
			h.SetMode(0o644)
		}
		if e.attrs != 0 {
			h.CreatorVersion = 3 << 8 // Unix
			h.ExternalAttrs = e.attrs << 16
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(e.body))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// uploadLayout is what actions/upload-artifact makes of an --out directory.
func uploadLayout(t testing.TB) []byte {
	return zipOf(t,
		entry{name: "envs_dev_app/manifest.json", body: "{}", deflate: true},
		entry{name: "envs_dev_app/plan.tfplan", body: "plan"},
		entry{name: "envs_prod_app/"},
		entry{name: "envs_prod_app/manifest.json", body: "{}"},
		entry{name: "envs_prod_app/bundle.age", body: "age"},
	)
}

func TestUnzip(t *testing.T) {
	dest := filepath.Join(t.TempDir(), "dest")
	if err := Unzip(uploadLayout(t), dest, Limits{}); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"envs_dev_app/manifest.json": "{}", "envs_dev_app/plan.tfplan": "plan",
		"envs_prod_app/manifest.json": "{}", "envs_prod_app/bundle.age": "age",
	}
	got := map[string]string{}
	filepath.WalkDir(dest, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		info, _ := d.Info()
		rel, _ := filepath.Rel(dest, p)
		if d.IsDir() {
			if info.Mode().Perm() != 0o700 {
				t.Errorf("directory %s has mode %v, want 0700", rel, info.Mode().Perm())
			}
			return nil
		}
		if info.Mode() != 0o600 {
			t.Errorf("%s has mode %v, want a 0600 regular file", rel, info.Mode())
		}
		data, _ := os.ReadFile(p)
		got[filepath.ToSlash(rel)] = string(data)
		return nil
	})
	if len(got) != len(want) {
		t.Fatalf("extracted %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	// Never over an existing file.
	if err := Unzip(uploadLayout(t), dest, Limits{}); !errors.Is(err, fs.ErrExist) {
		t.Errorf("unzip over the same files: %v", err)
	}
}

func TestUnzipRefuses(t *testing.T) {
	zeros := strings.Repeat("\x00", 2<<20)
	tests := []struct {
		name  string
		zip   func(t *testing.T) []byte
		lim   Limits
		kind  error
		entry string // named in the error
		want  string
	}{
		{name: "parent", zip: entries(entry{name: "../evil", body: "x"}), entry: "../evil", want: `".." component`},
		{name: "nested parent", zip: entries(entry{name: "a/../../evil", body: "x"}), entry: "a/../../evil", want: `".." component`},
		{name: "absolute", zip: entries(entry{name: "/tmp/evil", body: "x"}), entry: "/tmp/evil", want: "absolute"},
		{name: "backslash traversal", zip: entries(entry{name: `..\..\evil`, body: "x"}), entry: `..\\..\\evil`, want: "backslash"},
		{name: "backslash dir", zip: entries(entry{name: `a\b`, body: "x"}), entry: `a\\b`, want: "backslash"},
		{name: "drive letter", zip: entries(entry{name: "C:/evil", body: "x"}), entry: "C:/evil", want: "colon"},
		{name: "dot component", zip: entries(entry{name: "a/./b", body: "x"}), entry: "a/./b", want: "not a clean path"},
		{name: "empty component", zip: entries(entry{name: "a//b", body: "x"}), entry: "a//b", want: "not a clean path"},
		{name: "empty name", zip: entries(entry{name: "", body: "x"}), want: "empty name"},
		{name: "control char", zip: entries(entry{name: "a\x1b[2J", body: "x"}), want: "control character"},
		{name: "not utf-8", zip: entries(entry{name: "a\xff", body: "x"}), want: "not UTF-8"},
		{name: "symlink", zip: entries(entry{name: "b/plan.tfplan", body: "/etc/passwd", mode: fs.ModeSymlink | 0o777}), entry: "b/plan.tfplan", want: "not a regular file or directory"},
		{name: "symlink named like a dir", zip: entries(entry{name: "b/", attrs: 0o120777}), entry: "b/", want: "not a regular file or directory"},
		{name: "symlink by raw mode bits", zip: entries(entry{name: "b", body: "/", attrs: 0o120777}), entry: "b", want: "not a regular file or directory"},
		{name: "socket", zip: entries(entry{name: "s", attrs: 0o140777}), entry: "s", want: "not a regular file or directory"},
		{name: "named pipe", zip: entries(entry{name: "fifo", mode: fs.ModeNamedPipe | 0o644}), entry: "fifo", want: "not a regular file or directory"},
		{name: "device", zip: entries(entry{name: "dev", mode: fs.ModeDevice | 0o644}), entry: "dev", want: "not a regular file or directory"},
		{name: "encrypted entry", zip: entries(entry{name: "x", body: "x", flags: 1}), entry: "x", want: "encrypted"},
		{name: "duplicate", zip: entries(entry{name: "a/m", body: "1"}, entry{name: "a/m", body: "2"}), entry: "a/m", want: "appears twice"},
		{name: "file and dir", zip: entries(entry{name: "a", body: "1"}, entry{name: "a/"}), entry: "a/", want: "appears twice"},
		{name: "file as dir", zip: entries(entry{name: "a", body: "1"}, entry{name: "a/b", body: "2"}), entry: "a/b", want: `where entry "a" is a file`},
		{name: "too many files", lim: Limits{MaxFiles: 3}, zip: entries(entry{name: "1"}, entry{name: "2"}, entry{name: "3"}, entry{name: "4"}), want: "4 entries, more than the 3 allowed"},
		{name: "default file limit", zip: func(t *testing.T) []byte {
			es := make([]entry, 1001)
			for i := range es {
				es[i] = entry{name: strings.Repeat("a", i+1)}
			}
			return zipOf(t, es...)
		}, want: "1001 entries, more than the 1000 allowed"},
		{name: "too large", lim: Limits{MaxBytes: 1 << 20}, zip: entries(entry{name: "a", body: zeros[:1<<19]}, entry{name: "b", body: zeros[:1<<19+1]}),
			entry: "b", want: "claim more than 1048576 bytes"},
		{name: "bomb", lim: Limits{MaxBytes: 1 << 20}, zip: entries(entry{name: "bomb", body: zeros, deflate: true}), entry: "bomb", want: "claim more than"},
		{name: "lying header", lim: Limits{MaxBytes: 1 << 20}, zip: lyingZip(1<<20-100, 2<<20), kind: ErrMalformed, entry: "liar", want: "damaged"},
		{name: "not a zip", zip: func(*testing.T) []byte { return []byte("PK\x03\x04 nope") }, kind: ErrMalformed, want: "not a zip archive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parent := t.TempDir()
			dest := filepath.Join(parent, "dest")
			err := Unzip(tt.zip(t), dest, tt.lim)
			kind := tt.kind
			if kind == nil {
				kind = ErrUnsafeArchive
			}
			if !errors.Is(err, kind) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Unzip = %v, want %v saying %q", err, kind, tt.want)
			}
			if tt.entry != "" && !strings.Contains(err.Error(), tt.entry) {
				t.Errorf("error %q does not name entry %q", err, tt.entry)
			}
			if kind == ErrUnsafeArchive {
				if _, err := os.Stat(dest); !os.IsNotExist(err) {
					t.Errorf("a refused archive created %s", dest)
				}
			}
			assertInside(t, parent, dest)
		})
	}
}

// TestUnzipCountsWhileDecompressing: archive/zip stops an entry at its header's size, and
// Unzip refuses headers claiming more than MaxBytes; the count while copying is the third
// line, tested here directly.
func TestUnzipCountsWhileDecompressing(t *testing.T) {
	lr := &limitedReader{r: bytes.NewReader(make([]byte, 101)), left: 100}
	if _, err := io.Copy(io.Discard, lr); !errors.Is(err, errTooLarge) {
		t.Fatalf("101 bytes through a 100-byte limit: %v", err)
	}
	lr = &limitedReader{r: bytes.NewReader(make([]byte, 100)), left: 100}
	if n, err := io.Copy(io.Discard, lr); err != nil || n != 100 {
		t.Fatalf("100 bytes through a 100-byte limit: %d, %v", n, err)
	}
}

func TestUnzipIgnoresModeBitsBeyondType(t *testing.T) {
	dest := filepath.Join(t.TempDir(), "d")
	if err := Unzip(zipOf(t, entry{name: "x", body: "x", mode: fs.ModeSetuid | 0o4777}), dest, Limits{}); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(filepath.Join(dest, "x")); st.Mode() != 0o600 {
		t.Fatalf("a setuid entry became %v, want 0600", st.Mode())
	}
}

func entries(es ...entry) func(t *testing.T) []byte {
	return func(t *testing.T) []byte { return zipOf(t, es...) }
}

// lyingZip holds one deflated entry of real zeros whose header claims claimed bytes.
func lyingZip(claimed uint64, real int) func(t *testing.T) []byte {
	return func(t *testing.T) []byte {
		var comp bytes.Buffer
		fw, _ := flate.NewWriter(&comp, flate.BestCompression)
		fw.Write(make([]byte, real))
		fw.Close()
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		h := &zip.FileHeader{Name: "liar", Method: zip.Deflate, CompressedSize64: uint64(comp.Len()), UncompressedSize64: claimed}
		h.SetMode(0o644)
		w, err := zw.CreateRaw(h)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(comp.Bytes())
		zw.Close()
		return buf.Bytes()
	}
}

// assertInside fails when anything under parent is outside dest, or is not a plain file
// or directory.
func assertInside(t testing.TB, parent, dest string) {
	t.Helper()
	filepath.WalkDir(parent, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		if p == dest || strings.HasPrefix(dest, p+string(filepath.Separator)) {
			return nil // dest and the directories leading to it
		}
		if !strings.HasPrefix(p, dest+string(filepath.Separator)) {
			t.Fatalf("Unzip wrote %s, outside %s", p, dest)
		}
		if !d.Type().IsRegular() && !d.IsDir() {
			t.Fatalf("Unzip made %s of type %v", p, d.Type())
		}
		return nil
	})
}

func FuzzUnzip(f *testing.F) {
	f.Add(uploadLayout(f))
	f.Add(zipOf(f, entry{name: "../evil", body: "x"}))
	f.Add(zipOf(f, entry{name: "a/", mode: fs.ModeDir | fs.ModeSymlink | 0o777}, entry{name: "a/b", body: "x"}))
	f.Add(zipOf(f, entry{name: "l", body: "..", mode: fs.ModeSymlink | 0o777}, entry{name: "l/x", body: "x"}))
	f.Add(zipOf(f, entry{name: `..\x`, body: "x"}, entry{name: "a", body: strings.Repeat("z", 4096), deflate: true}))
	f.Add([]byte("PK\x05\x06" + strings.Repeat("\x00", 18)))
	// One directory per worker process, not per input: a t.TempDir each costs more than
	// Unzip. dest sits four levels deep so that an entry escaping it by up to four ".."
	// would still land where the walk looks.
	parent := f.TempDir()
	dest := filepath.Join(parent, "1", "2", "3", "dest")
	if err := os.MkdirAll(filepath.Dir(dest), 0o700); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := os.Lstat(dest); err == nil {
			if err := os.RemoveAll(dest); err != nil {
				t.Fatal(err)
			}
		}
		err := Unzip(data, dest, Limits{MaxFiles: 64, MaxBytes: 1 << 20})
		if err != nil && !errors.Is(err, ErrUnsafeArchive) && !errors.Is(err, ErrMalformed) && !errors.Is(err, fs.ErrExist) {
			// Case-insensitive file systems make "A" and "a" collide (ErrExist); anything
			// else is an error kind callers cannot tell apart.
			if !strings.Contains(err.Error(), "unzip ") {
				t.Fatalf("Unzip error of no known kind: %v", err)
			}
		}
		assertInside(t, parent, dest)
	})
}
