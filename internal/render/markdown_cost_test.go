package render

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	costpkg "github.com/tfgate/tfgate/internal/cost"
	"github.com/tfgate/tfgate/internal/report"
)

// costReport is the mock-up run priced: an instance grows, a resource the catalogue has no
// price for, a project with no cost (the Infracost file had none for it).
func costReport() report.Run {
	r := mockupReport()
	r.Cost = "the price catalogue policies/prices.json at base commit 3f2c1aa (origin/main)"
	r.Projects[0].Cost = &costpkg.Cost{Source: costpkg.SourceCatalogue, Currency: "USD", Before: 7008, After: 63072,
		Priced: []costpkg.Priced{{Address: "terraform_data.a", Type: "terraform_data", Before: 7008, After: 56064}},
		Unpriced: []costpkg.Unpriced{
			{Address: "terraform_data.b", Type: "terraform_data", Reason: "input.instance_type is known only after apply"},
			{Address: `terraform_data.c["<b>|x"]`, Type: "terraform_data", Reason: `no catalogue entry for terraform_data matches input.instance_type = "*x1*|<b>"`},
		}}
	r.Projects[1].Cost = &costpkg.Cost{Source: costpkg.SourceCatalogue, Currency: "USD", Before: 130328, After: 130328}
	return r
}

func TestCostComment(t *testing.T) {
	parts := CommentParts(costReport(), testMarkdownOptions)
	if len(parts) != 1 {
		t.Fatalf("%d parts, want 1", len(parts))
	}
	goldenParts(t, parts)
}

// Without a cost source the table has no cost column: comments of runs without costs do
// not change.
func TestCostColumnOnlyWithASource(t *testing.T) {
	r := costReport()
	r.Cost = ""
	for i := range r.Projects {
		r.Projects[i].Cost = nil
	}
	if got, want := CommentParts(r, testMarkdownOptions), CommentParts(mockupReport(), testMarkdownOptions); strings.Join(got, "") != strings.Join(want, "") {
		t.Errorf("a run without costs renders differently:\n%s", got[0])
	}
	if strings.Contains(CommentParts(r, testMarkdownOptions)[0], "monthly cost") {
		t.Error("a cost column without a cost source")
	}
}

func TestCostUnpricedListIsBounded(t *testing.T) {
	r := costReport()
	c := r.Projects[0].Cost
	c.Unpriced = nil
	for i := range 45 {
		c.Unpriced = append(c.Unpriced, costpkg.Unpriced{Address: fmt.Sprintf("terraform_data.n[%d]", i), Type: "terraform_data", Reason: "the price catalogue has no entry for terraform_data"})
	}
	got := CommentParts(r, testMarkdownOptions)[0]
	if !strings.Contains(got, "- … and 25 more") || strings.Contains(got, "terraform_data.n[20]") || !strings.Contains(got, "+\\$560.64/mo (45 unpriced)") {
		t.Errorf("comment:\n%s", got)
	}
}

func TestCostText(t *testing.T) {
	var buf bytes.Buffer
	if err := Text(&buf, costReport(), TextOptions{Width: 100}); err != nil {
		t.Fatal(err)
	}
	golden(t, buf.Bytes())
}
