package gate

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/report"
)

const (
	head = "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678"
	old  = "abc1234ffffffffffffffffffffffffffffffff0"
)

var t0 = time.Date(2024, 5, 1, 9, 0, 0, 0, time.UTC)

// at is the i-th review's time: reviews are ordered by it, never by their place in a list.
func at(i int) time.Time { return t0.Add(time.Duration(i) * time.Minute) }

func review(i int, login, state, commit string) Review {
	return Review{ID: int64(100 + i), Login: login, State: state, CommitID: commit, SubmittedAt: at(i)}
}

func approve(i int, login string) Review { return review(i, login, Approved, head) }

// input is a pull request by dave on one managed project that needs one approval (two for
// destroys), with a fresh applicable bundle; policy owners are alice and acme/platform.
func input(edit func(in *Input)) Input {
	in := Input{
		PR: PullRequest{Number: 7, Author: "dave", HeadSHA: head},
		Facts: Facts{
			Permissions: map[string]string{"alice": "admin", "bob": "write", "carol": "maintain", "dave": "write",
				"erin": "read", "frank": "write", "gina": "triage"},
			Teams: map[string]Team{"acme/platform": {Members: map[string]bool{"frank": true, "bob": false}}},
		},
		Projects: []Project{{
			Name:      "envs/prod/network",
			Rules:     Rules{MinApprovals: 1, DestroyMinApprovals: 2, Owners: []string{"alice", "acme/platform"}, Mode: config.ModeManaged},
			HasBundle: true, BundleCommit: head, Applicable: true,
		}},
	}
	if edit != nil {
		edit(&in)
	}
	return in
}

func project(edit func(p *Project)) func(in *Input) {
	return func(in *Input) { edit(&in.Projects[0]) }
}

func reviewed(rs ...Review) func(in *Input) {
	return func(in *Input) { in.Reviews = rs }
}

func both(edits ...func(in *Input)) func(in *Input) {
	return func(in *Input) {
		for _, e := range edits {
			if e != nil {
				e(in)
			}
		}
	}
}

const (
	needOne      = "needs 1 more approval on a1b2c3d (has: none)"
	policyDenied = "denied by policy; needs approval on a1b2c3d from a policy owner (@alice, a member of acme/platform)"
)

