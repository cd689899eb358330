package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"

	"github.com/rogpeppe/go-internal/testscript"
)

// nocommands PATH... fails when a line of any file at PATH (or below it) is one the
// GitHub Actions runner could read as a workflow command — after white space, ignorable
// characters and ANSI sequences it starts with "::" (ActionCommand.TryParseV2), or it holds
// "##[" anywhere (the legacy TryParse) — unless it is one of tfgate's own: an annotation
// (::error or ::warning with escaped properties and data) or the stop-commands fence. The
// files are what tfgate printed on stdout and stderr; the checks are the test's own, apart
// from the guard's code (render.CommandGuard).
func cmdNoCommands(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: nocommands PATH...")
	}
	scanned, own := 0, 0
	eachFile(ts, args, func(path string, data []byte) {
		scanned++
		for i, l := range strings.FieldsFunc(string(data), func(r rune) bool { return r == '\n' || r == '\r' }) {
			if ownCommand.MatchString(l) && !strings.Contains(l, "##[") {
				own++
				continue
			}
			if runnerCommand(l) {
				ts.Fatalf("%s:%d: the runner reads a workflow command: %q", path, i+1, l)
			}
		}
	})
	ts.Logf("nocommands: %d files, %d of tfgate's own commands", scanned, own)
}

var (
	ownCommand = regexp.MustCompile(`^::(error|warning)( (file|line|col|title)=[^:,]*(,(file|line|col|title)=[^:,]*)*)?::[^\r\n]*$|^::stop-commands::tfgate-[0-9a-f]{32}$|^::tfgate-[0-9a-f]{32}::$`)
	ansiSeq    = regexp.MustCompile("\x1b\\[[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]")
)

func runnerCommand(l string) bool {
	l = ansiSeq.ReplaceAllString(l, "")
	l = strings.Map(func(r rune) rune {
		if unicode.In(r, unicode.Cc, unicode.Cf, unicode.Mn, unicode.Me) {
			return -1
		}
		return r
	}, l)
	l = strings.TrimLeftFunc(l, unicode.IsSpace)
	return strings.HasPrefix(l, "::") || strings.Contains(l, "##[")
}

// nomarkers PATH... fails when markdown at PATH (GitHub bodies, markdown tfgate printed)
// holds "<!" anywhere but on a line of its own that is one of tfgate's hidden markers
// outside every code block: rendered text never opens an HTML comment, so no marker can be
// forged.
func cmdNoMarkers(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: nomarkers PATH...")
	}
	markers := 0
	eachFile(ts, args, func(path string, data []byte) {
		fence := ""
		for i, l := range strings.Split(string(data), "\n") {
			l = strings.TrimSuffix(l, "\r")
			if fence != "" {
				if t := strings.TrimLeft(l, " "); strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]+" ") == "" {
					fence = ""
				}
			} else if m := fenceRE.FindStringSubmatch(l); m != nil {
				fence = m[1]
			} else if ownMarker.MatchString(l) {
				markers++
				continue
			}
			if strings.Contains(l, "<!") {
				ts.Fatalf("%s:%d: \"<!\" in rendered text: %q", path, i+1, l)
			}
		}
	})
	ts.Logf("nomarkers: %d of tfgate's markers", markers)
}

var (
	fenceRE   = regexp.MustCompile("^ {0,3}(`{3,}|~{3,})")
	ownMarker = regexp.MustCompile(`^<!-- /?tfgate:[a-z][a-z0-9-]*( [a-z_]+=[A-Za-z0-9._~/@+=:%-]+)* -->$`)
)

func eachFile(ts *testscript.TestScript, paths []string, f func(path string, data []byte)) {
	for _, root := range paths {
		err := filepath.WalkDir(ts.MkAbs(root), func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := os.ReadFile(path)
			if err == nil {
				f(path, data)
			}
			return err
		})
		if err != nil {
			ts.Fatalf("%s: %v", root, err)
		}
	}
}
