//go:build unix

package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A regular file is read into memory outside the heap, a snapshot: the file changed or cut
// short afterwards changes nothing. Parts given back to the system read as zero bytes
// (never JSON), whole pages only: a page the part shares with its neighbours keeps its
// bytes. A slice of anything else is ignored.
func TestOpenInputMapped(t *testing.T) {
	page := os.Getpagesize()
	want := bytes.Repeat([]byte(`{"a":"0123456789"},`), 4*page/19+1) // several pages
	name := filepath.Join(t.TempDir(), "plan.json")
	if err := os.WriteFile(name, want, 0o644); err != nil {
		t.Fatal(err)
	}
	in, err := openInput(strings.NewReader(""), name, true)
	if err != nil {
		t.Fatal(err)
	}
	defer in.close()
	if in.release == nil {
		t.Fatal("a regular file was read into the heap, not mapped")
	}
	if err := os.WriteFile(name, bytes.Repeat([]byte("x"), len(want)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(name, 10); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(in.data, want) {
		t.Fatal("the mapped plan changed with its file")
	}
	lo, hi := 100, 3*page+50 // pages 1 and 2 lie wholly inside
	in.release(in.data[lo:hi])
	in.release([]byte("not a part of the file"))
	in.release(in.data[:0])
	for i, b := range in.data {
		released := i >= page && i < 3*page
		if released && b != 0 || !released && b != want[i] {
			t.Fatalf("byte %d is %q after releasing [%d, %d)", i, b, lo, hi)
		}
	}
	if err := in.close(); err != nil {
		t.Fatal(err)
	}
	in.close = func() error { return nil } // closed once
	if err := os.WriteFile(name, want, 0o644); err != nil {
		t.Fatal(err)
	}

	read, err := openInput(strings.NewReader(""), name, false)
	if err != nil || read.release != nil || !bytes.Equal(read.data, want) {
		t.Errorf("read without mapping: release %v, err %v", read.release != nil, err)
	}
	empty := filepath.Join(t.TempDir(), "empty.json")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if e, err := openInput(strings.NewReader(""), empty, true); err != nil || e.release != nil || len(e.data) != 0 {
		t.Errorf("empty file: %v, %v", e, err)
	}
	stdin, err := openInput(strings.NewReader("{}"), "-", true)
	if err != nil || stdin.release != nil || string(stdin.data) != "{}" {
		t.Errorf("standard input: %v, %v", stdin, err)
	}
}
