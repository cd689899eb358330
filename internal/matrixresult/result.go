// Package matrixresult is the file a matrix job leaves beside its plan bundles for `tfgate
// publish`: DIR/tfgate-result.json. It holds the run's JSON report (render's documented
// schema, for people and tools) and a faithful, versioned encoding of the report.Run that
// report was rendered from, so that publish renders exactly what one job planning every
// project would have. Nothing in it is secret: a report.Run is redacted and masked before
// it exists (see report.Project), and the plan files stay in the bundles.
package matrixresult

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tfgate/tfgate/internal/render"
	"github.com/tfgate/tfgate/internal/report"
)

// FileName is the result's name in the --out directory. Bundle directories never clash
// with it: they are named after projects, and a project's files are in a directory.
const FileName = "tfgate-result.json"

// Version of the file's format (its "tfgate_result" key). Publish refuses any other: the
// matrix jobs and the publish job of one workflow run the same tfgate.
const Version = 1

// File is the whole document.
type File struct {
	Version       int    `json:"tfgate_result"`  // Version
	TfgateVersion string `json:"tfgate_version"` // the tfgate that planned
	// Commit is the pull request's head commit the run planned (the commit its comment and
	// statuses are about); "" outside a pull request.
	Commit string `json:"commit"`
	PR     int    `json:"pr"` // the pull request; 0 when none
	// Asked are the project names the job was given (`plan --changed NAME`), so that a run
	// that stopped before planning still says whose result it is.
	Asked []string `json:"asked"`
	// Stopped says why the run stopped before planning anything (already masked); "" when
	// it planned. A stopped run has no projects.
	Stopped string `json:"stopped,omitempty"`
	// Report is the run as `tfgate plan --format json` writes it (render.JSONReport).
	Report json.RawMessage `json:"report"`
	// Run is the run itself, in full (see encodeRun). Bundle paths in it are relative to the
	// directory holding the file.
	Run json.RawMessage `json:"run"`
	// Scope is why change detection chose the run's projects (the comment's graph); absent
	// when the run did not detect changes.
	Scope *Scope `json:"scope,omitempty"`
}

// Result is a File read back: the run decoded, its bundle paths under Dir.
type Result struct {
	Path string // the file read
	Dir  string // its directory
	File
	Decoded report.Run
}

// Write writes dir/tfgate-result.json for run, with the rest of f as given (Version,
// Report and Run are filled in). Bundle paths under dir are written relative to it.
func Write(dir string, f File, run report.Run) error {
	var rep bytes.Buffer
	if err := render.JSON(&rep, run); err != nil {
		return err
	}
	enc, err := json.Marshal(encodeRun(run, dir))
	if err != nil {
		return fmt.Errorf("encode the run: %w", err)
	}
	f.Version, f.Report, f.Run, f.Scope = Version, bytes.TrimSpace(rep.Bytes()), enc, encodeScope(run.Scope)
	if f.Asked == nil {
		f.Asked = []string{}
	}
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", FileName, err)
	}
	path := filepath.Join(dir, FileName)
	// O_EXCL: --out was empty, so anything there already is not ours to replace.
	out, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("write %s: %w", FileName, err)
	}
	_, err = out.Write(append(data, '\n'))
	return errors.Join(err, out.Close())
}

// Read reads the result at path.
func Read(path string) (Result, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Result{}, err
	}
	return Parse(data, path)
}

// Parse reads a result's content data, as Read reads the file at path (bundle paths in it
// are relative to path's directory; path names it in errors).
func Parse(data []byte, path string) (Result, error) {
	var head struct {
		Version *int `json:"tfgate_result"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return Result{}, fmt.Errorf("%s: not a tfgate result: %w", path, err)
	}
	switch {
	case head.Version == nil:
		return Result{}, fmt.Errorf("%s: not a tfgate result (no \"tfgate_result\" version)", path)
	case *head.Version != Version:
		return Result{}, fmt.Errorf("%s: result format %d, this tfgate reads %d: run the matrix jobs and publish with the same tfgate", path, *head.Version, Version)
	}
	r := Result{Path: path, Dir: filepath.Dir(path)}
	var err error
	if err = json.Unmarshal(data, &r.File); err != nil {
		return Result{}, fmt.Errorf("%s: %w", path, err)
	}
	if r.Decoded, err = decodeRun(r.Run, r.Dir); err != nil {
		return Result{}, fmt.Errorf("%s: %w", path, err)
	}
	r.Decoded.Scope = decodeScope(r.Scope)
	return r, nil
}
