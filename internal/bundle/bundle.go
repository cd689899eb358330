// Package bundle writes, seals, fetches and opens plan bundles: a saved plan file plus a
// manifest that pins it to the project, the commit, the exact input files, the terraform
// version and the policy verdict, so that apply can prove it runs exactly the plan reviewers
// saw.
//
// A bundle is a directory (DirName) inside an --out directory:
//
//	manifest.json   always in clear text; carries no secrets
//	plan.tfplan     the plan file terraform wrote (plain bundles)
//	bundle.age      manifest.json and plan.tfplan, age-encrypted (sealed bundles, see Seal)
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

	"github.com/tfgate/tfgate/internal/fileio"
	"github.com/tfgate/tfgate/internal/plan"
)

// SchemaVersion of manifest.json; bump on incompatible changes.
const SchemaVersion = 1

// File names inside a bundle directory.
const (
	ManifestFile = "manifest.json"
	PlanFile     = "plan.tfplan"
	SealedFile   = "bundle.age"
)

// maxManifestBytes bounds what Read loads: a manifest lists every input file's sum, so a
// large monorepo project makes a few hundred KiB; anything near this is not ours.
const maxManifestBytes = 16 << 20

// Manifest describes one project's saved plan.
type Manifest struct {
	SchemaVersion int    `json:"schema_version"`
	Project       string `json:"project"`
	Dir           string `json:"dir"`
	Workspace     string `json:"workspace"`
	Commit        string `json:"commit"` // full SHA of HEAD when planned (required: --out needs git)
	Dirty         bool   `json:"dirty"`  // the working tree differed from Commit: the plan is not of Commit alone
	// PlannedCommit is the commit checked out when it is not Commit itself: GitHub's test
	// merge of the pull request's head Commit into its base (actions/checkout's default on
	// pull_request). Apply re-hashes the inputs on the real merge, so what the base changed
	// meanwhile is caught there. "" = Commit was checked out.
	PlannedCommit string `json:"planned_commit,omitempty"`
	PR            int    `json:"pr,omitempty"` // the pull request it was planned for
	// Applicable is false for a plan that must never be applied whatever the gate says:
	// of a fork's pull request (its code ran without the repository's trust), or of a
	// dirty working tree.
	Applicable       bool              `json:"applicable"`
	Inputs           map[string]string `json:"inputs"`     // root-relative path → sha256 of every input file
	InputHash        string            `json:"input_hash"` // sha256 over the sorted Inputs
	TerraformVersion string            `json:"terraform_version"`
	TerraformFlavor  string            `json:"terraform_flavor,omitempty"` // "terraform" or "tofu", whose versions overlap; "" before tfgate recorded it
	PlanFile         string            `json:"plan_file"`
	PlanSHA256       string            `json:"plan_sha256"`
	HasChanges       bool              `json:"has_changes"`
	Summary          plan.Summary      `json:"summary"`
	// ChangesDigest is plan.Digest of the plan: what a reviewer reads of it. An approval
	// given on an earlier plan of the same commit counts only while it is the same; ""
	// before tfgate recorded it.
	ChangesDigest string    `json:"changes_digest,omitempty"`
	CreatedAt     time.Time `json:"created_at"`
	TfgateVersion string    `json:"tfgate_version"`
	// Policy is the verdict the plan was reviewed with; nil when the writer recorded none
	// (what that means is the gate's call; failing closed is safe).
	Policy *PolicyVerdict `json:"policy,omitempty"`
	// Encrypted: the plan lives in bundle.age (Seal), not in plan.tfplan.
	Encrypted bool `json:"encrypted,omitempty"`
	// Unapplied are the merges of the default branch planned on that changed this project
	// and that no tfgate run had applied when it was planned: the plan is of the state
	// before their apply, stale once they are applied. UnappliedUnknown says why that could
	// not be told ("" = it was, or the plan was not of a pull request on GitHub).
	Unapplied        []UnappliedMerge `json:"unapplied,omitempty"`
	UnappliedUnknown string           `json:"unapplied_unknown,omitempty"`
	// PolicySum is what the policies read beside the plan, summed when it was judged (the
	// policy files, the project's name for them, its changed files, the author): a later
	// push reuses the plan only while it is the same (docs/busy-repositories.md). "" when
	// no policies judged it, or before tfgate recorded it.
	PolicySum string `json:"policy_sum,omitempty"`
	// EnvSum sums the TF_VAR_* and TF_CLI_ARGS* of terraform's environment when it planned
	// (stage.EnvSum): a later push reuses the plan only while it is the same. "" before
	// tfgate recorded it.
	EnvSum string `json:"env_sum,omitempty"`
	// ReusedFrom is the commit whose plan this is when a later push of the pull request
	// reused it (nothing it depends on changed): Commit is then the head it was reused
	// for. "" = planned on Commit.
	ReusedFrom string `json:"reused_from,omitempty"`
}

