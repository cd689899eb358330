// Package config turns a repository's .tfgate.yaml into a validated Config.
//
// It is the only place that knows the file's shape: every problem it finds is reported with
// the file and line of the offending YAML node and a hint on how to fix it, and every
// problem in the file is reported at once, so a user fixes the file in one pass.
package config

import "slices"

// FileName is the configuration file looked for at the repository root.
const FileName = ".tfgate.yaml"

// Config is a validated .tfgate.yaml with defaults applied.
type Config struct {
	Version   int
	Terraform Terraform
	Policies  Policies
	Approval  Approval
	Apply     Apply
	// Projects lists the configured projects in file order; nil or empty means the caller
	// autodetects projects.
	Projects []Project
	// Autodetect narrows autodetection; it may only be set when Projects is empty.
	Autodetect Autodetect
	Drift      Drift
	GitHub     GitHub
	// Ignore are doublestar globs over root-relative files that belong to no project and
	// that a change may touch without a review (nil = DefaultIgnore). Every other file
	// outside the projects counts as an input of every project: see Ignores.
	Ignore []string
	// File is the path the configuration was loaded from; "" when no file was found and the
	// configuration is Default().
	File string
}

// Terraform selects the binary that plans and applies.
type Terraform struct {
	Version string // version constraint or exact version, e.g. "~> 1.5"; "" = any
	Binary  string // "terraform" (default) or "tofu"
	Install bool   // allow hc-install to download the binary when none installed matches
	// PluginCache shares downloaded providers between the projects of a run and between
	// runs, through a cache directory that tfgate keeps safe under --parallel (default true).
	PluginCache bool
}

// GitHub tunes how tfgate works with GitHub.
type GitHub struct {
	// Identity is the login tfgate's comments and issues are written by, when the token is
	// not GITHUB_TOKEN's github-actions[bot] and GET /user cannot tell (a GitHub App's
	// installation token: "my-app[bot]"). "" = find out.
	Identity string
	// AllowPullRequestTargetForks lets `pull_request_target` runs plan a fork's code.
	// Off by default: terraform runs providers and external data sources from the checked
	// out code, with the workflow's secrets.
	AllowPullRequestTargetForks bool
}

// Policies configures the OPA policies and who may override a deny.
type Policies struct {
	// Paths are slash paths relative to the repository root, cleaned. nil means the caller
	// uses "policies" if that directory exists.
	Paths []string
	// Owners are GitHub logins or "org/team" slugs (a leading "@" is dropped) whose approval
	// overrides a policy deny.
	Owners []string
}

// Approval is the number of approving reviews the gate requires.
type Approval struct {
	MinApprovals int // default 1
	// DestroyMinApprovals applies when a plan deletes or replaces anything. It defaults to
	// MinApprovals and is never lower than it.
	DestroyMinApprovals int
	// Teams are the owners ("org/team" or login, without "@") each of whom must be among
	// the approvers: one member of each team, or the user (docs/owners.md).
	Teams []string
	// CodeOwners requires, for every changed file, an approval of one of its owners in
	// the base commit's CODEOWNERS.
	CodeOwners bool
}

// Apply configures `tfgate apply` beyond the approval gate.
type Apply struct {
	// Freeze refuses every apply, whatever the reviews say: a change freeze. Plans, the
	// gate's report and drift checks go on. Like the approval rules it is read from the
	// base commit, so a pull request can neither freeze nor unfreeze its own apply.
	Freeze bool
	// AllowModes are the kinds of saved plan apply takes besides a normal plan of the whole
	// configuration (AllowDestroy, AllowRefreshOnly, AllowTargeted): tfgate plan makes none
	// of them, so by default a bundle holding one is refused. Read from the base commit.
	AllowModes []string
	// Verify is how apply proves the saved plan is what terraform would do now: VerifyPlanFile
	// (the default) checks the plan file against the merged code and derives its changes;
	// VerifyReplan also plans the merge commit again and refuses when the changes differ.
	Verify string
	// ReadGuard is whether apply may run terraform without the read guard (the kernel keeping
	// it out of the checkout: stage's guard.go): ReadGuardAuto (the default) uses the guard
	// where the kernel has it and says so where it does not; ReadGuardRequired refuses to
	// apply without it. Read from the base commit.
	ReadGuard string
}

// What apply.read_guard may be.
const (
	ReadGuardAuto     = "auto"
	ReadGuardRequired = "required"
)

// What apply.verify may be.
const (
	VerifyPlanFile = "plan-file"
	VerifyReplan   = "replan"
)

// What apply.allow_modes may list.
const (
	AllowDestroy     = "destroy"      // a plan made with -destroy
	AllowRefreshOnly = "refresh-only" // a plan made with -refresh-only
	AllowTargeted    = "targeted"     // a plan made with -target (or OpenTofu's -exclude)
)

// AllowsMode reports whether apply.allow_modes lists mode.
func (a Apply) AllowsMode(mode string) bool { return slices.Contains(a.AllowModes, mode) }

// Mode says what tfgate may do with a project.
type Mode string

const (
	// ModeManaged projects are planned, applied and checked for drift.
	ModeManaged Mode = "managed"
	// ModeObserve projects are planned and checked for drift; apply is refused.
	ModeObserve Mode = "observe"
)

// Project is one Terraform root module and workspace.
type Project struct {
	Name      string // unique; defaults to Dir
	Dir       string // slash path relative to the repository root, cleaned, no leading "./"
	Workspace string // default "default"
	VarFiles  []string
	// WhenModified are doublestar globs relative to Dir that trigger a plan. nil means the
	// caller's default; an empty non-nil slice means "never plan on change".
	WhenModified []string
	DependsOn    []string // names of other projects, in file order
	Mode         Mode     // default managed
	// SkipDrift is set by `drift: false`: `tfgate drift` without names leaves the project
	// out (naming it still checks it, as when_modified: [] does for plan).
	SkipDrift bool
	// Approval overrides the top-level approval rules for this project; nil means the
	// top-level rules apply. Fields the file leaves unset are filled in from the top level,
	// so callers use it as is.
	Approval *Approval
	Line     int // line of the project entry in File, for later error messages
}

// Drift configures drift reports.
type Drift struct {
	Labels []string // labels put on drift issues, each at most MaxLabelChars; nil = caller's default
}

// MaxLabelChars is GitHub's limit on a label name, in characters.
const MaxLabelChars = 50

// Default is the configuration used when the repository has no .tfgate.yaml.
func Default() *Config {
	return &Config{
		Version:   1,
		Terraform: Terraform{Binary: "terraform", PluginCache: true},
		Approval:  Approval{MinApprovals: 1, DestroyMinApprovals: 1},
	}
}
