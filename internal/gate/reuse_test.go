package gate

import (
	"strings"
	"testing"
)

// TestReusable: a plan is reused only when every fact is proven the same; each fact that
// differs or is unknown plans again, and says why.
func TestReusable(t *testing.T) {
	same := ReuseFacts{PlannedHash: "h", Hash: "h", PlannedFlavor: "terraform", PlannedVersion: "1.5.7",
		RunFlavor: "terraform", RunVersion: "1.5.7", PlannedPolicies: "p", Policies: "p", PlannedEnv: "e", Env: "e",
		PlannedTfgate: "1.4.0", RunTfgate: "1.4.0",
		PlannedUnapplied: []string{"#5 abc"}, Unapplied: []string{"#5 abc"},
		PlannedApplicable: true, Applicable: true, PlannedLineage: "L", Lineage: "L", PlannedSerial: 3, Serial: 3}
	if ok, why := Reusable(same); !ok {
		t.Fatalf("nothing changed: not reused (%s)", why)
	}
	for name, tc := range map[string]struct {
		edit func(*ReuseFacts)
		why  string
	}{
		"inputs":            {func(f *ReuseFacts) { f.Hash = "other" }, "its inputs changed"},
		"no input hash":     {func(f *ReuseFacts) { f.PlannedHash, f.Hash = "", "" }, "its inputs changed"},
		"version":           {func(f *ReuseFacts) { f.RunVersion = "1.6.0" }, "planned with terraform 1.5.7, this run has terraform 1.6.0"},
		"flavor":            {func(f *ReuseFacts) { f.RunFlavor = "tofu" }, "this run has tofu"},
		"unknown version":   {func(f *ReuseFacts) { f.PlannedVersion, f.RunVersion = "", "" }, "planned with"},
		"tfgate":            {func(f *ReuseFacts) { f.RunTfgate = "1.5.0" }, "planned by tfgate 1.4.0, this is tfgate 1.5.0"},
		"unknown tfgate":    {func(f *ReuseFacts) { f.PlannedTfgate = "" }, "planned by tfgate"},
		"policies":          {func(f *ReuseFacts) { f.Policies = "q" }, "what its policies read changed"},
		"policies added":    {func(f *ReuseFacts) { f.PlannedPolicies = "" }, "what its policies read changed"},
		"environment":       {func(f *ReuseFacts) { f.Env = "other" }, "TF_VAR_* or TF_CLI_ARGS* terraform is given differ"},
		"no environment":    {func(f *ReuseFacts) { f.PlannedEnv = "" }, "(or were not recorded)"},
		"unapplied":         {func(f *ReuseFacts) { f.Unapplied = nil }, "merges not yet applied differ"},
		"unapplied unknown": {func(f *ReuseFacts) { f.UnappliedUnknown = "403" }, "merges not yet applied differ"},
		"not applicable":    {func(f *ReuseFacts) { f.PlannedApplicable = false }, "may not be applied"},
		"fork":              {func(f *ReuseFacts) { f.Applicable = false }, "may not be applied"},
		"remote state":      {func(f *ReuseFacts) { f.StateBackend = "s3" }, "backend s3) is read only by terraform init"},
		"serial":            {func(f *ReuseFacts) { f.Serial = 4 }, "its state moved (serial 4, planned on 3)"},
		"lineage":           {func(f *ReuseFacts) { f.Lineage = "M" }, "its state moved"},
		"first apply":       {func(f *ReuseFacts) { f.PlannedLineage, f.PlannedSerial = "", 0 }, "its state moved"},
		"unpinned":          {func(f *ReuseFacts) { f.Unpinned = true }, "without a committed .terraform.lock.hcl"},
		"remote modules":    {func(f *ReuseFacts) { f.RemoteModules = []string{"vpc"} }, "modules from outside the repository (vpc)"},
	} {
		f := same
		tc.edit(&f)
		ok, why := Reusable(f)
		if ok || !strings.Contains(why, tc.why) {
			t.Errorf("%s: reused %v (%q), want planned again: %q", name, ok, why, tc.why)
		}
	}
}
