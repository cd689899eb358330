package bundle

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tarOf is a tar archive of the given headers, each with its body (for regular files).
func tarOf(t testing.TB, files ...tarFile) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, f := range files {
		h := f.h
		if h.Typeflag == 0 {
			h.Typeflag = tar.TypeReg
		}
		if h.Mode == 0 {
			h.Mode = 0o600
		}
		if h.Typeflag == tar.TypeReg {
			h.Size = int64(len(f.body))
		}
		if err := tw.WriteHeader(&h); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(f.body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

type tarFile struct {
	h    tar.Header
	body string
}

// FuzzUntarBundle feeds untarBundle, the reader of a sealed bundle's decrypted archive,
// any bytes: whoever holds the plan key can seal whatever archive they like. It never
// writes outside its directory, never writes anything but the plan file, and either fails
// with an error of a known kind or returns the manifest with the plan file in place.
func FuzzUntarBundle(f *testing.F) {
	good := tarOf(f, tarFile{h: tar.Header{Name: ManifestFile}, body: `{"schema":1}`}, tarFile{h: tar.Header{Name: PlanFile}, body: "plan"})
	f.Add(good)
	f.Add(good[:len(good)-700])
	f.Add(tarOf(f, tarFile{h: tar.Header{Name: "../" + PlanFile}, body: "x"}))
	f.Add(tarOf(f, tarFile{h: tar.Header{Name: PlanFile, Typeflag: tar.TypeSymlink, Linkname: "/etc/passwd"}}))
	f.Add(tarOf(f, tarFile{h: tar.Header{Name: PlanFile, Typeflag: tar.TypeLink, Linkname: ManifestFile}}))
	f.Add(tarOf(f, tarFile{h: tar.Header{Name: PlanFile}, body: "a"}, tarFile{h: tar.Header{Name: PlanFile}, body: "b"}))
	f.Add(tarOf(f, tarFile{h: tar.Header{Name: "dir/", Typeflag: tar.TypeDir}}, tarFile{h: tar.Header{Name: ManifestFile}, body: "{}"}))
	f.Add(sparseTar(1 << 40))
	parent := f.TempDir()
	out := filepath.Join(parent, "1", "2", "out")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.RemoveAll(out); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(out, 0o700); err != nil {
			t.Fatal(err)
		}
		manifest, err := untarBundle(bytes.NewReader(data), out)
		if err != nil {
			if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrTampered) {
				t.Fatalf("error of no known kind: %v", err)
			}
		} else {
			if manifest == nil {
				t.Fatal("no error and no manifest")
			}
			if _, err := os.Lstat(filepath.Join(out, PlanFile)); err != nil {
				t.Fatalf("no error, but no plan file: %v", err)
			}
		}
		// Only the plan file may exist, inside out, as a regular file; nothing else anywhere
		// under parent.
		err = filepath.WalkDir(parent, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				return nil
			}
			if p != filepath.Join(out, PlanFile) || !d.Type().IsRegular() {
				t.Errorf("untarBundle left %s (%s)", p, d.Type())
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}

// ustarBlock is one raw ustar header block: archive/tar's writer will not write the PAX
// records of a sparse file, so the test spells them out.
func ustarBlock(name string, size int, typeflag byte) []byte {
	b := make([]byte, 512)
	copy(b[0:], name)
	copy(b[100:], "0000600\x00")
	copy(b[108:], "0000000\x00")
	copy(b[116:], "0000000\x00")
	copy(b[124:], fmt.Sprintf("%011o\x00", size))
	copy(b[136:], "00000000000\x00")
	b[156] = typeflag
	copy(b[257:], "ustar\x0000")
	copy(b[148:], "        ")
	sum := 0
	for _, c := range b {
		sum += int(c)
	}
	copy(b[148:], fmt.Sprintf("%06o\x00 ", sum))
	return b
}

func pad(b []byte) []byte { return append(b, make([]byte, (512-len(b)%512)%512)...) }

// sparseTar is a 2.5 KB archive whose plan file is a GNU sparse file (PAX format 1.0) of
// realsize bytes, all of them a hole.
func sparseTar(realsize int64) []byte {
	rec := func(k, v string) string {
		s := " " + k + "=" + v + "\n"
		for n := len(s); ; {
			r := fmt.Sprint(n) + s
			if len(r) == n {
				return r
			}
			n = len(r)
		}
	}
	pax := rec("GNU.sparse.major", "1") + rec("GNU.sparse.minor", "0") + rec("GNU.sparse.name", PlanFile) +
		rec("GNU.sparse.realsize", fmt.Sprint(realsize))
	var out []byte
	out = append(out, ustarBlock("PaxHeaders/x", len(pax), 'x')...)
	out = append(out, pad([]byte(pax))...)
	out = append(out, ustarBlock("GNUSparseFile.0/"+PlanFile, 512, '0')...)
	out = append(out, pad([]byte("1\n0\n0\n"))...)
	return append(out, make([]byte, 1024)...)
}

// A sparse plan file would expand 2.5 KB of sealed archive into gigabytes on the runner's
// disk: refused before anything is written.
func TestUntarBundleRefusesSparse(t *testing.T) {
	out := t.TempDir()
	_, err := untarBundle(bytes.NewReader(sparseTar(10<<30)), out)
	if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "sparse") {
		t.Fatalf("error %v, want a sparse-file refusal", err)
	}
	if _, err := os.Lstat(filepath.Join(out, PlanFile)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the plan file was written: %v", err)
	}
}

// An entry claiming more than a sealed bundle may hold is refused before it is read.
func TestUntarBundleRefusesOversizedEntry(t *testing.T) {
	defer func(n int64) { maxOpen = n }(maxOpen)
	maxOpen = 1024
	data := tarOf(t, tarFile{h: tar.Header{Name: ManifestFile}, body: "{}"}, tarFile{h: tar.Header{Name: PlanFile}, body: strings.Repeat("p", 2048)})
	if _, err := untarBundle(bytes.NewReader(data), t.TempDir()); !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "more than") {
		t.Fatalf("error %v, want a size refusal", err)
	}
}