func TestEvaluate(t *testing.T) {
	tests := []struct {
		name       string
		in         Input
		reasons    []string // every reason, in order; none means allowed
		state      report.GateState
		approvers  []string
		overridden []string
	}{
		{"one approval on the head", input(reviewed(approve(1, "bob"))), nil, report.GateAllowed, []string{"bob"}, nil},
		{"no review", input(nil), []string{needOne}, report.GatePending, nil, nil},
		{"too few approvals", input(both(reviewed(approve(1, "bob")), project(func(p *Project) { p.Rules.MinApprovals = 2 }))),
			[]string{"needs 1 more approval on a1b2c3d (has: @bob)"}, report.GatePending, []string{"bob"}, nil},
		{"too few, two missing", input(project(func(p *Project) { p.Rules.MinApprovals = 2 })),
			[]string{"needs 2 more approvals on a1b2c3d (has: none)"}, report.GatePending, nil, nil},
		{"self-approval", input(reviewed(approve(1, "dave"))),
			[]string{needOne, "@dave wrote the pull request; an author's own approval does not count"}, report.GatePending, nil, nil},
		{"approval on an older commit", input(reviewed(review(1, "bob", Approved, old))),
			[]string{needOne, "approval by @bob is on an older commit abc1234; approve a1b2c3d again"}, report.GatePending, nil, nil},
		{"approval later dismissed", input(reviewed(approve(1, "bob"), review(2, "bob", Dismissed, head))),
			[]string{needOne}, report.GatePending, nil, nil},
		{"the approval itself dismissed, as GitHub lists it", input(reviewed(review(1, "bob", Dismissed, head))),
			[]string{needOne}, report.GatePending, nil, nil},
		{"approval superseded by a later change request", input(reviewed(approve(1, "bob"), review(2, "bob", ChangesRequested, head))),
			[]string{"@bob requested changes; @bob must approve, or the review must be dismissed", needOne}, report.GateBlocked, nil, nil},
		{"change request on an older commit still blocks", input(reviewed(approve(1, "bob"), review(2, "carol", ChangesRequested, old))),
			[]string{"@carol requested changes; @carol must approve, or the review must be dismissed"}, report.GateBlocked, []string{"bob"}, nil},
		{"change request without write access does not block, as on GitHub", input(reviewed(approve(1, "bob"), review(2, "erin", ChangesRequested, head))),
			nil, report.GateAllowed, []string{"bob"}, nil},
		{"change request without write access is named when short", input(reviewed(review(1, "gina", ChangesRequested, head))),
			[]string{needOne, "@gina requested changes with triage access; only change requests from people with write access block"}, report.GatePending, nil, nil},
		{"change request of an unknown permission blocks", input(reviewed(approve(1, "bob"), review(2, "zed", ChangesRequested, head))),
			[]string{"@zed requested changes; @zed must approve, or the review must be dismissed"}, report.GateBlocked, []string{"bob"}, nil},
		{"change request of an empty or unheard-of permission blocks", input(both(reviewed(approve(1, "bob"), review(2, "zed", ChangesRequested, head), review(3, "yan", ChangesRequested, head)),
			func(in *Input) { in.Facts.Permissions["zed"], in.Facts.Permissions["yan"] = "", "custom-role" })),
			[]string{"@yan requested changes; @yan must approve, or the review must be dismissed", "@zed requested changes; @zed must approve, or the review must be dismissed"}, report.GateBlocked, []string{"bob"}, nil},
		{"dismissed change request no longer blocks", input(reviewed(review(1, "carol", ChangesRequested, head), review(2, "carol", Dismissed, head), approve(3, "bob"))),
			nil, report.GateAllowed, []string{"bob"}, nil},
		{"change request lifted by a later approval", input(reviewed(review(1, "carol", ChangesRequested, old), approve(2, "carol"))),
			nil, report.GateAllowed, []string{"carol"}, nil},
		{"a later comment leaves the approval standing", input(reviewed(approve(1, "bob"), review(2, "bob", Commented, head))),
			nil, report.GateAllowed, []string{"bob"}, nil},
		{"a pending draft leaves the approval standing", input(reviewed(approve(1, "bob"), Review{ID: 999, Login: "bob", State: PendingReview})),
			nil, report.GateAllowed, []string{"bob"}, nil},
		{"reviewer with read access", input(reviewed(approve(1, "erin"))),
			[]string{needOne, "@erin has read access; only approvals from people with write access count"}, report.GatePending, nil, nil},
		{"reviewer with triage access", input(reviewed(approve(1, "gina"))),
			[]string{needOne, "@gina has triage access; only approvals from people with write access count"}, report.GatePending, nil, nil},
		{"reviewer whose permission is unknown", input(reviewed(approve(1, "zoe"))),
			[]string{needOne, "the repository permission of @zoe is unknown; the approval does not count"}, report.GatePending, nil, nil},
		{"maintain and admin count", input(both(reviewed(approve(1, "carol"), approve(2, "alice")), project(func(p *Project) { p.Rules.MinApprovals = 2 }))),
			nil, report.GateAllowed, []string{"alice", "carol"}, nil},
		{"destroy without the destroy tier", input(both(reviewed(approve(1, "bob")), project(func(p *Project) { p.Destroys = true }))),
			[]string{"needs 1 more approval on a1b2c3d (has: @bob); a plan that destroys or replaces needs 2 approvals"}, report.GatePending, []string{"bob"}, nil},
		{"destroy with the destroy tier", input(both(reviewed(approve(1, "bob"), approve(2, "carol")), project(func(p *Project) { p.Destroys = true }))),
			nil, report.GateAllowed, []string{"bob", "carol"}, nil},
		{"destroy tier never below min", input(both(reviewed(approve(1, "bob")), project(func(p *Project) {
			p.Destroys, p.Rules.MinApprovals, p.Rules.DestroyMinApprovals = true, 2, 1
		}))), []string{"needs 1 more approval on a1b2c3d (has: @bob)"}, report.GatePending, []string{"bob"}, nil},
		{"min approvals 0 needs no review", input(project(func(p *Project) { p.Rules.MinApprovals, p.Rules.DestroyMinApprovals = 0, 0 })),
			nil, report.GateAllowed, nil, nil},
		{"min approvals 0 still blocks on a change request", input(both(reviewed(review(1, "carol", ChangesRequested, head)),
			project(func(p *Project) { p.Rules.MinApprovals = 0 }))),
			[]string{"@carol requested changes; @carol must approve, or the review must be dismissed"}, report.GateBlocked, nil, nil},
		{"stale approvals are not reported when enough count", input(reviewed(approve(1, "bob"), review(2, "carol", Approved, old), approve(3, "dave"))),
			nil, report.GateAllowed, []string{"bob"}, nil},

		{"policy deny without owner approval", input(both(reviewed(approve(1, "bob")), project(func(p *Project) { p.PolicyDenied = true }))),
			[]string{policyDenied}, report.GatePending, []string{"bob"}, nil},
		{"policy deny overridden by owner login", input(both(reviewed(approve(1, "alice")), project(func(p *Project) { p.PolicyDenied = true }))),
			nil, report.GateAllowed, []string{"alice"}, []string{"alice"}},
		{"policy deny overridden by team member", input(both(reviewed(approve(1, "frank"), approve(2, "bob")), project(func(p *Project) { p.PolicyDenied = true }))),
			nil, report.GateAllowed, []string{"bob", "frank"}, []string{"frank"}},
		{"owner's approval on an older commit does not override", input(both(reviewed(approve(1, "bob"), review(2, "alice", Approved, old)),
			project(func(p *Project) { p.PolicyDenied = true }))),
			[]string{policyDenied, "approval by @alice is on an older commit abc1234; approve a1b2c3d again"}, report.GatePending, []string{"bob"}, nil},
		{"owner who wrote the pull request cannot override", input(both(reviewed(approve(1, "alice"), approve(2, "bob")), func(in *Input) {
			in.PR.Author = "alice"
			in.Projects[0].PolicyDenied = true
		})), []string{policyDenied, "@alice wrote the pull request; an author's own approval does not count"}, report.GatePending, []string{"bob"}, nil},
		{"team owner unreadable", input(both(reviewed(approve(1, "frank")), project(func(p *Project) { p.PolicyDenied = true }), func(in *Input) {
			in.Facts.Teams = map[string]Team{"acme/platform": {Unreadable: "GitHub answered 403"}}
		})), []string{policyDenied, "the token cannot read team membership of acme/platform: give it the organization permission members: read, or list owners by login"},
			report.GateBlocked, []string{"frank"}, nil},
		{"team owner never read fails closed too", input(both(reviewed(approve(1, "frank")), project(func(p *Project) { p.PolicyDenied = true }), func(in *Input) {
			in.Facts.Teams = nil
		})), []string{policyDenied, "the token cannot read team membership of acme/platform: give it the organization permission members: read, or list owners by login"},
			report.GateBlocked, []string{"frank"}, nil},
		{"team unreadable, owner by login approved", input(both(reviewed(approve(1, "alice")), project(func(p *Project) { p.PolicyDenied = true }), func(in *Input) {
			in.Facts.Teams = map[string]Team{"acme/platform": {Unreadable: "GitHub answered 404"}}
		})), nil, report.GateAllowed, []string{"alice"}, []string{"alice"}},
		{"policy deny and no owners", input(both(reviewed(approve(1, "bob")), project(func(p *Project) { p.PolicyDenied, p.Rules.Owners = true, nil }))),
			[]string{"denied by policy, and no policy owners are configured (policies.owners) to override it"}, report.GateBlocked, []string{"bob"}, nil},
		{"policy error fails closed", input(both(reviewed(approve(1, "alice")), project(func(p *Project) { p.PolicyError = "rego_parse_error: deny.rego:3" }))),
			[]string{"the policies did not evaluate (rego_parse_error: deny.rego:3); nothing applies until they do"}, report.GateBlocked, []string{"alice"}, nil},

		{"observe mode", input(both(reviewed(approve(1, "bob")), project(func(p *Project) { p.Rules.Mode = config.ModeObserve }))),
			[]string{"observe mode: tfgate never applies it"}, report.GateBlocked, []string{"bob"}, nil},
		{"freeze", input(both(reviewed(approve(1, "bob")), func(in *Input) { in.Freeze = "apply.freeze is set in .tfgate.yaml" })),
			[]string{"apply is frozen: apply.freeze is set in .tfgate.yaml"}, report.GateBlocked, []string{"bob"}, nil},
		{"fork", input(both(reviewed(approve(1, "bob")), func(in *Input) { in.PR.Fork = true })),
			[]string{"the pull request comes from a fork; tfgate never applies a fork's code"}, report.GateBlocked, []string{"bob"}, nil},
		{"no bundle", input(both(reviewed(approve(1, "bob")), project(func(p *Project) { p.HasBundle, p.BundleCommit = false, "" }))),
			[]string{"no plan for this project on a1b2c3d; the plan must run for it"}, report.GateBlocked, []string{"bob"}, nil},
		{"bundle for another commit", input(both(reviewed(approve(1, "bob")), project(func(p *Project) { p.BundleCommit = old }))),
			[]string{"the plan is of commit abc1234, not of the pull request's head a1b2c3d; the plan must run again on a1b2c3d"}, report.GateBlocked, []string{"bob"}, nil},
		{"merge queue: the bundle of the queue's commit stands for the head's", input(both(reviewed(approve(1, "bob")), func(in *Input) {
			in.QueueSHA = "ffffffffffffffffffffffffffffffffffffffff"
			in.Projects[0].BundleCommit = in.QueueSHA
		})), nil, report.GateAllowed, []string{"bob"}, nil},
		{"merge queue: a bundle of the head is not the queue's", input(both(reviewed(approve(1, "bob")), func(in *Input) {
			in.QueueSHA = "ffffffffffffffffffffffffffffffffffffffff"
		})), []string{"the plan is of commit a1b2c3d, not of the merge queue's commit fffffff; the plan must run again on it"}, report.GateBlocked, []string{"bob"}, nil},
		{"bundle not applicable", input(both(reviewed(approve(1, "bob")), project(func(p *Project) { p.Applicable = false }))),
			[]string{"the plan is marked not applicable (planned from a fork or a dirty working tree); it must be planned again in CI"}, report.GateBlocked, []string{"bob"}, nil},
		{"head unknown: approvals on no commit do not count", input(both(reviewed(review(1, "bob", Approved, "")), func(in *Input) {
			in.PR.HeadSHA = ""
			in.Projects[0].BundleCommit = ""
		})), []string{"the pull request's head commit is unknown; nothing can be checked against it",
			"needs 1 more approval on (unknown commit) (has: none)",
			"approval by @bob is on an older commit (unknown commit); approve (unknown commit) again"}, report.GateBlocked, nil, nil},
		{"every reason at once", input(both(reviewed(approve(1, "dave")), func(in *Input) {
			in.PR.Fork = true
			in.Freeze = "release week"
			p := &in.Projects[0]
			p.HasBundle, p.PolicyDenied, p.Destroys = false, true, true
		})), []string{
			"the pull request comes from a fork; tfgate never applies a fork's code",
			"apply is frozen: release week",
			"no plan for this project on a1b2c3d; the plan must run for it",
			"needs 2 more approvals on a1b2c3d (has: none); a plan that destroys or replaces needs 2 approvals",
			policyDenied,
			"@dave wrote the pull request; an author's own approval does not count",
		}, report.GateBlocked, nil, nil},

		{"logins compare case-insensitively", input(both(reviewed(
			review(1, "BoB", Approved, head),   // permission listed as bob
			review(2, "bob", Commented, head),  // the same reviewer
			review(3, "Dave", Approved, head),  // the author, dave
			review(4, "CAROL", Approved, old),  // superseded below
			review(5, "carol", Dismissed, old), // clears CAROL's approval
			review(6, "Frank", Approved, head), // member of acme/platform as frank
		), func(in *Input) {
			in.Projects[0].PolicyDenied = true
			in.Projects[0].Rules.Owners = []string{"ALICE", "Acme/Platform"}
			in.Projects[0].Rules.MinApprovals = 2
		})), nil, report.GateAllowed, []string{"BoB", "Frank"}, []string{"Frank"}},
		{"an owner named in another case", input(both(reviewed(review(1, "Alice", Approved, head)), func(in *Input) {
			in.Projects[0].PolicyDenied = true
			in.Projects[0].Rules.Owners = []string{"@ALICE"}
		})), nil, report.GateAllowed, []string{"Alice"}, []string{"Alice"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := Evaluate(tt.in)
			if len(v.Projects) != 1 {
				t.Fatalf("%d project verdicts", len(v.Projects))
			}
			p := v.Projects[0]
			var got []string
			for _, r := range p.Reasons {
				got = append(got, r.Text)
			}
			if !reflect.DeepEqual(got, tt.reasons) {
				t.Errorf("reasons:\n got %q\nwant %q", got, tt.reasons)
			}
			if p.Allowed != (tt.reasons == nil) || v.Allowed != p.Allowed {
				t.Errorf("allowed: project %v, verdict %v", p.Allowed, v.Allowed)
			}
			if s := v.State(); s != tt.state {
				t.Errorf("state %s, want %s", s, tt.state)
			}
			if !reflect.DeepEqual(nilIfEmpty(p.Approvers), tt.approvers) {
				t.Errorf("approvers %q, want %q", p.Approvers, tt.approvers)
			}
			if !reflect.DeepEqual(p.PolicyOverriddenBy, tt.overridden) {
				t.Errorf("overridden by %q, want %q", p.PolicyOverriddenBy, tt.overridden)
			}
			if d := v.Description(github.MaxStatusDescription); utf8.RuneCountInString(d) > github.MaxStatusDescription || d == "" {
				t.Errorf("description %q", d)
			}
		})
	}
}

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

