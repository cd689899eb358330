package pipeline

import (
	"github.com/tfgate/tfgate/internal/bundle"
	"github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/gate"
	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/project"
	"github.com/tfgate/tfgate/internal/report"
	"github.com/tfgate/tfgate/internal/stage"
	"github.com/tfgate/tfgate/internal/terraform"
)

// gatherer is what `tfgate gate` and `tfgate apply` share to gather a pull request's facts
// for the gate (the reviews, the rules, the changed projects and their bundles) and to act
// on its verdict. RunGate and RunApply each build one from their request; the steps both
// commands take read it, never either command's request.
type gatherer struct {
	// Env is the run's: the checkout (Root), its configuration (Config: which projects
	// exist), the file read again at the base commit for the rules, the masker.
	stage.Env
	plans  bundle.Store // where the bundles are
	frozen string       // TFGATE_FREEZE: why every apply is refused; "" = not frozen
	gh     *GitHubRun
}

// runFacts is what the gathering steps learn of one gate or apply run, once: the pull
// request, the rules, the merge queue, the changed projects (targets, each with its
// projectCase). The judgement and the actions read it; only the gathering steps write it.
type runFacts struct {
	gatherer
	repo github.Repo
	pr   github.PullRequest
	base *config.Config // the rules
	// policies: the rules before the merge have policies, so a bundle must carry their
	// verdict.
	policies bool
	// extraRules are further configurations the rules may come from (apply --pr: the pull
	// request's base besides the merge's first parent): the gate must hold under each.
	extraRules []*config.Config
	// shared are the sums of the files outside every project at the merge (sharedSums):
	// part of every plan's inputs.
	shared map[string]string
	// queue is the merge queue's commit whose bundles stand for the head's: on merge_group
	// its head, on the push of it the pushed commit. "" = no merge queue.
	queue string
	// group is the merge queue group's pull requests when there are several (or a problem
	// identifying them): each project is judged by those that changed it. nil = one.
	group *queueGroup
	// ruleRevs are the commits the rules come from, changed the files the merge changed
	// (for the policies).
	ruleRevs []string
	changed  []string
	moved    map[string]string // stage.Selection.MovedFrom: policies judge a moved project by its base name
	targets  []target
	owners   ownerFacts // for the owner needs (owners.go)
}

// target is one project the merge changed: its case (what was gathered of it) and what
// the run made of it.
type target struct {
	projectCase
	result report.Project   // the gate's verdict on it, then apply's outcome
	tf     terraform.Runner // initialised for the apply by derive
}

// projectCase is what was gathered of one project the merge changed: filled in by the
// gathering steps (selection, the bundle's fetch and verification, the plan file's
// derivation), then only read — by the gate's judgement and by apply.
type projectCase struct {
	p        project.Project
	bundle   *bundle.Manifest // nil: none was planned for the reviewed commit
	dir      string           // the bundle's directory
	opened   bundle.Opened
	problems []gate.Reason // why the bundle cannot be applied (verification)
	failure  string        // an error opening it (not a refusal)
	// review marks a review-only item of the gate ("shared", "vanished"): nothing plans
	// or applies it, the pull request's approvals must cover it (gate_review.go).
	review   string
	baseName string // a vanished item's name at the base
	// aliases are the base projects ("name\x00workspace") with the same state address:
	// their rules hold for it too.
	aliases []string
	derived *derived // computed from the plan file (apply_derive.go); nil before
}