// UnappliedMerge is a pull request's merge on the default branch that no tfgate run had
// applied when a plan was made on it.
type UnappliedMerge struct {
	PR     int    `json:"pr"`
	Commit string `json:"commit"`
}

// PolicyVerdict is the policy result the plan was reviewed with.
type PolicyVerdict struct {
	Evaluated bool     `json:"evaluated"` // policies ran (false: no policies configured)
	Denied    bool     `json:"denied"`
	Denies    []string `json:"denies,omitempty"` // "policy-name: message", masked by the caller
	Warnings  int      `json:"warnings"`
	Error     string   `json:"error,omitempty"` // policies could not be evaluated: the gate fails closed
	// Approval is what the approval policies decided (docs/approval-policies.md); nil when
	// no approval rule decided (the configured counts apply).
	Approval *Approval `json:"approval,omitempty"`
}

// Approval is the approval policies' decision: the count, whether every rule allowed
// lowering it, the owners who must approve, and why.
type Approval struct {
	Required int      `json:"required"`
	Lower    bool     `json:"lower,omitempty"`
	Teams    []string `json:"teams,omitempty"`
	Reasons  []string `json:"reasons,omitempty"`
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
// plan's sha256 in the manifest and writes manifest.json. The returned manifest is what
// was written.
func Write(ctx context.Context, dir string, m Manifest) (Manifest, error) {
	if err := ctx.Err(); err != nil {
		return m, err
	}
	sum, err := fileSHA256(filepath.Join(dir, PlanFile))
	if err != nil {
		return m, fmt.Errorf("bundle %s: %w", m.Project, err)
	}
	return complete(dir, m, sum, writeManifest)
}

// complete records sum, the plan file's sha256, in m and writes m into dir with write.
func complete(dir string, m Manifest, sum string, write func(dir string, m Manifest) error) (Manifest, error) {
	m.SchemaVersion = SchemaVersion
	m.PlanFile = PlanFile
	m.PlanSHA256 = sum
	m.Encrypted = false
	if err := m.check(); err != nil { // a bundle apply would refuse is a bug here, not there
		return m, fmt.Errorf("bundle %s: %w", m.Project, err)
	}
	if err := write(dir, m); err != nil {
		return m, fmt.Errorf("bundle %s: %w", m.Project, err)
	}
	return m, nil
}

// Read loads and checks a bundle's manifest from dir. A manifest that is not one this
// tfgate wrote (unknown schema, missing fields, a plan_file other than plan.tfplan) is
// refused with an error wrapping ErrMalformed that names the file.
func Read(ctx context.Context, dir string) (Manifest, error) {
	if err := ctx.Err(); err != nil {
		return Manifest{}, err
	}
	path := filepath.Join(dir, ManifestFile)
	data, err := readLimited(path, maxManifestBytes)
	if err != nil {
		return Manifest{}, fmt.Errorf("read bundle: %w", err)
	}
	m, err := parseManifest(data)
	if err != nil {
		return Manifest{}, fmt.Errorf("read bundle %s: %w", path, err)
	}
	return m, nil
}

// writeManifest replaces dir/manifest.json atomically: a reader never sees half a file.
func writeManifest(dir string, m Manifest) error {
	data, err := marshalManifest(m)
	if err != nil {
		return err
	}
	return fileio.WriteAtomic(filepath.Join(dir, ManifestFile), data, 0o600)
}

func marshalManifest(m Manifest) ([]byte, error) {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// readLimited reads a whole file, refusing one larger than limit bytes.
func readLimited(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: larger than %d MiB: %w", path, limit>>20, ErrMalformed)
	}
	return data, nil
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
