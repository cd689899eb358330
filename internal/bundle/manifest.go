package bundle

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/tfgate/tfgate/internal/english"
)

var (
	sha256Hex = regexp.MustCompile(`^[0-9a-f]{64}$`)
	commitHex = regexp.MustCompile(`^(?:[0-9a-f]{40}|[0-9a-f]{64})$`) // SHA-1 or SHA-256 repositories
)

// parseManifest decodes and checks one manifest.json. Errors do not name the file: the
// caller knows where the bytes came from.
func parseManifest(data []byte) (Manifest, error) {
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return Manifest{}, fmt.Errorf("not a manifest: %w: %w", err, ErrMalformed)
	}
	if err := m.check(); err != nil {
		return Manifest{}, err
	}
	return m, nil
}

// check refuses a manifest tfgate would not have written. It guards what apply relies on:
// where the plan file is, its hash, the commit, the input paths it re-hashes.
func (m Manifest) check() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf(format+": %w", append(args, ErrMalformed)...)
	}
	switch {
	case m.SchemaVersion == 0:
		return bad("no schema_version: not a tfgate bundle manifest")
	case m.SchemaVersion != SchemaVersion:
		return bad("schema_version %d, this tfgate reads %d: plan and apply with the same tfgate release", m.SchemaVersion, SchemaVersion)
	case m.Project == "":
		return bad("no project")
	case m.PlanFile != PlanFile:
		// The plan file always sits beside its manifest: any other name (a path, "..") is a trick.
		return bad("plan_file %q: a bundle's plan file is always %q", m.PlanFile, PlanFile)
	case !sha256Hex.MatchString(m.PlanSHA256):
		return bad("plan_sha256 %q is not a sha256 (64 lowercase hex digits)", clip(m.PlanSHA256))
	case !commitHex.MatchString(m.Commit):
		return bad("commit %q is not a full commit SHA: bundles record the commit they plan", clip(m.Commit))
	case m.PlannedCommit != "" && !commitHex.MatchString(m.PlannedCommit):
		return bad("planned_commit %q is not a full commit SHA", clip(m.PlannedCommit))
	case !sha256Hex.MatchString(m.InputHash):
		return bad("input_hash %q is not a sha256 (64 lowercase hex digits)", clip(m.InputHash))
	case m.ReusedFrom != "" && !commitHex.MatchString(m.ReusedFrom):
		return bad("reused_from %q is not a full commit SHA", clip(m.ReusedFrom))
	case m.Applicable && m.Dirty:
		return bad("applicable and dirty: a plan of uncommitted changes is never applicable")
	}
	for name, sum := range map[string]string{"policy_sum": m.PolicySum, "env_sum": m.EnvSum, "changes_digest": m.ChangesDigest} {
		if sum != "" && !sha256Hex.MatchString(sum) { // optional: older bundles lack them
			return bad("%s %q is not a sha256 (64 lowercase hex digits)", name, clip(sum))
		}
	}
	for name, v := range map[string]string{"project": m.Project, "dir": m.Dir, "workspace": m.Workspace} {
		if strings.ContainsFunc(v, unicode.IsControl) {
			return bad("%s %q holds control characters", name, clip(v))
		}
	}
	for _, u := range m.Unapplied {
		if u.PR <= 0 || !commitHex.MatchString(u.Commit) {
			return bad("unapplied merge #%d %q is not a pull request's merge commit", u.PR, clip(u.Commit))
		}
	}
	for p, sum := range m.Inputs {
		if !localSlashPath(p) {
			return bad("input %q is not a path inside the repository", clip(p))
		}
		if !sha256Hex.MatchString(sum) {
			return bad("input %s: %q is not a sha256", clip(p), clip(sum))
		}
	}
	if got := InputHash(m.Inputs); got != m.InputHash {
		return fmt.Errorf("input_hash %s does not match the inputs listed (%s): the manifest was edited: %w",
			abbrev(m.InputHash), abbrev(got), ErrTampered)
	}
	return m.checkPolicy()
}

// checkPolicy: the recorded verdict is one a policy evaluation can give.
func (m Manifest) checkPolicy() error {
	v := m.Policy
	switch {
	case v == nil:
		return nil
	case v.Warnings < 0:
		return fmt.Errorf("policy.warnings %d is negative: %w", v.Warnings, ErrMalformed)
	case len(v.Denies) > 0 && !v.Denied:
		return fmt.Errorf("policy lists denies but denied is false: %w", ErrMalformed)
	case v.Denied && !v.Evaluated && v.Error == "":
		return fmt.Errorf("policy denied but neither evaluated nor failed: %w", ErrMalformed)
	}
	return nil
}

// localSlashPath: a clean, relative, forward-slash path that stays inside its root.
func localSlashPath(p string) bool {
	if p == "" || strings.ContainsAny(p, "\\\x00") || strings.HasPrefix(p, "/") || path.Clean(p) != p {
		return false
	}
	return p != ".." && !strings.HasPrefix(p, "../") && p != "."
}

// diffFields names the top-level manifest fields whose values differ, sorted.
func diffFields(a, b Manifest) ([]string, error) {
	fa, err := fields(a)
	if err != nil {
		return nil, err
	}
	fb, err := fields(b)
	if err != nil {
		return nil, err
	}
	var diff []string
	for k, va := range fa {
		if vb, ok := fb[k]; !ok || !bytes.Equal(va, vb) {
			diff = append(diff, k)
		}
	}
	for k := range fb {
		if _, ok := fa[k]; !ok {
			diff = append(diff, k)
		}
	}
	slices.Sort(diff)
	return diff, nil
}

func fields(m Manifest) (map[string]json.RawMessage, error) {
	data, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	var f map[string]json.RawMessage
	err = json.Unmarshal(data, &f)
	return f, err
}

// abbrev shortens a hash for messages.
func abbrev(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// clip keeps hostile values from flooding a message.
func clip(s string) string {
	return english.Clip(s, 81)
}
