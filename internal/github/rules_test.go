package github_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/github/githubtest"
)

// The branch's rules come from active rulesets only, every rule type (merge_queue too,
// which go-github v60 cannot decode) with its ruleset, held to GitHub's description.
func TestBranchRules(t *testing.T) {
	ctx := context.Background()
	s := githubtest.New(t)
	id := s.AddRuleset(repo.String(), githubtest.Ruleset{Name: "main", RequiredChecks: []string{"ci", "tfgate/gate"}, MergeQueue: true, PullRequest: true})
	s.AddRuleset(repo.String(), githubtest.Ruleset{Name: "trial", Enforcement: "evaluate", RequiredChecks: []string{"tfgate/plan"}})
	s.AddRuleset(repo.String(), githubtest.Ruleset{Name: "release", Include: []string{"refs/heads/release/*"}, RequiredChecks: []string{"release"}})
	c := newClient(t, s, githubtest.InstallationToken)

	rules, err := c.BranchRules(ctx, repo, "main")
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, r := range rules {
		types = append(types, r.Type)
		if r.RulesetID != id || r.Source != repo.String() {
			t.Errorf("rule %s: ruleset %d %q, want %d %q", r.Type, r.RulesetID, r.Source, id, repo)
		}
		if r.Type == "required_status_checks" && !slices.Equal(r.RequiredChecks, []string{"ci", "tfgate/gate"}) {
			t.Errorf("required checks %v", r.RequiredChecks)
		}
	}
	if want := []string{"pull_request", "required_status_checks", "merge_queue"}; !slices.Equal(types, want) {
		t.Errorf("rule types %v, want %v", types, want)
	}
	rules, err = c.BranchRules(ctx, repo, "release/1.0")
	if err != nil || len(rules) != 1 || !slices.Equal(rules[0].RequiredChecks, []string{"release"}) {
		t.Errorf("release/1.0: %+v, %v", rules, err)
	}
	if rules, err := c.BranchRules(ctx, repo, "feature"); err != nil || len(rules) != 0 {
		t.Errorf("feature: %+v, %v", rules, err)
	}
}

// Classic protection is readable with admin rights only; GitHub's refusals are "could not
// read", a branch without protection is ErrNotProtected.
func TestClassicRequiredChecks(t *testing.T) {
	ctx := context.Background()
	s := githubtest.New(t)
	s.ProtectBranch(repo.String(), "main", "tfgate/gate")
	s.ProtectBranch(repo.String(), "dev")
	s.SetPermission(repo.String(), "alice", "admin")
	s.SetPermission(repo.String(), "bob", "write")
	admin := newClient(t, s, githubtest.AliceToken)

	if got, err := admin.ClassicRequiredChecks(ctx, repo, "main"); err != nil || !slices.Equal(got, []string{"tfgate/gate"}) {
		t.Errorf("main: %v, %v", got, err)
	}
	for _, b := range []string{"dev", "other"} {
		if _, err := admin.ClassicRequiredChecks(ctx, repo, b); !errors.Is(err, github.ErrNotProtected) {
			t.Errorf("%s: %v, want ErrNotProtected", b, err)
		}
	}
	for _, tok := range []string{githubtest.InstallationToken, githubtest.BobToken} {
		_, err := newClient(t, s, tok).ClassicRequiredChecks(ctx, repo, "main")
		if !errors.Is(err, github.ErrUnreadable) || errors.Is(err, github.ErrNotProtected) {
			t.Errorf("token %s: %v, want ErrUnreadable", tok, err)
		}
	}
}

func TestRepoSecretNames(t *testing.T) {
	ctx := context.Background()
	s := githubtest.New(t)
	s.SetSecret(repo.String(), "TFGATE_PLAN_KEY")
	s.SetSecret(repo.String(), "AWS_ROLE")
	s.SetPermission(repo.String(), "alice", "admin")
	got, err := newClient(t, s, githubtest.AliceToken).RepoSecretNames(ctx, repo)
	if err != nil || !slices.Equal(got, []string{"AWS_ROLE", "TFGATE_PLAN_KEY"}) {
		t.Errorf("secrets %v, %v", got, err)
	}
	if _, err := newClient(t, s, githubtest.InstallationToken).RepoSecretNames(ctx, repo); !errors.Is(err, github.ErrUnreadable) {
		t.Errorf("GITHUB_TOKEN: %v, want ErrUnreadable", err)
	}
}

// GitHub's description: collaborator (write) access lists secrets; a reader cannot.
func TestRepoSecretNamesWriter(t *testing.T) {
	s := githubtest.New(t)
	s.SetSecret(repo.String(), "TFGATE_PLAN_KEY")
	s.SetPermission(repo.String(), "bob", "write")
	s.SetPermission(repo.String(), "carol", "read")
	if got, err := newClient(t, s, githubtest.BobToken).RepoSecretNames(context.Background(), repo); err != nil || len(got) != 1 {
		t.Errorf("writer: %v, %v", got, err)
	}
	if _, err := newClient(t, s, githubtest.CarolToken).RepoSecretNames(context.Background(), repo); !errors.Is(err, github.ErrUnreadable) {
		t.Errorf("reader: %v, want ErrUnreadable", err)
	}
}
