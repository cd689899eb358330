// Package doctor checks a repository's tfgate setup and says, for each finding, how to fix
// it: the configuration, the projects, terraform, the policies and their tests, the
// workflows and their permissions, and on GitHub whether tfgate/gate is a required status
// check of the default branch (without it the gate only reports), the plan key secret and
// the merge queue.
package doctor

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/project"
)

// Status is a finding's outcome.
type Status string

const (
	OK      Status = "ok"
	Fail    Status = "fail"
	Warn    Status = "warn"    // works, but not as it should
	Unknown Status = "unknown" // could not check
	Skipped Status = "skipped" // not checked: local checks only (Options.Offline)
)

// Finding is one check's outcome, with the fix when it is not OK.
type Finding struct {
	Check string `json:"check"`
	// Essential findings must be OK for the setup to hold: config, projects, terraform,
	// policies, workflows and the required check.
	Essential bool   `json:"essential"`
	Status    Status `json:"status"`
	Message   string `json:"message"`
	Fix       string `json:"fix,omitempty"`
}

// Holds reports whether the finding does not break the setup: a check skipped by choice
// (Options.Offline) does not.
func (f Finding) Holds() bool { return !f.Essential || f.Status == OK || f.Status == Skipped }

// Report is every finding, in check order.
type Report struct {
	Findings []Finding `json:"findings"`
}

// OK reports whether every essential finding is OK.
func (r Report) OK() bool {
	for _, f := range r.Findings {
		if !f.Holds() {
			return false
		}
	}
	return true
}

// GateContext is the status the gate sets, which must be required.
const GateContext = "tfgate/gate"

// GitHub is what doctor reads from GitHub (github.Client implements it).
type GitHub interface {
	BranchRules(ctx context.Context, repo github.Repo, branch string) ([]github.BranchRule, error)
	ClassicRequiredChecks(ctx context.Context, repo github.Repo, branch string) ([]string, error)
	RepoSecretNames(ctx context.Context, repo github.Repo) ([]string, error)
	Team(ctx context.Context, org, team string) error // nil: the token reads it
}

// Options are the repository and what doctor may use to check it.
type Options struct {
	Root string
	// Config loads the configuration (its errors carry file:line).
	Config func(ctx context.Context) (*config.Config, error)
	// Projects discovers the projects with cfg.
	Projects func(ctx context.Context, cfg *config.Config) ([]project.Project, error)
	// Terraform resolves the binary with cfg, describing it ("terraform 1.5.7 at /usr/bin/terraform").
	Terraform func(ctx context.Context, cfg *config.Config) (string, error)
	// Actionlint is the actionlint binary; "" = not installed, not run.
	Actionlint string
	// Offline, when set, says why only the local checks are made ("--offline"): the GitHub
	// checks are Skipped, and hold.
	Offline string
	// GitHub is nil when there is no token or repository: NoGitHub says why.
	GitHub    GitHub
	NoGitHub  string
	Repo      github.Repo
	Branch    string // the default branch; "" when unknown (BranchErr says why)
	BranchErr error
	// PlanKeyInRun: tfgate runs in GitHub Actions with TFGATE_PLAN_KEY set.
	PlanKeyInRun bool
	// Call bounds one GitHub check (the caller's timeout); nil = no bound.
	Call func(ctx context.Context) (context.Context, context.CancelFunc)
}

// Run makes every check.
func Run(ctx context.Context, o Options) Report {
	var r Report
	add := func(f Finding) { r.Findings = append(r.Findings, f) }

	cfg, err := o.Config(ctx)
	if err != nil {
		add(Finding{Check: "config", Essential: true, Status: Fail, Message: "the configuration is invalid:\n" + err.Error(),
			Fix: "fix each line named above (file:line), then run `tfgate doctor` again"})
	} else if cfg.File == "" {
		add(Finding{Check: "config", Essential: true, Status: OK, Message: "no " + config.FileName + ": the defaults, projects autodetected"})
	} else {
		add(Finding{Check: "config", Essential: true, Status: OK, Message: displayPath(o.Root, cfg.File) + " is valid"})
	}

	if cfg == nil {
		for _, c := range []string{"projects", "terraform", "policies"} {
			add(Finding{Check: c, Essential: true, Status: Unknown, Message: "not checked: the configuration is invalid",
				Fix: "fix the configuration first"})
		}
	} else {
		add(checkProjects(ctx, o, cfg))
		add(checkTerraform(ctx, o, cfg))
		add(checkPolicies(ctx, o, cfg))
	}

	wf := readWorkflows(o.Root)
	r.Findings = append(r.Findings, checkWorkflows(o, wf)...)

	if o.Offline != "" {
		r.Findings = append(r.Findings, skippedGitHub(o.Offline)...)
		return r
	}
	rules, rulesErr := []github.BranchRule(nil), error(nil)
	if o.GitHub != nil && o.Branch != "" {
		cctx, cancel := o.call(ctx)
		rules, rulesErr = o.GitHub.BranchRules(cctx, o.Repo, o.Branch)
		cancel()
	}
	if netErr := networkError(rulesErr); netErr != nil {
		r.Findings = append(r.Findings, unreachableGitHub(netErr)...)
		return r
	}
	add(checkRequired(ctx, o, rules, rulesErr))
	add(checkPlanKey(ctx, o))
	if f, ok := checkTeams(ctx, o, cfg); ok {
		add(f)
	}
	add(checkMergeQueue(o, rules, rulesErr, wf))
	return r
}

