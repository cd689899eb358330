//go:build unix

package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A regular file is mapped, not copied: parts given back to the system read the same
// afterwards (it reads them from the file again), and a slice of anything else is ignored.
func TestOpenInputMapped(t *testing.T) {
	want := bytes.Repeat([]byte(`{"a":"0123456789"},`), 4000) // several pages
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
		t.Fatal("a regular file was read, not mapped")
	}
	in.release(in.data[100 : len(in.data)-100])
	in.release([]byte("not a part of the file"))
	in.release(in.data[:0])
	if !bytes.Equal(in.data, want) {
		t.Error("the mapped file reads differently after its parts were released")
	}
	if err := in.close(); err != nil {
		t.Fatal(err)
	}
	in.close = func() error { return nil } // closed once

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
