package pipeline

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tfgate/tfgate/internal/bundle"
	"github.com/tfgate/tfgate/internal/report"
)

// runPolicyFiles configure a policy that denies every create.
var runPolicyFiles = map[string]string{
	".tfgate.yaml": "version: 1\npolicies:\n  paths: [policies]\n  owners: [carol]\n",
	"policies/no_creates.rego": `package no_creates

import rego.v1

deny contains msg if {
	some rc in input.resource_changes
	"create" in rc.change.actions
	msg := sprintf("%s is created", [rc.address])
}
`,
}

// newPlanRequest is `tfgate plan --out DIR` in the fixture's checkout, comparing with the
// base commit, with the fake terraform and no PATH.
func newPlanRequest(t *testing.T, fx *runFixture, out string) PlanRequest {
	t.Helper()
	return PlanRequest{Env: fx.env(t), Base: fx.base, OutDir: out}
}

// planBundles plans the fixture's head into a new directory and returns it: the bundles
// the gate and apply judge.
func planBundles(t *testing.T, fx *runFixture) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "plans")
	run, err := RunPlan(t.Context(), newPlanRequest(t, fx, out))
	if err != nil || statuses(run.Projects) != "app:planned" {
		t.Fatalf("plan the fixture: %s, %v", statuses(run.Projects), err)
	}
	fx.resetCalls(t)
	return out
}

// bundlesIn reads the manifests of the bundles in dir.
func bundlesIn(t *testing.T, dir string) []bundle.Manifest {
	t.Helper()
	dirs, err := bundle.List(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	var ms []bundle.Manifest
	for _, d := range dirs {
		m, err := bundle.Read(t.Context(), d)
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, m)
	}
	return ms
}

// RunPlan plans the projects the branch changed, with terraform as the run resolves it,
// writes a bundle per planned project and, in GitHub Actions, publishes the run.
func TestRunPlan(t *testing.T) {
	for _, tc := range []struct {
		name   string
		files  map[string]string // more files at the base
		change map[string]string // a further commit on the branch
		github bool              // on the pull request's event, publishing to GitHub
		setup  func(fx *runFixture, req *PlanRequest)
		want   string   // the projects' statuses
		calls  []string // what terraform was asked
		check  func(t *testing.T, fx *runFixture, run report.Run, out string)
	}{{
		name:  "only the changed project of two",
		want:  "app:planned",
		calls: []string{"init app", "plan app", "show app"},
		check: func(t *testing.T, fx *runFixture, run report.Run, out string) {
			ms := bundlesIn(t, out)
			if len(ms) != 1 {
				t.Fatalf("%d bundles, want app's", len(ms))
			}
			m := ms[0]
			if m.Project != "app" || m.Dir != "app" || m.Commit != fx.head || !m.Applicable || m.PlanSHA256 == "" || m.InputHash == "" {
				t.Errorf("manifest %+v: want app's, of the head %s, applicable, with its plan's and inputs' sums", m, fx.head)
			}
			if plan, err := os.ReadFile(filepath.Join(out, bundle.DirName(m.Project, m.Workspace), m.PlanFile)); err != nil || !bytes.Equal(plan, fakePlanFile(t, appV2)) {
				t.Errorf("the bundle's plan file is not the one terraform wrote (%v)", err)
			}
			if m.Summary.Add != 1 || m.TerraformVersion != "1.5.7" {
				t.Errorf("manifest summary %+v, terraform %q: want the fake's one create by 1.5.7", m.Summary, m.TerraformVersion)
			}
			if p := run.Projects[0]; p.Changes == nil || p.Changes.Summary.Add != 1 {
				t.Errorf("app's changes %+v", p.Changes)
			}
			if run.MergeBase != fx.base[:7] {
				t.Errorf("merge base %q, want %s", run.MergeBase, fx.base[:7])
			}
		},
	}, {
		name:  "nothing changed: nothing planned",
		setup: func(fx *runFixture, req *PlanRequest) { req.Base = fx.head },
		check: func(t *testing.T, fx *runFixture, run report.Run, out string) {
			if ms := bundlesIn(t, out); len(ms) != 0 {
				t.Errorf("bundles of an unchanged project: %+v", ms)
			}
		},
	}, {
		name:   "a failing plan fails its project",
		change: map[string]string{"app/PLAN_FAILS": ""},
		want:   "app:failed",
		calls:  []string{"init app", "plan app"},
		check: func(t *testing.T, fx *runFixture, run report.Run, out string) {
			if err := run.Projects[0].Error; !strings.Contains(err, "Unsupported argument in main.tf") {
				t.Errorf("app's error %q: want terraform's", err)
			}
			if ms := bundlesIn(t, out); len(ms) != 0 {
				t.Errorf("bundles of a failed plan: %+v", ms)
			}
		},
	}, {
		name:   "a policy denial is the run's and the status's",
		files:  runPolicyFiles,
		github: true,
		want:   "app:planned",
		calls:  []string{"init app", "plan app", "show app"},
		check: func(t *testing.T, fx *runFixture, run report.Run, out string) {
			pol := run.Projects[0].Policy
			if pol == nil || !pol.Denied() || len(pol.Findings) != 1 || pol.Findings[0].Msg != "terraform_data.a is created" {
				t.Fatalf("app's policy result %+v: want the create denied", pol)
			}
			if ms := bundlesIn(t, out); len(ms) != 1 || ms[0].Policy == nil || !ms[0].Policy.Denied || ms[0].PR != fx.pr {
				t.Errorf("bundles %+v: want app's, of #%d, recording the denial", ms, fx.pr)
			}
			if st := lastStatus(fx.gh, fx.head, "tfgate/plan"); st.State != "failure" || !strings.HasSuffix(st.Description, "1 denied") {
				t.Errorf("tfgate/plan on the head: %s %q, want failure, 1 denied", st.State, st.Description)
			}
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			fx := newRunFixture(t, tc.files)
			for name, content := range tc.change {
				fx.commit(t, name, content)
			}
			fx.head = fx.rev(t, "HEAD")
			out := filepath.Join(t.TempDir(), "plans")
			req := newPlanRequest(t, fx, out)
			if tc.github {
				ev := fx.pullEvent()
				ev.HeadSHA = fx.head
				req.GitHub = fx.github(t, ev)
			}
			if tc.setup != nil {
				tc.setup(fx, &req)
			}
			run, err := RunPlan(t.Context(), req)
			if err != nil {
				t.Fatal(err)
			}
			if got := statuses(run.Projects); got != tc.want {
				t.Errorf("projects %s, want %s", got, tc.want)
			}
			if got := fx.calls(t); !slices.Equal(got, tc.calls) {
				t.Errorf("terraform was asked %q, want %q", got, tc.calls)
			}
			tc.check(t, fx, run, out)
		})
	}
}
