package doctor

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tfgate/tfgate/internal/github"
)

type fakeGitHub struct {
	rules      []github.BranchRule
	rulesErr   error
	classic    []string
	classicErr error
	secrets    []string
	secretsErr error
	teams      map[string]error // org/team → Team's answer
}

func (f fakeGitHub) BranchRules(context.Context, github.Repo, string) ([]github.BranchRule, error) {
	return f.rules, f.rulesErr
}
func (f fakeGitHub) ClassicRequiredChecks(context.Context, github.Repo, string) ([]string, error) {
	return f.classic, f.classicErr
}
func (f fakeGitHub) RepoSecretNames(context.Context, github.Repo) ([]string, error) {
	return f.secrets, f.secretsErr
}
func (f fakeGitHub) Team(_ context.Context, org, team string) error { return f.teams[org+"/"+team] }

var (
	errUnreadable   = fmt.Errorf("get protection: %w", github.ErrUnreadable)
	errNotProtected = fmt.Errorf("get protection: %w", github.ErrNotProtected)
	gateRule        = github.BranchRule{Type: "required_status_checks", RulesetID: 7, Source: "acme/infra", RequiredChecks: []string{"ci", GateContext}}
	otherRule       = github.BranchRule{Type: "required_status_checks", RulesetID: 8, Source: "acme", RequiredChecks: []string{"ci"}}
)

// Required means required: by a ruleset or classic protection; anything unread is "could
// not check", which fails the essential check as much as "missing" does.
func TestCheckRequired(t *testing.T) {
	for _, c := range []struct {
		name   string
		gh     fakeGitHub
		status Status
		want   string
	}{
		{"ruleset", fakeGitHub{rules: []github.BranchRule{otherRule, gateRule}, classicErr: errUnreadable}, OK, "ruleset 7 of acme/infra"},
		{"classic", fakeGitHub{rules: []github.BranchRule{otherRule}, classic: []string{GateContext}}, OK, "classic branch protection"},
		{"classic other checks", fakeGitHub{classic: []string{"ci"}}, Fail, "classic branch protection requires ci"},
		{"nowhere", fakeGitHub{rules: []github.BranchRule{otherRule}, classicErr: errNotProtected}, Fail, "is not a required status check"},
		{"classic unreadable", fakeGitHub{rules: []github.BranchRule{otherRule}, classicErr: errUnreadable}, Unknown, "classic branch protection could not be read"},
		{"rules unreadable", fakeGitHub{rulesErr: errors.New("503"), classicErr: errNotProtected}, Unknown, "the branch's rules could not be read (503)"},
		{"rules unreadable, classic requires", fakeGitHub{rulesErr: errors.New("503"), classic: []string{GateContext}}, OK, "classic"},
		{"merge queue rule only", fakeGitHub{rules: []github.BranchRule{{Type: "merge_queue"}}, classicErr: errNotProtected}, Fail, "not a required"},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := Options{GitHub: c.gh, Branch: "main", Repo: github.Repo{Owner: "acme", Name: "infra"}}
			f := checkRequired(context.Background(), o, c.gh.rules, c.gh.rulesErr)
			if f.Status != c.status || !strings.Contains(f.Message, c.want) || !f.Essential {
				t.Errorf("%+v, want %s containing %q", f, c.status, c.want)
			}
			if f.Status != OK && f.Fix == "" {
				t.Errorf("no fix: %+v", f)
			}
			if (f.Status == OK) != f.Holds() {
				t.Errorf("Holds = %v for %s", f.Holds(), f.Status)
			}
		})
	}
	f := checkRequired(context.Background(), Options{NoGitHub: "no token", Repo: github.Repo{Owner: "a", Name: "b"}}, nil, nil)
	if f.Status != Unknown || f.Holds() || !strings.Contains(f.Fix, "GH_TOKEN") {
		t.Errorf("without GitHub: %+v", f)
	}
}

func TestParseWorkflow(t *testing.T) {
	wf := parseWorkflow("w.yml", []byte(`
on: [pull_request, merge_group]
permissions: read-all
jobs:
  a:
    permissions:
      contents: read
      pull-requests: write
    steps:
      - uses: tfgate/tfgate@v1
  b:
    steps:
      - uses: tfgate/tfgate@v1
        with:
          command: gate
      - run: |
          "$TFGATE" plan --changed "$P"
          tfgate apply
`))
	if wf.err != nil {
		t.Fatal(wf.err)
	}
	if !wf.triggers["pull_request"] || !wf.triggers["merge_group"] || len(wf.triggers) != 2 {
		t.Errorf("triggers %v", wf.triggers)
	}
	a, b := wf.jobs[0], wf.jobs[1]
	if fmt.Sprint(a.commands) != "[plan]" || a.perms.level("statuses") != "none" || a.perms.level("pull-requests") != "write" {
		t.Errorf("job a: %+v", a)
	}
	if fmt.Sprint(b.commands) != "[gate plan apply]" || b.perms.level("statuses") != "read" {
		t.Errorf("job b: %+v", b)
	}
	w := workflows{files: []workflow{wf}}
	fs := checkWorkflows(Options{}, w)
	if fs[0].Status != Fail || !strings.Contains(fs[0].Message, "tfgate gate on reviews") || !strings.Contains(fs[0].Message, "tfgate apply on pushes") ||
		strings.Contains(fs[0].Message, "plan on pull requests") {
		t.Errorf("presence: %+v", fs[0])
	}
	var perm Finding
	for _, f := range fs {
		if f.Check == "permissions" {
			perm = f
		}
	}
	for _, want := range []string{"job a (tfgate plan) needs statuses: write, has none", "job b (tfgate gate) needs pull-requests: write, has read"} {
		if !strings.Contains(perm.Message, want) {
			t.Errorf("permissions %q lacks %q", perm.Message, want)
		}
	}
}

func TestActionlintNotInstalled(t *testing.T) {
	f := runActionlint(Options{}, workflows{files: []workflow{{file: "w.yml"}}})
	if f.Status != Unknown || f.Essential || !strings.Contains(f.Message, "not installed") || !strings.Contains(f.Fix, "go install") {
		t.Errorf("%+v", f)
	}
	if f.Symbol() != "!" {
		t.Errorf("symbol %s", f.Symbol())
	}
}
