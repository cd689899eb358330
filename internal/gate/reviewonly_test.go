package gate

import (
	"testing"

	"github.com/tfgate/tfgate/internal/config"
)

// A review-only item (shared files, a dropped base project) needs the review and nothing
// else: no bundle, no policy, and no mode, freeze or fork refuses it.
func TestEvaluateReviewOnly(t *testing.T) {
	item := Project{Name: "shared files (scripts/hook.sh)", ReviewOnly: true, Rules: Rules{MinApprovals: 2, Mode: config.ModeObserve}}
	base := Input{
		PR:     PullRequest{Number: 7, Author: "dave", HeadSHA: head, Fork: true},
		Facts:  Facts{Permissions: map[string]string{"alice": "admin", "bob": "write", "erin": "read"}},
		Freeze: "change freeze", Projects: []Project{item},
	}
	cases := []struct {
		name    string
		reviews []Review
		allowed bool
		codes   []string
	}{
		{"no approval", nil, false, []string{CodeApprovals}},
		{"one of two", []Review{approve(1, "alice")}, false, []string{CodeApprovals}},
		{"a reader's approval does not count", []Review{approve(1, "alice"), approve(2, "erin")}, false, []string{CodeApprovals, CodeNoWriteAccess}},
		{"two writers", []Review{approve(1, "alice"), approve(2, "bob")}, true, nil},
		{"stale approval", []Review{approve(1, "alice"), review(2, "bob", Approved, old)}, false, []string{CodeApprovals, CodeStaleApproval}},
		{"changes requested", []Review{approve(1, "alice"), approve(2, "bob"), review(3, "alice", ChangesRequested, head)}, false, []string{CodeChangesRequested, CodeApprovals}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := base
			in.Reviews = tc.reviews
			v := Evaluate(in)
			if v.Allowed != tc.allowed {
				t.Fatalf("allowed = %v, want %v: %+v", v.Allowed, tc.allowed, v.Projects[0].Reasons)
			}
			var codes []string
			for _, r := range v.Projects[0].Reasons {
				codes = append(codes, r.Code)
			}
			for _, c := range tc.codes {
				found := false
				for _, got := range codes {
					found = found || got == c
				}
				if !found {
					t.Errorf("reasons %v lack %s", codes, c)
				}
			}
			for _, c := range codes {
				switch c {
				case CodeFork, CodeFrozen, CodeNoReadGuard, CodeObserve, CodeNoBundle, CodeBundleCommit, CodeNotApplicable, CodePolicyError:
					t.Errorf("a review-only item refused for %s", c)
				}
			}
		})
	}
}
