package main

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/tfgate/tfgate/internal/secret"
)

// noleak CANARIES PATH... fails when any canary (one per line of the file CANARIES; `\n`
// inside a line stands for a newline) appears in any spelling (secret.EscapedForms and
// secret.NumberForms, of the whole value and of each of its lines) in any file at PATH or,
// for a directory, below it. The leak corpus (leaks_*.txtar) writes every output path it
// knows to files and scans them with it; a new output path joins by adding its files.
func cmdNoLeak(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: noleak CANARIES PATH...")
	}
	var spellings []string
	for _, c := range strings.Split(strings.TrimSpace(ts.ReadFile(args[0])), "\n") {
		c = strings.ReplaceAll(strings.TrimSpace(c), `\n`, "\n")
		if c == "" {
			continue
		}
		parts := append([]string{c}, strings.Split(c, "\n")...)
		for _, p := range parts {
			spellings = append(spellings, secret.EscapedForms(p)...)
			spellings = append(spellings, secret.NumberForms(p)...)
		}
	}
	scanned := 0
	for _, root := range args[1:] {
		err := filepath.WalkDir(ts.MkAbs(root), func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			scanned++
			for _, s := range spellings {
				if i := strings.Index(string(data), s); i >= 0 {
					from, to := max(0, i-80), min(len(data), i+len(s)+40)
					ts.Fatalf("%s: canary spelling %q leaked: …%s…", path, s, data[from:to])
				}
			}
			return nil
		})
		if err != nil {
			ts.Fatalf("noleak %s: %v", root, err)
		}
	}
	ts.Logf("noleak: %d files clean of %d spellings", scanned, len(spellings))
}
