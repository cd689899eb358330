package github_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/github/githubtest"
)

// The reads the approval gate makes: pull requests, reviews, team membership.
const (
	listReviews     = "GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews"
	listCommitPulls = "GET /repos/{owner}/{repo}/commits/{commit_sha}/pulls"
	getMembership   = "GET /orgs/{org}/teams/{team_slug}/memberships/{username}"
	getTeam         = "GET /orgs/{org}/teams/{team_slug}"
)

func TestGetPull(t *testing.T) {
	ctx := context.Background()
	s := githubtest.New(t)
	own := s.AddPull(repo.String(), githubtest.Pull{Title: "network", Author: githubtest.Bob, HeadSHA: "h1", HeadRef: "feature",
		BaseSHA: "b1", BaseRef: "main"})
	fork := s.AddPull(repo.String(), githubtest.Pull{Author: githubtest.Carol, HeadSHA: "h2", HeadRef: "main", BaseRef: "main", Fork: true})
	c := newClient(t, s, githubtest.InstallationToken)

	pr, err := c.GetPull(ctx, repo, own)
	want := github.PullRequest{Number: own, Title: "network", State: "open", HeadSHA: "h1", HeadRef: "feature",
		HeadRepo: "acme/infra", BaseRef: "main", BaseSHA: "b1", Author: github.User{Login: "bob", Type: "User"}}
	if err != nil || pr != want {
		t.Errorf("GetPull = %+v, %v\nwant %+v", pr, err, want)
	}
	pr, err = c.GetPull(ctx, repo, fork)
	if err != nil || !pr.Fork || pr.HeadRepo != "carol/infra" {
		t.Errorf("fork: %+v, %v", pr, err)
	}
	s.MergePull(repo.String(), own, "m1")
	pr, err = c.GetPull(ctx, repo, own)
	if err != nil || !pr.Merged || pr.State != "closed" || pr.MergeCommitSHA != "m1" {
		t.Errorf("merged: %+v, %v", pr, err)
	}
	if _, err := c.GetPull(ctx, repo, 99); github.HTTPStatus(err) != 404 {
		t.Errorf("missing pull request: %v", err)
	}
}

// Apply finds the pull request a push merged by its merge commit; the list endpoint has
// no "merged" field, only merged_at.
func TestListCommitPulls(t *testing.T) {
	ctx := context.Background()
	s := githubtest.New(t)
	merged := s.AddPull(repo.String(), githubtest.Pull{HeadSHA: "h1", HeadRef: "a"})
	s.AddPull(repo.String(), githubtest.Pull{HeadSHA: "h2", HeadRef: "b"})
	s.MergePull(repo.String(), merged, "m1")
	c := newClient(t, s, githubtest.InstallationToken)

	prs, err := c.ListCommitPulls(ctx, repo, "m1")
	if err != nil || len(prs) != 1 || prs[0].Number != merged || !prs[0].Merged || prs[0].MergeCommitSHA != "m1" || prs[0].HeadSHA != "h1" {
		t.Errorf("by merge commit: %+v, %v", prs, err)
	}
	prs, err = c.ListCommitPulls(ctx, repo, "h2")
	if err != nil || len(prs) != 1 || prs[0].Merged || prs[0].State != "open" {
		t.Errorf("by head: %+v, %v", prs, err)
	}
	prs, err = c.ListCommitPulls(ctx, repo, "0000000")
	if err != nil || len(prs) != 0 {
		t.Errorf("unknown commit: %+v, %v", prs, err)
	}

	for range 130 {
		s.AddPull(repo.String(), githubtest.Pull{HeadSHA: "shared"})
	}
	s.ResetCounts()
	prs, err = c.ListCommitPulls(ctx, repo, "shared")
	if err != nil || len(prs) != 130 || s.Count(listCommitPulls) != 2 {
		t.Errorf("%d pull requests in %d calls, %v", len(prs), s.Count(listCommitPulls), err)
	}
}

func TestListReviewsPaginates(t *testing.T) {
	s := githubtest.New(t)
	pr := s.AddPull(repo.String(), githubtest.Pull{HeadSHA: "abc"})
	for i := range 250 {
		s.AddReview(repo.String(), pr, githubtest.Review{User: githubtest.Bob, State: "COMMENTED", CommitID: "abc", Body: fmt.Sprint(i)})
	}
	last := s.AddReview(repo.String(), pr, githubtest.Review{User: githubtest.Carol, State: "APPROVED", CommitID: "abc"})
	c := newClient(t, s, githubtest.InstallationToken)
	rv, err := c.ListReviews(context.Background(), repo, pr)
	if err != nil || len(rv) != 251 || rv[250].ID != last || rv[250].State != "APPROVED" {
		t.Fatalf("%d reviews, %v", len(rv), err)
	}
	if n := s.Count(listReviews); n != 3 {
		t.Errorf("%d calls for 251 reviews, want 3 pages of 100", n)
	}
}

