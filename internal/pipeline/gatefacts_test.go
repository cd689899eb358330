package pipeline

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/gate"
	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/github/githubtest"
	"github.com/tfgate/tfgate/internal/report"
)

const (
	gateRepo     = "acme/infra"
	gateHead     = "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678"
	gateOld      = "abc1234ffffffffffffffffffffffffffffffff0"
	callReviews  = "GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews"
	callPerm     = "GET /repos/{owner}/{repo}/collaborators/{username}/permission"
	callMember   = "GET /orgs/{org}/teams/{team_slug}/memberships/{username}"
	callTeam     = "GET /orgs/{org}/teams/{team_slug}"
	gateAuthor   = "dave"
	platformTeam = "acme/platform"
)

var gateOwners = []string{"alice", platformTeam}

// gateServer seeds a pull request by dave with 150 comments from a bot reviewer (two pages
// of reviews) and these standing reviews: bob and frank approve the head (frank is in
// acme/platform), carol approved an older commit, erin (read access) approves, hank's
// approval was dismissed, gina requests changes, ivan (read access) requests changes too,
// and dave approves his own change.
func gateServer(t *testing.T, opts ...githubtest.Option) (*githubtest.Server, github.PullRequest) {
	t.Helper()
	s := githubtest.New(t, opts...)
	user := func(login string) githubtest.User {
		return githubtest.User{Login: login, ID: int64(len(login)) * 11, Type: "User"}
	}
	n := s.AddPull(gateRepo, githubtest.Pull{Author: user(gateAuthor), HeadSHA: gateHead, HeadRef: "grow", BaseRef: "main"})
	for login, perm := range map[string]string{"bob": "write", "carol": "write", "dave": "write", "erin": "read",
		"frank": "maintain", "gina": "write", "hank": "write", "ivan": "read"} {
		s.SetPermission(gateRepo, login, perm)
	}
	s.AddTeam("acme", "platform", "frank")
	add := func(login, state, commit string) {
		s.AddReview(gateRepo, n, githubtest.Review{User: user(login), State: state, CommitID: commit})
	}
	add("carol", "APPROVED", gateOld)
	add("bob", "APPROVED", gateHead)
	add("hank", "APPROVED", gateHead)
	add("hank", "DISMISSED", gateHead)
	add("erin", "APPROVED", gateHead)
	add("gina", "CHANGES_REQUESTED", gateHead)
	add("ivan", "CHANGES_REQUESTED", gateHead)
	add("dave", "APPROVED", gateHead)
	for i := range 150 {
		s.AddReview(gateRepo, n, githubtest.Review{User: user("linter"), State: "COMMENTED", CommitID: gateHead, Body: fmt.Sprint(i)})
	}
	add("frank", "APPROVED", gateHead)
	add("bob", "COMMENTED", gateHead)
	return s, github.PullRequest{Number: n, Author: github.User{Login: gateAuthor}, HeadSHA: gateHead}
}