func (o Options) call(ctx context.Context) (context.Context, context.CancelFunc) {
	if o.Call == nil {
		return context.WithCancel(ctx)
	}
	return o.Call(ctx)
}

func checkProjects(ctx context.Context, o Options, cfg *config.Config) Finding {
	f := Finding{Check: "projects", Essential: true}
	ps, err := o.Projects(ctx, cfg)
	switch {
	case err != nil:
		f.Status, f.Message = Fail, "cannot list the projects: "+err.Error()
		f.Fix = "fix what the message names; `tfgate projects` shows the same"
	case len(ps) == 0:
		f.Status, f.Message = Fail, "no Terraform projects found"
		f.Fix = "add a Terraform root module (a directory of *.tf files), or list the projects in " + config.FileName
	default:
		names := make([]string, len(ps))
		for i, p := range ps {
			names[i] = p.Name
		}
		s := "s"
		if len(ps) == 1 {
			s = ""
		}
		f.Status, f.Message = OK, fmt.Sprintf("%d project%s: %s", len(ps), s, strings.Join(names, ", "))
	}
	return f
}

func checkTerraform(ctx context.Context, o Options, cfg *config.Config) Finding {
	f := Finding{Check: "terraform", Essential: true}
	what, err := o.Terraform(ctx, cfg)
	if err != nil {
		f.Status, f.Message = Fail, "no terraform to run: "+err.Error()
		f.Fix = "install terraform (or tofu) on PATH, name one with TFGATE_TERRAFORM, or set terraform.version and install: true in " + config.FileName
		return f
	}
	f.Status, f.Message = OK, what
	return f
}

func (o Options) noGitHubFix() string {
	if o.Repo.Name == "" {
		return "pass --repo owner/name"
	}
	return "run doctor with a token: GITHUB_TOKEN or GH_TOKEN (e.g. GH_TOKEN=$(gh auth token) tfgate doctor)"
}

func (o Options) requiredFix() string {
	b := o.Branch
	if b == "" {
		b = "the default branch"
	}
	return fmt.Sprintf("make %s a required status check of %s: Settings → Rules → Rulesets → New branch ruleset (target the default branch), "+
		"\"Require status checks to pass\", add %s; or add it to the classic branch protection of %s", GateContext, b, GateContext, b)
}