func TestReasonCodes(t *testing.T) {
	v := Evaluate(input(both(reviewed(review(1, "bob", Approved, old), review(2, "carol", ChangesRequested, head)), func(in *Input) {
		in.Projects[0].PolicyDenied = true
		in.Facts.Teams = nil
	})))
	var codes []string
	for _, r := range v.Projects[0].Reasons {
		codes = append(codes, fmt.Sprintf("%s:%v", r.Code, r.Pending))
	}
	want := []string{"changes-requested:false", "approvals:true", "policy-denied:true", "team-unreadable:false", "stale-approval:true"}
	if !reflect.DeepEqual(codes, want) {
		t.Errorf("codes %q, want %q", codes, want)
	}
}

// Projects share the reviews but not the rules: the destroy tier and a policy deny are
// per project, and the description names the project when the reason is not shared.
func TestEvaluateProjects(t *testing.T) {
	two := func(edit func(in *Input)) Input {
		return input(both(func(in *Input) {
			dev := in.Projects[0]
			dev.Name = "envs/dev/app"
			in.Projects = append(in.Projects, dev)
		}, edit))
	}
	tests := []struct {
		name, desc string
		state      report.GateState
		in         Input
		allowed    []bool
	}{
		{"allowed", "1 approval on a1b2c3d; policies pass", report.GateAllowed,
			two(reviewed(approve(1, "bob"))), []bool{true, true}},
		{"overridden", "1 approval on a1b2c3d; policy deny overridden by @alice", report.GateAllowed,
			two(both(reviewed(approve(1, "alice")), project(func(p *Project) { p.PolicyDenied = true }))), []bool{true, true}},
		{"a reason every project shares is not named by project", "needs 1 more approval on a1b2c3d (has: none)", report.GatePending,
			two(nil), []bool{false, false}},
		{"one project denied", "envs/prod/network: denied by policy; needs approval on a1b2c3d from a policy owner (@alice, a member of acme/platform)",
			report.GatePending, two(both(reviewed(approve(1, "bob")), project(func(p *Project) { p.PolicyDenied = true }))), []bool{false, true}},
		{"blocking before pending, and how many more", "envs/dev/app: no plan for this project on a1b2c3d; the plan must run for it (+1 more)",
			report.GateBlocked, two(func(in *Input) { in.Projects[1].HasBundle = false }), []bool{false, false}},
		{"long reasons are cut to GitHub's limit", "apply is frozen: " + strings.Repeat("x", 122) + "…", report.GateBlocked,
			two(both(reviewed(approve(1, "bob")), func(in *Input) { in.Freeze = strings.Repeat("x", 200) })), []bool{false, false}},
		{"cut, keeping the count", "apply is frozen: " + strings.Repeat("x", 112) + "… (+1 more)", report.GateBlocked,
			two(func(in *Input) { in.Freeze = strings.Repeat("x", 200) }), []bool{false, false}},
		{"no project", "no project to apply", report.GateAllowed, input(func(in *Input) { in.Projects = nil }), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := Evaluate(tt.in)
			if d := v.Description(github.MaxStatusDescription); d != tt.desc {
				t.Errorf("description\n got %q\nwant %q", d, tt.desc)
			}
			if d := v.Description(github.MaxStatusDescription); utf8.RuneCountInString(d) > github.MaxStatusDescription {
				t.Errorf("description of %d characters", utf8.RuneCountInString(d))
			}
			if s := v.State(); s != tt.state {
				t.Errorf("state %s, want %s", s, tt.state)
			}
			var allowed []bool
			for _, p := range v.Projects {
				allowed = append(allowed, p.Allowed)
			}
			if !reflect.DeepEqual(allowed, tt.allowed) || v.Allowed != !slicesContains(allowed, false) {
				t.Errorf("allowed %v (verdict %v), want %v", allowed, v.Allowed, tt.allowed)
			}
		})
	}
}

