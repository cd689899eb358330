package policy

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tfgate/tfgate/internal/plan"
)

// One engine serves every project a run plans at once (stage.ForEach runs ShowPlan, and
// so plan.ReadDocument/Open with engine.InputPaths(), for several projects together).
// The audit found the shared Paths frozen lazily by the first Child, unsynchronised: a
// project opened meanwhile could get its input pruned without the wildcard's reads folded
// into a named member, and its policies then passed. The engine now freezes it once.
func TestConcurrentOpenSharedPaths(t *testing.T) {
	// Many named attributes make the freeze long enough for the others to arrive.
	var many strings.Builder
	for i := range 400 {
		fmt.Fprintf(&many, "deny contains \"a%d\" if { some rc in input.resource_changes; rc.change.after.a%d == \"x\" }\n", i, i)
	}
	policy := `package p
deny contains "sensitive part" if {
	some rc in input.resource_changes
	some k
	part := rc.change[k]
	part.sensitive == true
}
deny contains "owner" if {
	some rc in input.resource_changes
	rc.change.after.owner == "mallory"
}
` + many.String()
	doc := []byte(`{"format_version":"1.2","resource_changes":[{"address":"a.b","mode":"managed","type":"a","name":"b",
		"change":{"actions":["update"],"before":{},"after":{"owner":"mallory","sensitive":true}}}]}`)
	ctx := context.Background()
	var bad atomic.Int32
	for iter := 0; iter < 60 && bad.Load() == 0; iter++ { // the race showed within 50–100 before the fix
		e := auditLoad(t, policy)
		var wg sync.WaitGroup
		for g := 0; g < auditOpeners; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				d, err := plan.Open(doc, plan.OpenOptions{Reads: e.InputPaths()})
				if err != nil {
					t.Error(err)
					return
				}
				if res := e.EvalValue(ctx, d.Input(), Project{Name: "p"}); len(res.Findings) != 2 {
					if bad.Add(1) == 1 {
						t.Errorf("iteration %d: %d findings on %v (want 2: the plan opened alone gives both)", iter, len(res.Findings), d.Input())
					}
				}
			}()
		}
		wg.Wait()
	}
}

// auditOpeners projects open the plan at once (1: the test passes).
var auditOpeners = 4
