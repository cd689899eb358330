package gate

import (
	"reflect"
	"testing"

	"github.com/tfgate/tfgate/internal/plan"
)

func TestApprovalPolicy(t *testing.T) {
	prod := &Approval{Required: 2, Teams: []string{"acme/platform"}, Reasons: []string{"prod", "destroys 1"}}
	tags := &Approval{Required: 1, Lower: true, Reasons: []string{"tags only"}}
	tests := []struct {
		name    string
		edit    func(in *Input)
		needed  int
		allowed bool
		reasons []string // codes
		why     string
		status  string
	}{
		{"raised to two incl. a team: one approval short", both(reviewed(approve(1, "frank")), project(func(p *Project) { p.Approval = prod })),
			2, false, []string{CodeApprovals}, "2 approvals incl. @acme/platform — prod, destroys 1",
			"needs 1 more approval on a1b2c3d (has: @frank); approval policy: 2 approvals incl. @acme/platform — prod, destroys 1"},
		{"raised: two approvals, none of the team", both(reviewed(approve(1, "bob"), approve(2, "carol")), project(func(p *Project) { p.Approval = prod })),
			2, false, []string{CodeOwners}, "2 approvals incl. @acme/platform — prod, destroys 1",
			"needs @acme/platform (approval policy)"},
		{"raised: allowed with a member of the team", both(reviewed(approve(1, "frank"), approve(2, "carol")), project(func(p *Project) { p.Approval = prod })),
			2, true, nil, "2 approvals incl. @acme/platform — prod, destroys 1",
			"2 approvals on a1b2c3d (2 approvals incl. @acme/platform — prod, destroys 1); policies pass"},
		{"lowered: one approval where min_approvals is two", both(reviewed(approve(1, "bob")), project(func(p *Project) { p.Rules.MinApprovals = 2; p.Approval = tags })),
			1, true, nil, "1 approval — tags only", "1 approval on a1b2c3d (1 approval — tags only); policies pass"},
		{"not lowered unless every policy says lower", both(reviewed(approve(1, "bob")), project(func(p *Project) {
			p.Rules.MinApprovals = 2
			p.Approval = &Approval{Required: 1, Reasons: []string{"tags only"}}
		})), 2, false, []string{CodeApprovals}, "2 approvals — tags only", ""},
		{"never lowered below one", both(reviewed(), project(func(p *Project) { p.Rules.MinApprovals = 2; p.Approval = &Approval{Required: 0, Lower: true} })),
			1, false, []string{CodeApprovals}, "1 approval", ""},
		{"never below the destroy tier", both(reviewed(approve(1, "bob")), project(func(p *Project) { p.Destroys = true; p.Approval = tags })),
			2, false, []string{CodeApprovals}, "2 approvals — tags only", ""},
		{"a team the token cannot read", both(reviewed(approve(1, "frank"), approve(2, "bob")), func(in *Input) {
			in.Facts.Teams = nil
			in.Projects[0].Approval = prod
		}), 2, false, []string{CodeOwners, CodeTeamUnreadable}, "2 approvals incl. @acme/platform — prod, destroys 1", ""},
		{"a login required", both(reviewed(approve(1, "bob")), project(func(p *Project) { p.Approval = &Approval{Required: 1, Teams: []string{"alice"}} })),
			1, false, []string{CodeOwners}, "1 approval incl. @alice", "needs @alice (approval policy)"},
		{"no decision: the configuration's", reviewed(approve(1, "bob")), 1, true, nil, "", "1 approval on a1b2c3d; policies pass"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := Evaluate(input(tt.edit))
			pv := v.Projects[0]
			var codes []string
			for _, r := range pv.Reasons {
				if r.Code != CodeSelfApproval && r.Code != CodeNoWriteAccess && r.Code != CodeStaleApproval {
					codes = append(codes, r.Code)
				}
			}
			if pv.Needed != tt.needed || pv.Allowed != tt.allowed || !reflect.DeepEqual(codes, tt.reasons) || pv.ApprovalWhy != tt.why {
				t.Errorf("needed %d, allowed %t, reasons %v, why %q; want %d, %t, %v, %q\n%+v", pv.Needed, pv.Allowed, codes, pv.ApprovalWhy,
					tt.needed, tt.allowed, tt.reasons, tt.why, pv.Reasons)
			}
			if tt.status != "" {
				if got := v.Description(140); got != tt.status {
					t.Errorf("status %q\nwant   %q", got, tt.status)
				}
			}
			if len([]rune(v.Description(140))) > 140 {
				t.Errorf("status longer than 140 characters: %q", v.Description(140))
			}
		})
	}
}

func TestApprovalTeams(t *testing.T) {
	got := ApprovalTeams([]Project{{Approval: &Approval{Teams: []string{"acme/b", "alice", "acme/a"}}}, {}, {Approval: &Approval{Teams: []string{"acme/a"}}}})
	if !reflect.DeepEqual(got, []string{"acme/a", "acme/b"}) {
		t.Errorf("got %v", got)
	}
}

func TestCheckManifestApproval(t *testing.T) {
	two := &Approval{Required: 2, Reasons: []string{"prod"}}
	one := &Approval{Required: 1, Lower: true, Reasons: []string{"tags only"}}
	s := plan.Summary{Change: 1}
	for _, tc := range []struct {
		m, d *Approval
		want string
	}{
		{two, &Approval{Required: 2, Reasons: []string{"prod"}}, ""},
		{nil, nil, ""},
		{one, two, "its manifest's approval policy decision (1 approval — tags only, may lower) is not what the policies before the merge decide for the plan file (2 approvals — prod): the bundle is not what tfgate plan wrote; plan again"},
		{one, nil, "its manifest's approval policy decision (1 approval — tags only, may lower) is not what the policies before the merge decide for the plan file (none): the bundle is not what tfgate plan wrote; plan again"},
	} {
		got := CheckManifest(PlanAccount{Summary: s, HasChanges: true, Approval: tc.m}, PlanAccount{Summary: s, HasChanges: true, Approval: tc.d})
		switch {
		case tc.want == "" && len(got) > 0:
			t.Errorf("%+v / %+v: refused %v", tc.m, tc.d, got)
		case tc.want != "" && (len(got) != 1 || got[0].Text != tc.want || got[0].Code != CodeManifest):
			t.Errorf("%+v / %+v: got %v\nwant %s", tc.m, tc.d, got, tc.want)
		}
	}
}
