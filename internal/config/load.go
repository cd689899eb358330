package config

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/tfgate/tfgate/internal/yamlguard"
)

// Load reads the configuration at path; a relative path is relative to root and "" means
// FileName. When the file does not exist and explicit is false, Load returns Default();
// when explicit is true (the user named the file with --config) a missing file is an
// error. Errors name the file relative to root when it is inside root, which is the form
// CI annotations need; Config.File is the path that was read.
func Load(ctx context.Context, root, path string, explicit bool) (*Config, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if path == "" {
		path = FileName
	}
	full := path
	if !filepath.IsAbs(path) {
		full = filepath.Join(root, path)
	}
	name := displayName(root, full)
	data, err := os.ReadFile(full)
	switch {
	case errors.Is(err, fs.ErrNotExist) && explicit:
		return nil, &Error{File: name, Msg: "no such file; check the --config path", err: err}
	case errors.Is(err, fs.ErrNotExist):
		return defaultUnlessMisnamed(root, path)
	case err != nil:
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, &Error{File: name, Msg: "cannot read the file: " + pe.Err.Error(), err: err}
		}
		return nil, &Error{File: name, Msg: "cannot read the file: " + err.Error(), err: err}
	}
	cfg, err := Parse(data, name, root)
	if err != nil {
		return nil, err
	}
	cfg.File = full
	return cfg, nil
}

// defaultUnlessMisnamed returns Default() unless a .tfgate.yml sits where .tfgate.yaml was
// expected: silently ignoring a file that holds approval rules would weaken the gate.
func defaultUnlessMisnamed(root, path string) (*Config, error) {
	if path == FileName {
		alt := strings.TrimSuffix(FileName, ".yaml") + ".yml"
		if _, err := os.Stat(filepath.Join(root, alt)); err == nil {
			return nil, &Error{File: alt, Msg: fmt.Sprintf("tfgate reads %s; rename this file", FileName)}
		}
	}
	return Default(), nil
}

// displayName is full relative to root in slash form when it lies inside root.
func displayName(root, full string) string {
	absRoot, err1 := filepath.Abs(root)
	absFull, err2 := filepath.Abs(full)
	if err1 != nil || err2 != nil {
		return full
	}
	rel, err := filepath.Rel(absRoot, absFull)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return full
	}
	return filepath.ToSlash(rel)
}

// Parse validates data as if read from the file called name. root is the repository root
// used to check that project dirs, var files and policy paths exist; "" skips those checks
// (for a configuration read from another commit). It returns every problem found, as one
// *Error or as Errors.
func Parse(data []byte, name, root string) (*Config, error) {
	d := &decoder{file: name, root: root}
	doc, err := d.document(data)
	if err != nil {
		return nil, err
	}
	cfg := Default()
	if doc != nil {
		cfg = d.config(doc)
	}
	if err := d.errs.asError(); err != nil {
		return nil, err
	}
	cfg.File = name
	return cfg, nil
}

// document returns the file's single top-level node. An empty file (only comments, or
// nothing) is an error like "{}" is: it lacks "version: 1".
func (d *decoder) document(data []byte) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
		return nil, &Error{File: d.file, Line: 1, Msg: `the file is empty; write "version: 1" (and the settings you need), or remove the file to autodetect everything`}
	} else if err != nil {
		return nil, d.syntaxError(data, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, &Error{File: d.file, Line: extra.Line, Column: extra.Column,
			Msg: `a second YAML document starts here; the file holds one, so remove the "---" line`}
	} else if !errors.Is(err, io.EOF) {
		return nil, d.syntaxError(data, err)
	}
	// The decoder expands aliases and merge keys as it goes: a recursive one would never
	// end, and a chain of them would take for ever.
	var p *yamlguard.Problem
	if err := yamlguard.Aliases(&doc); errors.As(err, &p) {
		return nil, &Error{File: d.file, Line: p.Line, Column: p.Column, Msg: p.Msg}
	}
	if len(doc.Content) == 0 || isNull(doc.Content[0]) {
		return nil, &Error{File: d.file, Line: 1, Msg: `the file is empty; write "version: 1" (and the settings you need), or remove the file to autodetect everything`}
	}
	return doc.Content[0], nil
}

var (
	yamlLine      = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)
	unknownAnchor = regexp.MustCompile(`^yaml: unknown anchor '(.*)' referenced$`)
)

// parserProblem reports whether msg comes from yaml.v3's parser rather than its scanner.
func parserProblem(msg string) bool {
	for _, p := range []string{
		"did not find expected ',' or ']'", "did not find expected ',' or '}'",
		"did not find expected '-' indicator", "did not find expected key",
		"did not find expected node content", "did not find expected <",
		"found duplicate %", "found incompatible YAML document", "found undefined tag handle",
	} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

// lineOf is the 1-based line of the first occurrence of s in data, or 0; yaml.v3 reports
// some errors without a line.
func lineOf(data []byte, s string) int {
	i := bytes.Index(data, []byte(s))
	if i < 0 {
		return 0
	}
	return bytes.Count(data[:i], []byte("\n")) + 1
}

// syntaxError turns a yaml.v3 parse error ("yaml: line 3: ...") into an *Error.
func (d *decoder) syntaxError(data []byte, err error) error {
	e := &Error{File: d.file, Msg: "invalid YAML: " + strings.TrimPrefix(err.Error(), "yaml: "), err: err}
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		e.Line, _ = strconv.Atoi(m[1])
		e.Msg = "invalid YAML: " + m[2]
		if parserProblem(m[2]) {
			// yaml.v3 reports parser (not scanner) errors with a 0-based line: that of the
			// enclosing mapping or list.
			e.Line++
		}
	}
	if m := unknownAnchor.FindStringSubmatch(err.Error()); m != nil {
		e.Line = lineOf(data, "*"+m[1])
	}
	if strings.Contains(err.Error(), "cannot start any token") && bytes.Contains(data, []byte("\t")) {
		e.Msg += "; indent with spaces, not tabs"
	}
	return e
}
