// Package bundle writes and reads plan bundles: a saved plan file plus a manifest that pins
// it to the project, the commit, the exact input files and the terraform version, so that
// apply can prove it runs exactly the plan reviewers saw.
package bundle

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/tfgate/tfgate/internal/plan"
)

// SchemaVersion of manifest.json; bump on incompatible changes.
const SchemaVersion = 1

// File names inside a bundle directory.
const (
	ManifestFile = "manifest.json"
	PlanFile     = "plan.tfplan"
)

// Manifest describes one project's saved plan.
type Manifest struct {
	SchemaVersion int    `json:"schema_version"`
	Project       string `json:"project"`
	Dir           string `json:"dir"`
	Workspace     string `json:"workspace"`
	Commit        string `json:"commit"`       // full SHA of HEAD when planned ("" outside git)
	Dirty         bool   `json:"dirty"`        // the working tree differed from Commit: the plan is not of Commit alone
	PR            int    `json:"pr,omitempty"` // the pull request it was planned for
	// Applicable is false for a plan that must never be applied whatever the gate says:
	// of a fork's pull request (its code ran without the repository's trust), or of a
	// dirty working tree.
	Applicable       bool              `json:"applicable"`
	Inputs           map[string]string `json:"inputs"`     // root-relative path → sha256 of every input file
	InputHash        string            `json:"input_hash"` // sha256 over the sorted Inputs
	TerraformVersion string            `json:"terraform_version"`
	PlanFile         string            `json:"plan_file"`
	PlanSHA256       string            `json:"plan_sha256"`
	HasChanges       bool              `json:"has_changes"`
	Summary          plan.Summary      `json:"summary"`
	CreatedAt        time.Time         `json:"created_at"`
	TfgateVersion    string            `json:"tfgate_version"`
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// DirName is the directory of a project's bundle inside an --out directory.
func DirName(project, workspace string) string {
	name := unsafeChars.ReplaceAllString(project, "_")
	if strings.HasPrefix(name, ".") || name == "" { // never "." or ".." or a hidden dir
		name = "_" + name
	}
	if workspace != "" && workspace != "default" {
		name += "@" + unsafeChars.ReplaceAllString(workspace, "_")
	}
	return name
}

// HashInputs returns the sha256 of each file (root-relative slash paths) and the input hash
// over all of them. The input hash changes when any file's path or content changes.
func HashInputs(ctx context.Context, root string, files []string) (map[string]string, string, error) {
	sums := make(map[string]string, len(files))
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return nil, "", err
		}
		sum, err := fileSHA256(filepath.Join(root, filepath.FromSlash(f)))
		if err != nil {
			return nil, "", fmt.Errorf("hash input %s: %w", f, err)
		}
		sums[f] = sum
	}
	return sums, InputHash(sums), nil
}

// InputHash combines per-file sums into one, independent of map order.
func InputHash(sums map[string]string) string {
	paths := make([]string, 0, len(sums))
	for p := range sums {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	h := sha256.New()
	for _, p := range paths {
		fmt.Fprintf(h, "%s\x00%s\n", p, sums[p])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Write completes a bundle in dir, where terraform already wrote PlanFile: it records the
// plan's sha256 in the manifest and writes manifest.json.
func Write(ctx context.Context, dir string, m Manifest) (Manifest, error) {
	if err := ctx.Err(); err != nil {
		return m, err
	}
	sum, err := fileSHA256(filepath.Join(dir, PlanFile))
	if err != nil {
		return m, fmt.Errorf("bundle %s: %w", m.Project, err)
	}
	m.SchemaVersion = SchemaVersion
	m.PlanFile = PlanFile
	m.PlanSHA256 = sum
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return m, err
	}
	if err := os.WriteFile(filepath.Join(dir, ManifestFile), append(data, '\n'), 0o600); err != nil {
		return m, fmt.Errorf("bundle %s: %w", m.Project, err)
	}
	return m, nil
}

// Read loads a bundle's manifest from dir.
func Read(ctx context.Context, dir string) (Manifest, error) {
	var m Manifest
	if err := ctx.Err(); err != nil {
		return m, err
	}
	data, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil {
		return m, fmt.Errorf("read bundle: %w", err)
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return m, fmt.Errorf("read bundle %s: %w", filepath.Join(dir, ManifestFile), err)
	}
	if m.SchemaVersion != SchemaVersion {
		return m, fmt.Errorf("read bundle %s: schema_version %d, this tfgate reads %d", dir, m.SchemaVersion, SchemaVersion)
	}
	return m, nil
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