func gateClient(t *testing.T, s *githubtest.Server, token string) *github.Client {
	t.Helper()
	c, err := github.New(github.Options{BaseURL: s.URL(), Token: token, Backoff: 1})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var repoAcme = github.Repo{Owner: "acme", Name: "infra"}

// The API budget: reviews in pages of 100; one permission per approver but the author
// and per reviewer requesting changes (bob, carol, erin, frank, gina, ivan; not hank,
// dismissed, nor dave); team
// membership only for the approvers who can count (bob, frank), plus one read of the team
// for bob's 404 to be told from an unreadable team.
func TestCollectFacts(t *testing.T) {
	ctx := context.Background()
	s, pr := gateServer(t)
	c := gateClient(t, s, githubtest.AppToken)
	s.ResetCounts()
	reviews, facts, err := CollectFacts(ctx, c, repoAcme, pr, gateOwners)
	if err != nil {
		t.Fatal(err)
	}
	if len(reviews) != 160 {
		t.Errorf("%d reviews, want 160", len(reviews))
	}
	wantCalls := map[string]int{callReviews: 2, callPerm: 6, callMember: 2, callTeam: 1}
	if got := s.Counts(); !reflect.DeepEqual(got, wantCalls) {
		t.Errorf("calls %v, want %v", got, wantCalls)
	}
	wantFacts := gate.Facts{
		Permissions: map[string]string{"bob": "write", "carol": "write", "erin": "read", "frank": "write", "gina": "write", "ivan": "read"},
		Teams:       map[string]gate.Team{platformTeam: {Members: map[string]bool{"bob": false, "frank": true}}},
	}
	if !reflect.DeepEqual(facts, wantFacts) {
		t.Errorf("facts %+v\nwant %+v", facts, wantFacts)
	}

	v := gate.Evaluate(gate.Input{PR: gate.PullRequest{Number: pr.Number, Author: gateAuthor, HeadSHA: gateHead},
		Reviews: reviews, Facts: facts, Projects: []gate.Project{deniedProject()}})
	p := v.Projects[0]
	if !reflect.DeepEqual(p.Approvers, []string{"bob", "frank"}) || !reflect.DeepEqual(p.PolicyOverriddenBy, []string{"frank"}) {
		t.Errorf("approvers %v, overridden by %v", p.Approvers, p.PolicyOverriddenBy)
	}
	if len(p.Reasons) != 1 || p.Reasons[0].Text != "@gina requested changes; @gina must approve, or the review must be dismissed" {
		t.Errorf("reasons %+v", p.Reasons)
	}
}

func deniedProject() gate.Project {
	return gate.Project{Name: "envs/prod/network", HasBundle: true, BundleCommit: gateHead, Applicable: true, PolicyDenied: true,
		Rules: gate.Rules{MinApprovals: 1, DestroyMinApprovals: 2, Owners: gateOwners, Mode: config.ModeManaged}}
}

// GITHUB_TOKEN cannot read teams: the first lookup finds that out (membership 404, team
// 404), the team is marked unreadable and not asked again, and the gate says what the
// token lacks instead of "not a member".
func TestCollectFactsWithGitHubToken(t *testing.T) {
	ctx := context.Background()
	s, pr := gateServer(t)
	c := gateClient(t, s, githubtest.InstallationToken)
	s.ResetCounts()
	reviews, facts, err := CollectFacts(ctx, c, repoAcme, pr, gateOwners)
	if err != nil {
		t.Fatal(err)
	}
	if n := s.Count(callMember) + s.Count(callTeam); n != 2 {
		t.Errorf("%d team calls, want 2: %v", n, s.Counts())
	}
	team := facts.Teams[platformTeam]
	if !strings.Contains(team.Unreadable, "the token cannot read the team acme/platform") || team.Members != nil {
		t.Errorf("team facts %+v", team)
	}
	v := gate.Evaluate(gate.Input{PR: gate.PullRequest{Number: pr.Number, Author: gateAuthor, HeadSHA: gateHead},
		Reviews: reviews, Facts: facts, Projects: []gate.Project{deniedProject()}})
	var codes []string
	for _, r := range v.Projects[0].Reasons {
		codes = append(codes, r.Code)
	}
	// erin's approval and ivan's change request (both read access) do not count.
	want := []string{gate.CodeChangesRequested, gate.CodePolicyDenied, gate.CodeTeamUnreadable,
		gate.CodeStaleApproval, gate.CodeSelfApproval, gate.CodeNoWriteAccess, gate.CodeNoWriteAccess}
	if !reflect.DeepEqual(codes, want) || v.State() != report.GateBlocked {
		t.Errorf("reasons %v (%s), want %v", codes, v.State(), want)
	}
	if got := v.Projects[0].Reasons[6].Text; got != "@ivan requested changes with read access; only change requests from people with write access block" {
		t.Errorf("ivan's change request: %q", got)
	}

	// A 403 refusal is unreadable on the first call.
	s2, pr2 := gateServer(t, githubtest.WithToken("ghs_refused", githubtest.Token{User: githubtest.Bot, Installation: true,
		Teams: githubtest.TeamsForbidden}))
	_, facts, err = CollectFacts(ctx, gateClient(t, s2, "ghs_refused"), repoAcme, pr2, gateOwners)
	if err != nil || facts.Teams[platformTeam].Unreadable == "" || s2.Count(callMember)+s2.Count(callTeam) != 1 {
		t.Errorf("403: %+v, %v", facts.Teams, err)
	}
}

// Without owner teams (or without a deny) no team is read.
func TestCollectFactsReadsNoTeamWithoutTeamOwners(t *testing.T) {
	s, pr := gateServer(t)
	c := gateClient(t, s, githubtest.InstallationToken)
	s.ResetCounts()
	for _, owners := range [][]string{nil, {"alice", "@bob"}} {
		_, facts, err := CollectFacts(context.Background(), c, repoAcme, pr, owners)
		if err != nil || len(facts.Teams) != 0 {
			t.Errorf("owners %v: teams %+v, %v", owners, facts.Teams, err)
		}
	}
	if n := s.Count(callMember) + s.Count(callTeam); n != 0 {
		t.Errorf("%d team calls", n)
	}
}

// Fail closed: any read that fails is an error for the caller to refuse on, never a fact.
func TestCollectFactsFailsClosed(t *testing.T) {
	for _, call := range []string{callReviews, callPerm, callMember, callTeam} {
		t.Run(call, func(t *testing.T) {
			s, pr := gateServer(t)
			s.FailNext(100, 502, call)
			_, _, err := CollectFacts(context.Background(), gateClient(t, s, githubtest.AppToken), repoAcme, pr, gateOwners)
			if github.HTTPStatus(err) != 502 || errors.Is(err, github.ErrTeamUnreadable) {
				t.Errorf("error %v", err)
			}
		})
	}
}