func slicesContains(s []bool, b bool) bool {
	for _, x := range s {
		if x == b {
			return true
		}
	}
	return false
}

// The order GitHub lists reviews in does not matter, only when they were submitted: any
// shuffle of reviews with distinct submission times gives the same verdict.
func TestEvaluateIgnoresReviewOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	logins := []string{"alice", "Bob", "bob", "carol", "dave", "erin", "frank", "zoe"}
	states := []string{Approved, Approved, ChangesRequested, Commented, Dismissed, PendingReview}
	commits := []string{head, head, old}
	for round := range 300 {
		var rs []Review
		for i := range rng.IntN(12) {
			r := review(i, logins[rng.IntN(len(logins))], states[rng.IntN(len(states))], commits[rng.IntN(len(commits))])
			r.ID = rng.Int64N(1 << 40) // ids need not follow time
			rs = append(rs, r)
		}
		in := input(both(reviewed(rs...), project(func(p *Project) {
			p.PolicyDenied, p.Destroys = round%2 == 0, round%3 == 0
		})))
		want := Evaluate(in)
		for range 20 {
			shuffled := append([]Review(nil), rs...)
			rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
			in.Reviews = shuffled
			if got := Evaluate(in); !reflect.DeepEqual(got, want) {
				t.Fatalf("round %d: verdict changed with the review order\nreviews %+v\n got %+v\nwant %+v", round, shuffled, got, want)
			}
		}
	}
}

func TestLatest(t *testing.T) {
	got := Latest([]Review{
		review(3, "bob", Commented, head),
		review(1, "bob", Approved, old),
		review(2, "Bob", Approved, head),
		review(4, "carol", ChangesRequested, head),
		review(5, "carol", Dismissed, head),
		review(6, "erin", Commented, head),
		{ID: 1, State: Approved, CommitID: head}, // a deleted account
	})
	if len(got) != 1 || got["bob"].ID != 102 || got["bob"].CommitID != head {
		t.Errorf("Latest = %+v", got)
	}
}
