package pipeline

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tfgate/tfgate/internal/bundle"
	"github.com/tfgate/tfgate/internal/ci"
	"github.com/tfgate/tfgate/internal/gate"
	"github.com/tfgate/tfgate/internal/report"
)

// newApplyRequest is `tfgate apply --plans DIR` on the push of the merge commit to main,
// with the fake terraform and no PATH.
func newApplyRequest(t *testing.T, fx *runFixture, plans, merge string) ApplyRequest {
	t.Helper()
	return ApplyRequest{
		Env:             fx.env(t),
		Plans:           bundle.DirStore(plans),
		GitHub:          fx.github(t, ci.Event{Name: "push", HeadSHA: merge, BaseSHA: fx.base, HeadRef: "refs/heads/main", DefaultBranch: "main"}),
		UnsavedStateDir: t.TempDir(),
	}
}

// RunApply applies the merged pull request's reviewed plans that the gate allows, after
// verifying each bundle against the merge, and publishes what it did.
func TestRunApply(t *testing.T) {
	for _, tc := range []struct {
		name    string
		reviews [][2]string // login, state on the head
		setup   func(t *testing.T, plans string, req *ApplyRequest)
		want    report.Status // app's
		codes   []string      // app's reasons
		writes  []string      // what terraform was asked that writes state
		refused bool          // the error wraps ErrGateRefused
		status  string        // tfgate/apply on the merge commit ("" = none)
	}{{
		name:    "approved: applied",
		reviews: [][2]string{{"bob", "APPROVED"}},
		want:    report.StatusApplied,
		writes:  []string{"workspace new app", "apply app", "workspace delete app"}, // the apply's record around it
		status:  "success",
	}, {
		name:    "not approved: refused, nothing applied",
		want:    report.StatusRefused,
		codes:   []string{gate.CodeApprovals},
		refused: true,
		status:  "failure",
	}, {
		name:    "a dry run applies nothing",
		reviews: [][2]string{{"bob", "APPROVED"}},
		setup:   func(t *testing.T, plans string, req *ApplyRequest) { req.DryRun = true },
		want:    report.StatusAllowed,
	}, {
		name:    "no reviewed plans: refused",
		reviews: [][2]string{{"bob", "APPROVED"}},
		setup: func(t *testing.T, plans string, req *ApplyRequest) {
			req.Plans = bundle.DirStore(filepath.Join(t.TempDir(), "none"))
		},
		want:    report.StatusRefused,
		codes:   []string{gate.CodeNoPlans, gate.CodeNoBundle},
		refused: true,
		status:  "failure",
	}, {
		name:    "a tampered plan file is refused unread",
		reviews: [][2]string{{"bob", "APPROVED"}},
		setup: func(t *testing.T, plans string, req *ApplyRequest) {
			m := bundlesIn(t, plans)[0]
			f, err := os.OpenFile(filepath.Join(plans, bundle.DirName(m.Project, m.Workspace), m.PlanFile), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.Write([]byte{0}); err != nil {
				t.Fatal(err)
			}
		},
		want:    report.StatusRefused,
		codes:   []string{gate.CodeTampered},
		refused: true,
		status:  "failure",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			fx := newRunFixture(t, nil)
			plans := planBundles(t, fx)
			for _, r := range tc.reviews {
				fx.review(r[0], r[1])
			}
			merge := fx.merge(t)
			req := newApplyRequest(t, fx, plans, merge)
			if tc.setup != nil {
				tc.setup(t, plans, &req)
			}
			run, err := RunApply(t.Context(), req)
			if refused := errors.Is(err, ErrGateRefused); refused != tc.refused || err != nil && !refused {
				t.Fatalf("error %v: want ErrGateRefused %v", err, tc.refused)
			}
			if run.PR != fx.pr || run.Commit != merge || run.Reviewed != fx.head {
				t.Errorf("run of #%d, commit %s reviewed at %s; want #%d, %s, %s", run.PR, run.Commit, run.Reviewed, fx.pr, merge, fx.head)
			}
			if len(run.Projects) != 1 || run.Projects[0].Name != "app" {
				t.Fatalf("projects %s: want app alone (db did not change)", statuses(run.Projects))
			}
			app := run.Projects[0]
			if got := reasonCodes(app); app.Status != tc.want || !slices.Equal(got, tc.codes) {
				t.Errorf("app %s %q, reasons %q: want %s, %q", app.Status, app.Error, got, tc.want, tc.codes)
			}
			calls := fx.calls(t)
			if writes := slices.DeleteFunc(slices.Clone(calls), stateUntouched); !slices.Equal(writes, tc.writes) {
				t.Errorf("terraform was asked %q: want of those writing state %q", calls, tc.writes)
			}
			if tc.want == report.StatusApplied && slices.Index(calls, "show app") > slices.Index(calls, "apply app") {
				t.Errorf("terraform was asked %q: the plan file applied before it was read", calls)
			}
			if st := lastStatus(fx.gh, merge, "tfgate/apply"); st.State != tc.status {
				t.Errorf("tfgate/apply on the merge: %s %q, want %q", st.State, st.Description, tc.status)
			}
		})
	}
}

// stateUntouched reports whether a fake terraform call leaves the state as it was.
func stateUntouched(call string) bool {
	return strings.HasPrefix(call, "init ") || strings.HasPrefix(call, "show ")
}
