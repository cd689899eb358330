package gate

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/git"
)

// Bundle acceptance: whether a project's plan bundle, found again on the merge commit, is
// the one that was reviewed. The caller (apply) reads the bundle, opens its plan file and
// hashes the project's inputs on the merge; AcceptBundle only judges what it found.

// BundleFacts are what apply found of one project's bundle before anything is applied.
type BundleFacts struct {
	ProjectDir string // where the project is on the merge commit
	BundleDir  string // the directory the bundle was planned in (its manifest's dir)

	PR       int // the pull request the bundle was planned for; 0 when it does not say
	MergedPR int // the pull request being applied

	// PoliciesRequired: the rules before the merge have policies. PolicyJudged: the
	// bundle records that they ran on it (they evaluated, or failed to).
	PoliciesRequired, PolicyJudged bool

	// Open is what opening the plan file found; when it is not OpenOK, Opened says why
	// (the bundle's own error text) and nothing below was read.
	Open   OpenResult
	Opened string

	// Merge is what was read on the merge commit once the plan file opened; nil when it
	// was not (the plan file did not open, or reading the inputs failed: an error).
	Merge *MergeFacts
}

// OpenResult is what opening a bundle's plan file found.
type OpenResult int

const (
	OpenOK          OpenResult = iota // the plan file is the one planned (sha256) and decrypted
	OpenTampered                      // its sha256 is not the manifest's
	OpenUnencrypted                   // it is clear where the bundle must be encrypted, or the reverse
	OpenMalformed                     // the bundle is not one tfgate plan wrote
)

// MergeFacts are the project's inputs and terraform as found on the merge commit, beside
// what the bundle recorded when it was planned.
type MergeFacts struct {
	Reviewed, Merge string // the reviewed head and the merge commit (full sha)

	PlannedInputs, Inputs map[string]string // file → hash, as planned and on the merge
	PlannedHash, Hash     string            // the input hash, as planned and on the merge

	// The terraform that planned (flavor "" in a bundle from before tfgate recorded it:
	// taken to be this run's) and the one this run has (version "" when unknown).
	PlannedFlavor, PlannedVersion string
	RunFlavor, RunVersion         string
}

// AcceptBundle is every reason the bundle f describes may not be applied, in the order
// they are checked; none when it is the reviewed one. It never stops at the first: each
// fact that was read is judged.
func AcceptBundle(f BundleFacts) []Reason {
	var out []Reason
	refuse := func(code, text string) { out = append(out, Reason{Code: code, Text: text}) }
	if f.BundleDir != f.ProjectDir {
		refuse(CodeBundleDir, fmt.Sprintf("its bundle is of directory %s, but the project is in %s", f.BundleDir, f.ProjectDir))
	}
	if f.PoliciesRequired && !f.PolicyJudged {
		refuse(CodeUnjudged, "it was planned without policies, but the rules before the merge have policies: plan it again so that they judge it")
	}
	if f.PR != 0 && f.PR != f.MergedPR {
		refuse(CodeBundlePR, fmt.Sprintf("its bundle was planned for pull request #%d, not #%d", f.PR, f.MergedPR))
	}
	switch f.Open {
	case OpenTampered:
		refuse(CodeTampered, f.Opened)
		return out
	case OpenUnencrypted:
		refuse(CodeUnencrypted, f.Opened)
		return out
	case OpenMalformed:
		refuse(CodeMalformed, f.Opened)
		return out
	}
	m := f.Merge
	if m == nil {
		return out
	}
	if m.Hash != m.PlannedHash {
		refuse(CodeStale, staleInputs(m.PlannedInputs, m.Inputs, m.Reviewed, m.Merge))
	}
	planned := m.PlannedFlavor
	if planned == "" {
		planned = m.RunFlavor
	}
	have := m.RunVersion
	if have == "" {
		have = "<nil>" // as the version printed before it was a fact: no version is known
	}
	switch {
	case m.PlannedVersion == "":
		refuse(CodeNoTerraformVersion, "its bundle does not say which terraform version planned it: plan it again")
	case m.RunVersion != m.PlannedVersion || planned != m.RunFlavor:
		refuse(CodeTerraformVersion, fmt.Sprintf("it was planned with %s %s, but this run has %s %s: apply the plan with the binary and version that made it (terraform.binary and terraform.version in %s), or plan again",
			planned, m.PlannedVersion, m.RunFlavor, have, config.FileName))
	}
	return out
}

// staleInputs says which input files differ between the reviewed plan and the merge.
func staleInputs(planned, now map[string]string, reviewed, merged string) string {
	var diffs []string
	for f, sum := range now {
		switch old, ok := planned[f]; {
		case !ok:
			diffs = append(diffs, f+" (new)")
		case old != sum:
			diffs = append(diffs, f+" (changed)")
		}
	}
	for f := range planned {
		if _, ok := now[f]; !ok {
			diffs = append(diffs, f+" (removed)")
		}
	}
	sort.Strings(diffs)
	if len(diffs) > 5 {
		diffs = append(diffs[:5], fmt.Sprintf("and %d more", len(diffs)-5))
	}
	return fmt.Sprintf("the plan is stale: the merge %s changed its inputs beyond the reviewed commit %s (%s); plan it again on the merged code",
		git.ShortSHA(merged), git.ShortSHA(reviewed), strings.Join(diffs, ", "))
}
