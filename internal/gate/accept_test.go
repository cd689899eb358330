package gate

import (
	"reflect"
	"testing"
)

const (
	reviewedSHA = "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678"
	mergeSHA    = "9f8e7d6c5b4a39281706f5e4d3c2b1a098765432"
)

// accepted is a bundle that holds: every check passes.
func accepted() BundleFacts {
	return BundleFacts{ProjectDir: "envs/prod", BundleDir: "envs/prod", PR: 42, MergedPR: 42,
		PoliciesRequired: true, PolicyJudged: true,
		Merge: &MergeFacts{Reviewed: reviewedSHA, Merge: mergeSHA,
			PlannedInputs: map[string]string{"main.tf": "h1"}, Inputs: map[string]string{"main.tf": "h1"},
			PlannedHash: "sum", Hash: "sum",
			PlannedFlavor: "terraform", PlannedVersion: "1.5.7", RunFlavor: "terraform", RunVersion: "1.5.7"}}
}

func TestAcceptBundle(t *testing.T) {
	tests := []struct {
		name   string
		change func(*BundleFacts)
		want   []Reason // Pending is never set: only reviews lift a reason, and none of these
	}{
		{"accepted", func(*BundleFacts) {}, nil},
		{"a bundle without the policies the base has is not judged, unless they are not required", func(f *BundleFacts) {
			f.PolicyJudged, f.PoliciesRequired = false, false
		}, nil},
		{"a bundle that does not name its pull request", func(f *BundleFacts) { f.PR = 0 }, nil},
		{CodeBundleDir, func(f *BundleFacts) { f.BundleDir = "envs/dev" }, []Reason{{Code: CodeBundleDir,
			Text: "its bundle is of directory envs/dev, but the project is in envs/prod"}}},
		{CodeUnjudged, func(f *BundleFacts) { f.PolicyJudged = false }, []Reason{{Code: CodeUnjudged,
			Text: "it was planned without policies, but the rules before the merge have policies: plan it again so that they judge it"}}},
		{CodeBundlePR, func(f *BundleFacts) { f.PR = 41 }, []Reason{{Code: CodeBundlePR,
			Text: "its bundle was planned for pull request #41, not #42"}}},
		{CodeTampered, func(f *BundleFacts) { f.Open, f.Opened, f.Merge = OpenTampered, "plan.tfplan: sha256 differs", nil },
			[]Reason{{Code: CodeTampered, Text: "plan.tfplan: sha256 differs"}}},
		{CodeUnencrypted, func(f *BundleFacts) { f.Open, f.Opened, f.Merge = OpenUnencrypted, "the plan is not encrypted", nil },
			[]Reason{{Code: CodeUnencrypted, Text: "the plan is not encrypted"}}},
		{CodeMalformed, func(f *BundleFacts) { f.Open, f.Opened, f.Merge = OpenMalformed, "manifest.json: bad", nil },
			[]Reason{{Code: CodeMalformed, Text: "manifest.json: bad"}}},
		{CodeStale, func(f *BundleFacts) {
			f.Merge.Hash = "other"
			f.Merge.Inputs = map[string]string{"main.tf": "h2", "b.tf": "h", "c.tf": "h", "d.tf": "h", "e.tf": "h", "f.tf": "h"}
			f.Merge.PlannedInputs = map[string]string{"main.tf": "h1", "gone.tf": "h"}
		}, []Reason{{Code: CodeStale,
			Text: "the plan is stale: the merge 9f8e7d6 changed its inputs beyond the reviewed commit a1b2c3d " +
				"(b.tf (new), c.tf (new), d.tf (new), e.tf (new), f.tf (new), and 2 more); plan it again on the merged code"}}},
		{CodeNoTerraformVersion, func(f *BundleFacts) { f.Merge.PlannedVersion = "" }, []Reason{{Code: CodeNoTerraformVersion,
			Text: "its bundle does not say which terraform version planned it: plan it again"}}},
		{CodeTerraformVersion, func(f *BundleFacts) { f.Merge.RunVersion = "1.6.0" }, []Reason{{Code: CodeTerraformVersion,
			Text: "it was planned with terraform 1.5.7, but this run has terraform 1.6.0: apply the plan with the binary and version that made it (terraform.binary and terraform.version in .tfgate.yaml), or plan again"}}},
		{"the flavour counts too", func(f *BundleFacts) { f.Merge.RunFlavor = "tofu" }, []Reason{{Code: CodeTerraformVersion,
			Text: "it was planned with terraform 1.5.7, but this run has tofu 1.5.7: apply the plan with the binary and version that made it (terraform.binary and terraform.version in .tfgate.yaml), or plan again"}}},
		{"a bundle from before the flavour was recorded is this run's", func(f *BundleFacts) { f.Merge.PlannedFlavor = "" }, nil},
		{"an unknown version of this run does not match", func(f *BundleFacts) { f.Merge.RunVersion = "" }, []Reason{{Code: CodeTerraformVersion,
			Text: "it was planned with terraform 1.5.7, but this run has terraform <nil>: apply the plan with the binary and version that made it (terraform.binary and terraform.version in .tfgate.yaml), or plan again"}}},
		{"every reason at once, in order", func(f *BundleFacts) {
			f.BundleDir, f.PolicyJudged, f.PR = "x", false, 7
			f.Merge.Hash, f.Merge.RunVersion = "other", "1.6.0"
		}, []Reason{
			{Code: CodeBundleDir, Text: "its bundle is of directory x, but the project is in envs/prod"},
			{Code: CodeUnjudged, Text: "it was planned without policies, but the rules before the merge have policies: plan it again so that they judge it"},
			{Code: CodeBundlePR, Text: "its bundle was planned for pull request #7, not #42"},
			{Code: CodeStale, Text: "the plan is stale: the merge 9f8e7d6 changed its inputs beyond the reviewed commit a1b2c3d (); plan it again on the merged code"},
			{Code: CodeTerraformVersion, Text: "it was planned with terraform 1.5.7, but this run has terraform 1.6.0: apply the plan with the binary and version that made it (terraform.binary and terraform.version in .tfgate.yaml), or plan again"},
		}},
		{"a plan file that does not open leaves the rest unjudged", func(f *BundleFacts) {
			f.PR, f.Open, f.Opened = 7, OpenTampered, "tampered"
			f.Merge.Hash = "other" // read by a caller that should not have: not judged
		}, []Reason{{Code: CodeBundlePR, Text: "its bundle was planned for pull request #7, not #42"}, {Code: CodeTampered, Text: "tampered"}}},
		{"what was not read is not judged", func(f *BundleFacts) { f.Merge = nil }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := accepted()
			m := *f.Merge
			f.Merge = &m
			tt.change(&f)
			if got := AcceptBundle(f); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("AcceptBundle =\n%+v\nwant\n%+v", got, tt.want)
			}
		})
	}
}

// Every code AcceptBundle can give has a case above, and no two checks share one.
func TestAcceptBundleCodes(t *testing.T) {
	seen := map[string]bool{}
	f := accepted()
	f.BundleDir, f.PolicyJudged, f.PR = "x", false, 7
	f.Merge.Hash, f.Merge.PlannedVersion = "other", ""
	for _, r := range AcceptBundle(f) {
		seen[r.Code] = true
	}
	f.Merge.PlannedVersion = "1.0.0"
	for _, r := range AcceptBundle(f) {
		seen[r.Code] = true
	}
	for _, o := range []OpenResult{OpenTampered, OpenUnencrypted, OpenMalformed} {
		f.Open = o
		for _, r := range AcceptBundle(f) {
			seen[r.Code] = true
		}
	}
	want := []string{CodeBundleDir, CodeUnjudged, CodeBundlePR, CodeTampered, CodeUnencrypted, CodeMalformed, CodeStale, CodeNoTerraformVersion, CodeTerraformVersion}
	if len(seen) != len(want) {
		t.Errorf("codes seen %v, want %v", seen, want)
	}
	for _, c := range want {
		if !seen[c] {
			t.Errorf("code %s never given", c)
		}
	}
}