func TestTeamMembership(t *testing.T) {
	ctx := context.Background()
	s := githubtest.New(t, githubtest.WithToken("ghs_forbidden", githubtest.Token{User: githubtest.Bot, Installation: true,
		Teams: githubtest.TeamsForbidden}))
	s.AddTeam("acme", "platform", "Bob")
	s.InviteToTeam("acme", "platform", "carol")

	tests := []struct {
		name, token, team, login string
		want                     bool
		unreadable               bool
		calls                    int // membership + team reads
	}{
		{"member, any case", githubtest.AppToken, "platform", "bob", true, false, 1},
		{"not a member: the team is visible", githubtest.AppToken, "platform", "alice", false, false, 2},
		{"pending invitation", githubtest.AppToken, "platform", "carol", false, false, 1},
		{"no such team", githubtest.AppToken, "nope", "bob", false, true, 2},
		{"a member's personal token", githubtest.AliceToken, "platform", "bob", true, false, 1},
		{"GITHUB_TOKEN: 404 for members too", githubtest.InstallationToken, "platform", "bob", false, true, 2},
		{"403 Resource not accessible by integration", "ghs_forbidden", "platform", "bob", false, true, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s.ResetCounts()
			c := newClient(t, s, tt.token)
			got, err := c.TeamMembership(ctx, "acme", tt.team, tt.login)
			if got != tt.want || errors.Is(err, github.ErrTeamUnreadable) != tt.unreadable || (err != nil) != tt.unreadable {
				t.Errorf("TeamMembership = %v, %v", got, err)
			}
			if n := s.Count(getMembership) + s.Count(getTeam); n != tt.calls {
				t.Errorf("%d calls, want %d: %v", n, tt.calls, s.Counts())
			}
		})
	}
}

// Fail closed, and say why: an outage or a rate limit is an error, never "not a member"
// and never "unreadable" (which would tell the user to fix the token).
func TestTeamMembershipErrors(t *testing.T) {
	ctx := context.Background()
	s := githubtest.New(t)
	s.AddTeam("acme", "platform", "bob")
	c := newClient(t, s, githubtest.AppToken)

	s.FailNext(4, 502, getMembership)
	if ok, err := c.TeamMembership(ctx, "acme", "platform", "bob"); ok || err == nil || errors.Is(err, github.ErrTeamUnreadable) {
		t.Errorf("502: %v, %v", ok, err)
	}
	s.PrimaryRateLimitNext(1, 403, time.Now().Add(time.Hour), getMembership)
	var rl *github.RateLimitError
	if ok, err := c.TeamMembership(ctx, "acme", "platform", "bob"); ok || !errors.As(err, &rl) || errors.Is(err, github.ErrTeamUnreadable) {
		t.Errorf("rate limit: %v, %v", ok, err)
	}
	s.FailNext(4, 500, getTeam)
	if ok, err := c.TeamMembership(ctx, "acme", "platform", "alice"); ok || err == nil || errors.Is(err, github.ErrTeamUnreadable) {
		t.Errorf("500 on the team probe: %v, %v", ok, err)
	}
}

// Team: what tfgate doctor asks of each owner team; unreadable says which token cannot.
func TestTeam(t *testing.T) {
	ctx := context.Background()
	s := githubtest.New(t, githubtest.WithToken("ghs_forbidden", githubtest.Token{User: githubtest.Bot, Installation: true,
		Teams: githubtest.TeamsForbidden}))
	s.AddTeam("acme", "platform", "bob")
	for _, tt := range []struct {
		name, token, team string
		unreadable        bool
	}{
		{"members: read", githubtest.AppToken, "platform", false},
		{"no such team", githubtest.AppToken, "nope", true},
		{"GITHUB_TOKEN", githubtest.InstallationToken, "platform", true},
		{"403", "ghs_forbidden", "platform", true},
	} {
		err := newClient(t, s, tt.token).Team(ctx, "acme", tt.team)
		if errors.Is(err, github.ErrTeamUnreadable) != tt.unreadable || (err != nil) != tt.unreadable {
			t.Errorf("%s: Team = %v", tt.name, err)
		}
	}
}
