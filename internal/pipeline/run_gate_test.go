package pipeline

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tfgate/tfgate/internal/bundle"
	"github.com/tfgate/tfgate/internal/gate"
	"github.com/tfgate/tfgate/internal/report"
)

// newGateRequest is `tfgate gate --plans DIR` on the fixture's pull request event,
// publishing its verdict.
func newGateRequest(t *testing.T, fx *runFixture, plans string) GateRequest {
	t.Helper()
	env := fx.env(t)
	env.Warn = func(w string) { t.Errorf("warning: %s", w) }
	return GateRequest{Env: env, Plans: bundle.DirStore(plans), GitHub: fx.github(t, fx.pullEvent()), Publish: true}
}

// reasonCodes are the codes of a project's gate reasons.
func reasonCodes(p report.Project) []string {
	var codes []string
	if p.Gate != nil {
		for _, r := range p.Gate.Reasons {
			codes = append(codes, r.Code)
		}
	}
	return codes
}

// RunGate judges the pull request's head: its bundles (planned by RunPlan), its reviews
// and the base's rules, and publishes the verdict as tfgate/gate on the head. The fake
// terraform is never asked anything.
func TestRunGate(t *testing.T) {
	for _, tc := range []struct {
		name    string
		setup   func(t *testing.T, fx *runFixture, req *GateRequest) // after planning the head
		reviews [][2]string                                          // login, state on the head
		state   string                                               // the verdict, and tfgate/gate's state
		codes   []string                                             // app's reasons; none = allowed
		desc    string                                               // in the verdict's description
	}{{
		name:    "allowed with an approval",
		reviews: [][2]string{{"bob", "APPROVED"}},
		state:   "success",
	}, {
		name:  "pending without approvals",
		state: "pending",
		codes: []string{gate.CodeApprovals},
		desc:  "1 more approval",
	}, {
		name:    "the author's approval does not count",
		reviews: [][2]string{{"dave", "APPROVED"}},
		state:   "pending",
		codes:   []string{gate.CodeApprovals, gate.CodeSelfApproval},
	}, {
		name:    "changes requested block",
		reviews: [][2]string{{"bob", "APPROVED"}, {"carol", "CHANGES_REQUESTED"}},
		state:   "failure",
		codes:   []string{gate.CodeChangesRequested},
		desc:    "@carol requested changes",
	}, {
		name: "no bundle",
		setup: func(t *testing.T, fx *runFixture, req *GateRequest) {
			req.Plans = bundle.DirStore(filepath.Join(t.TempDir(), "none"))
		},
		reviews: [][2]string{{"bob", "APPROVED"}},
		state:   "failure",
		codes:   []string{gate.CodeNoBundle},
		desc:    "no plan for this project",
	}, {
		name: "a bundle of an earlier commit",
		setup: func(t *testing.T, fx *runFixture, req *GateRequest) {
			fx.commit(t, "app/main.tf", "resource \"terraform_data\" \"a\" {\n  input = \"v3\"\n}\n")
			fx.head = fx.rev(t, "HEAD")
			fx.openPull(false)
			req.GitHub = fx.github(t, fx.pullEvent())
		},
		reviews: [][2]string{{"bob", "APPROVED"}},
		state:   "failure",
		codes:   []string{gate.CodeStale, gate.CodeBundleCommit},
		desc:    "not of the pull request's head",
	}, {
		name: "a fork",
		setup: func(t *testing.T, fx *runFixture, req *GateRequest) {
			fx.openPull(true)
			req.GitHub = fx.github(t, fx.pullEvent())
		},
		reviews: [][2]string{{"bob", "APPROVED"}},
		state:   "failure",
		codes:   []string{gate.CodeFork},
		desc:    "fork",
	}, {
		name: "frozen",
		setup: func(t *testing.T, fx *runFixture, req *GateRequest) {
			req.Freeze = "incident 42"
		},
		reviews: [][2]string{{"bob", "APPROVED"}},
		state:   "failure",
		codes:   []string{gate.CodeFrozen},
		desc:    "incident 42",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			fx := newRunFixture(t, nil)
			req := newGateRequest(t, fx, planBundles(t, fx))
			if tc.setup != nil {
				tc.setup(t, fx, &req)
			}
			for _, r := range tc.reviews {
				fx.review(r[0], r[1])
			}
			run, err := RunGate(t.Context(), req)
			if refused := errors.Is(err, ErrGateRefused); refused != (tc.state != "success") || err != nil && !refused {
				t.Fatalf("error %v: want ErrGateRefused exactly when the verdict is not success (%s)", err, tc.state)
			}
			if run.PR != fx.pr || run.Reviewed != fx.head {
				t.Errorf("run of #%d at %s, want #%d at %s", run.PR, run.Reviewed, fx.pr, fx.head)
			}
			if len(run.Projects) != 1 || run.Projects[0].Name != "app" {
				t.Fatalf("projects %s: want app alone (db did not change)", statuses(run.Projects))
			}
			app := run.Projects[0]
			want := report.StatusAllowed
			if len(tc.codes) > 0 {
				want = report.StatusRefused
			}
			if got := reasonCodes(app); app.Status != want || !slices.Equal(got, tc.codes) {
				t.Errorf("app %s, reasons %q: want %s, %q", app.Status, got, want, tc.codes)
			}
			if app.Gate.Pending != (tc.state == "pending") {
				t.Errorf("app pending %v, want %v", app.Gate.Pending, tc.state == "pending")
			}
			if run.Verdict == nil || string(run.Verdict.State) != tc.state || !strings.Contains(run.Verdict.Description, tc.desc) {
				t.Errorf("verdict %+v: want %s, saying %q", run.Verdict, tc.state, tc.desc)
			}
			st := lastStatus(fx.gh, fx.head, "tfgate/gate")
			if st.State != tc.state || st.Description != run.Verdict.Description {
				t.Errorf("tfgate/gate on the head: %s %q, want the verdict %s %q", st.State, st.Description, tc.state, run.Verdict.Description)
			}
			if got := fx.calls(t); len(got) != 0 {
				t.Errorf("the gate ran terraform: %q", got)
			}
		})
	}
}

// The allowed verdict names who approved, on the head.
func TestRunGateApprovals(t *testing.T) {
	fx := newRunFixture(t, nil)
	req := newGateRequest(t, fx, planBundles(t, fx))
	fx.review("dave", "APPROVED")
	fx.review("bob", "APPROVED")
	run, err := RunGate(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	aps := run.Projects[0].Gate.Approvals
	if len(aps) != 1 || aps[0].Login != "bob" || aps[0].Commit != fx.head || aps[0].At.IsZero() {
		t.Errorf("approvals %+v: want bob's of the head, dated", aps)
	}
}