// checkRequired: tfgate/gate must be required on the default branch, by an active ruleset
// or by classic branch protection. Rules are readable with read access; classic
// protection only with admin rights: when it cannot be read and no ruleset requires the
// check, doctor cannot tell, and says so.
func checkRequired(ctx context.Context, o Options, rules []github.BranchRule, rulesErr error) Finding {
	f := Finding{Check: "required check", Essential: true, Fix: o.requiredFix()}
	switch {
	case o.GitHub == nil:
		f.Status, f.Message, f.Fix = Unknown, "could not check that "+GateContext+" is a required status check: "+o.NoGitHub, o.noGitHubFix()
		return f
	case o.Branch == "":
		f.Status, f.Message = Unknown, fmt.Sprintf("could not check that %s is a required status check: %v", GateContext, o.BranchErr)
		f.Fix = "name the default branch with --branch"
		return f
	}
	for _, r := range rules {
		if r.Type == "required_status_checks" && contains(r.RequiredChecks, GateContext) {
			f.Status, f.Message, f.Fix = OK, fmt.Sprintf("%s is a required status check of %s (ruleset %d of %s)", GateContext, o.Branch, r.RulesetID, r.Source), ""
			return f
		}
	}
	cctx, cancel := o.call(ctx)
	classic, classicErr := o.GitHub.ClassicRequiredChecks(cctx, o.Repo, o.Branch)
	cancel()
	if classicErr == nil && contains(classic, GateContext) {
		f.Status, f.Message, f.Fix = OK, fmt.Sprintf("%s is a required status check of %s (classic branch protection)", GateContext, o.Branch), ""
		return f
	}
	var rulesSaid, classicSaid string
	if rulesErr != nil {
		rulesSaid = "the branch's rules could not be read (" + rulesErr.Error() + ")"
	} else {
		rulesSaid = "no active ruleset requires it"
	}
	switch {
	case classicErr == nil:
		classicSaid = "classic branch protection requires " + list(classic)
	case errors.Is(classicErr, github.ErrNotProtected):
		classicSaid = "classic branch protection does not require it"
	default:
		classicSaid = "classic branch protection could not be read (" + classicErr.Error() + ")"
	}
	msg := fmt.Sprintf("%s is a required status check of %s: %s; %s", GateContext, o.Branch, rulesSaid, classicSaid)
	if rulesErr == nil && (classicErr == nil || errors.Is(classicErr, github.ErrNotProtected)) {
		f.Status = Fail
		f.Message = fmt.Sprintf("%s is not a required status check of %s: a pull request merges, and apply runs, without the gate (%s; %s)",
			GateContext, o.Branch, rulesSaid, classicSaid)
		return f
	}
	f.Status = Unknown
	f.Message = "could not check that " + msg
	if rulesErr == nil {
		f.Fix = "a ruleset makes it checkable with any token: " + f.Fix + "; or run doctor with an admin's token (GH_TOKEN=$(gh auth token))"
	} else {
		f.Fix = "run `tfgate doctor` again; if it persists, check the token and " + o.Repo.String() + " (GitHub answered: " + rulesErr.Error() + ")"
	}
	return f
}

func checkPlanKey(ctx context.Context, o Options) Finding {
	const name = "TFGATE_PLAN_KEY"
	f := Finding{Check: "plan key", Fix: "set the Actions secret: openssl rand -base64 32 | gh secret set " + name +
		"; plan.yml and apply.yml pass it to tfgate"}
	if o.PlanKeyInRun {
		f.Status, f.Message, f.Fix = OK, name+" is set in this run", ""
		return f
	}
	if o.GitHub == nil {
		f.Status, f.Message, f.Fix = Unknown, "could not check the secret "+name+": "+o.NoGitHub, o.noGitHubFix()
		return f
	}
	cctx, cancel := o.call(ctx)
	names, err := o.GitHub.RepoSecretNames(cctx, o.Repo)
	cancel()
	switch {
	case err == nil && contains(names, name):
		f.Status, f.Message, f.Fix = OK, "the Actions secret "+name+" is set", ""
	case err == nil:
		f.Status, f.Message = Warn, "the Actions secret "+name+" is not set: plan bundles are uploaded unencrypted, and they hold secrets in clear text"
	case errors.Is(err, github.ErrUnreadable):
		f.Status, f.Message = Unknown, "could not check the secret "+name+": listing secrets needs a collaborator's token, which GITHUB_TOKEN is not ("+err.Error()+")"
		f.Fix = "run doctor with your own token (GH_TOKEN=$(gh auth token)), or in a workflow step with env TFGATE_PLAN_KEY: ${{ secrets." + name + " }}"
	default:
		f.Status, f.Message = Unknown, "could not check the secret "+name+": "+err.Error()
		f.Fix = "run `tfgate doctor` again"
	}
	return f
}

func checkMergeQueue(o Options, rules []github.BranchRule, rulesErr error, wf workflows) Finding {
	f := Finding{Check: "merge queue"}
	switch {
	case o.GitHub == nil || o.Branch == "":
		f.Status, f.Message = Unknown, "could not check the merge queue: no GitHub access"
		return f
	case rulesErr != nil:
		f.Status, f.Message = Unknown, "could not check the merge queue: "+rulesErr.Error()
		return f
	}
	for _, r := range rules {
		if r.Type != "merge_queue" {
			continue
		}
		if !wf.triggered("plan", "merge_group") {
			f.Status = Warn
			f.Message = "the merge queue is on for " + o.Branch + ", but no tfgate plan workflow runs on merge_group: the queue waits for tfgate/gate forever"
			f.Fix = "add `merge_group:` to the triggers of the plan workflow (as tfgate's examples/workflows/plan.yml has)"
			return f
		}
		f.Status, f.Message = OK, "the merge queue is on for "+o.Branch+"; the plan workflow runs on merge_group"
		return f
	}
	f.Status, f.Message = OK, "the merge queue is off for "+o.Branch
	return f
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func list(s []string) string {
	if len(s) == 0 {
		return "no status checks"
	}
	return strings.Join(s, ", ")
}
