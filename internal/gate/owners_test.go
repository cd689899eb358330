package gate

import (
	"reflect"
	"testing"
)

// Owner needs: met only by a counted approver who is the user or an active member of the
// team; merged per owners; an unreadable team blocks; a problem blocks whatever the reviews.
func TestOwnerNeeds(t *testing.T) {
	platform := NeedOwner("CODEOWNERS line 3 (envs/prod/main.tf)", "@acme/platform")
	cases := []struct {
		name    string
		reviews []Review
		needs   []OwnerNeed
		teams   []string
		edit    func(in *Input)
		want    []Reason // nil = allowed
	}{
		{name: "a team member approves", reviews: []Review{approve(1, "frank")}, needs: []OwnerNeed{platform}},
		{name: "someone else approves", reviews: []Review{approve(1, "bob")}, needs: []OwnerNeed{platform},
			want: []Reason{{CodeOwners, "needs @acme/platform (CODEOWNERS line 3 (envs/prod/main.tf))", true}}},
		{name: "the member's approval is stale", reviews: []Review{approve(1, "bob"), review(2, "frank", Approved, old)}, needs: []OwnerNeed{platform},
			want: []Reason{{CodeOwners, "needs @acme/platform (CODEOWNERS line 3 (envs/prod/main.tf))", true},
				{CodeStaleApproval, "approval by @frank is on an older commit abc1234; approve a1b2c3d again", true}}},
		{name: "the author is the owner", reviews: []Review{approve(1, "bob"), approve(2, "dave")},
			needs: []OwnerNeed{NeedOwner("CODEOWNERS line 1 (a.tf)", "dave")},
			want: []Reason{{CodeOwners, "needs @dave (CODEOWNERS line 1 (a.tf))", true},
				{CodeSelfApproval, "@dave wrote the pull request; an author's own approval does not count", true}}},
		{name: "a user owner, case ignored", reviews: []Review{approve(1, "Bob")}, needs: []OwnerNeed{NeedOwner("x", "BOB")}},
		{name: "one of several", reviews: []Review{approve(1, "alice")}, needs: []OwnerNeed{NeedOwner("x", "acme/platform", "alice")}},
		{name: "needs of the same owners merge", reviews: []Review{approve(1, "bob")},
			needs: []OwnerNeed{NeedOwner("CODEOWNERS line 3 (a.tf)", "alice", "acme/sec"), NeedOwner("CODEOWNERS line 3 (b.tf)", "alice", "ACME/sec")},
			edit:  func(in *Input) { in.Facts.Teams["acme/sec"] = Team{Members: map[string]bool{}} },
			want:  []Reason{{CodeOwners, "needs one of @alice, @acme/sec (CODEOWNERS line 3 (a.tf), CODEOWNERS line 3 (b.tf))", true}}},
		{name: "teams of the rules", reviews: []Review{approve(1, "frank")}, teams: []string{"acme/platform", "alice"},
			want: []Reason{{CodeOwners, "needs @alice (approval.teams)", true}}},
		{name: "an unreadable team", reviews: []Review{approve(1, "frank")}, needs: []OwnerNeed{platform},
			edit: func(in *Input) { in.Facts.Teams = map[string]Team{"acme/platform": {Unreadable: "403"}} },
			want: []Reason{{CodeOwners, "needs @acme/platform (CODEOWNERS line 3 (envs/prod/main.tf))", true},
				teamUnreadable("acme/platform")}},
		{name: "a team never read", reviews: []Review{approve(1, "frank")}, needs: []OwnerNeed{platform},
			edit: func(in *Input) { in.Facts.Teams = nil },
			want: []Reason{{CodeOwners, "needs @acme/platform (CODEOWNERS line 3 (envs/prod/main.tf))", true},
				teamUnreadable("acme/platform")}},
		{name: "a problem blocks", reviews: []Review{approve(1, "frank")}, needs: []OwnerNeed{Unmeetable("CODEOWNERS", "line 4: bad")},
			want: []Reason{{CodeOwnersInvalid, "CODEOWNERS: line 4: bad; no approval can meet it until it is fixed on the default branch", false}}},
	}
	for _, c := range cases {
		in := input(both(reviewed(c.reviews...), project(func(p *Project) { p.OwnerNeeds, p.Rules.Teams = c.needs, c.teams }), c.edit))
		v := Evaluate(in)
		if got := v.Projects[0].Reasons; !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: reasons\n got %+v\nwant %+v", c.name, got, c.want)
		}
		if v.Allowed != (c.want == nil) {
			t.Errorf("%s: allowed %v", c.name, v.Allowed)
		}
	}
}

// The status names who is still needed, and the project.
func TestOwnerNeedStatus(t *testing.T) {
	in := input(both(reviewed(approve(1, "bob")), project(func(p *Project) {
		p.Name, p.Rules.Teams = "core-networking", []string{"acme/platform"}
	})))
	if got := Evaluate(in).Description(140); got != "needs @acme/platform (approval.teams)" {
		t.Errorf("description %q", got)
	}
}
