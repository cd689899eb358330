package config

// Rules are the approval rules that hold for one project under a configuration (the pull
// request's base commit): what the approval gate (internal/gate) judges it by.
type Rules struct {
	MinApprovals int
	// DestroyMinApprovals applies when the plan deletes or replaces anything; it is never
	// taken below MinApprovals.
	DestroyMinApprovals int
	Owners              []string // policies.owners: logins or "org/team", whose approval overrides a deny
	Mode                Mode
	// Teams are approval.teams of every matching entry and the top level: each must be
	// among the approvers (a member of the team, or the user).
	Teams []string
	// CodeOwners is approval.codeowners of any matching entry or the top level: each
	// changed file's owners in the base commit's CODEOWNERS must approve.
	CodeOwners bool
}

// RulesFor is the one place the effective rules of a project are computed. The decoder
// has already filled each project's approval in from the top level (resolveApproval);
// here the rules of every entry of c that is p are combined.
//
// p is c's by name or by directory (in its workspace), or by its state address: aliases
// are the entries of c ("name\x00workspace") that keep their state where p does, so that
// renaming or moving a project does not escape its rules. When several entries match, the
// strictest rules hold, and never less than the top level's. An entry of c in observe
// mode, or p's own Mode (the change's), makes it observed. A project c does not know gets
// the top-level rules.
func (c *Config) RulesFor(p Project, aliases ...string) Rules {
	rules := Rules{MinApprovals: c.Approval.MinApprovals, DestroyMinApprovals: c.Approval.DestroyMinApprovals,
		Owners: c.Policies.Owners, Mode: ModeManaged}
	rules.addOwners(c.Approval)
	for _, cp := range c.Projects {
		if !cp.is(p, aliases) {
			continue
		}
		if cp.Mode == ModeObserve {
			rules.Mode = ModeObserve
		}
		if cp.Approval != nil {
			rules.MinApprovals = max(rules.MinApprovals, cp.Approval.MinApprovals)
			rules.DestroyMinApprovals = max(rules.DestroyMinApprovals, cp.Approval.DestroyMinApprovals)
			rules.addOwners(*cp.Approval)
		}
	}
	if p.Mode == ModeObserve {
		rules.Mode = ModeObserve
	}
	return rules
}

// SharedRules are the rules of what no project covers (files terraform may read from any
// project): the strictest approvals of any project, since the change is part of each.
func (c *Config) SharedRules() Rules {
	rules := Rules{MinApprovals: c.Approval.MinApprovals, DestroyMinApprovals: c.Approval.DestroyMinApprovals,
		Owners: c.Policies.Owners, Mode: ModeManaged}
	rules.addOwners(c.Approval)
	for _, cp := range c.Projects {
		if cp.Approval != nil {
			rules.MinApprovals = max(rules.MinApprovals, cp.Approval.MinApprovals)
			rules.DestroyMinApprovals = max(rules.DestroyMinApprovals, cp.Approval.DestroyMinApprovals)
			rules.addOwners(*cp.Approval)
		}
	}
	return rules
}

// is reports whether the entry cp is project p: same state (an alias), or the same
// workspace and the same name or directory.
func (cp Project) is(p Project, aliases []string) bool {
	for _, a := range aliases {
		if a == cp.Name+"\x00"+cp.Workspace {
			return true
		}
	}
	return cp.Workspace == p.Workspace && (cp.Name == p.Name || cp.Dir == p.Dir && p.Dir != "")
}
