package matrixresult

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/tfgate/tfgate/internal/cost"
	"github.com/tfgate/tfgate/internal/report"
)

// A matrix job's cost reaches publish's comment as the job priced it.
func TestCostRoundTrip(t *testing.T) {
	c := &cost.Cost{Source: cost.SourceCatalogue, Currency: "EUR", Before: 7000, After: 112000,
		Priced:   []cost.Priced{{Address: "terraform_data.worker", Type: "terraform_data", Before: 7000, After: 112000}},
		Unpriced: []cost.Unpriced{{Address: "terraform_data.tags", Type: "terraform_data", Reason: "no entry"}}}
	run := report.Run{Kind: report.KindPlan, Cost: "the price catalogue policies/prices.json",
		Projects: []report.Project{{Name: "app", Dir: "app", Status: report.StatusPlanned, Cost: c}, {Name: "db", Dir: "db", Status: report.StatusFailed}}}
	raw, err := json.Marshal(encodeRun(run, "/r"))
	if err != nil {
		t.Fatal(err)
	}
	back, err := decodeRun(raw, "/r")
	if err != nil {
		t.Fatal(err)
	}
	if back.Cost != run.Cost || !reflect.DeepEqual(back.Projects[0].Cost, c) || back.Projects[1].Cost != nil {
		t.Errorf("back: %q %+v %+v", back.Cost, back.Projects[0].Cost, back.Projects[1].Cost)
	}
}
