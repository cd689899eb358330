package config

import (
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// ownerRules are approval.teams and approval.codeowners as written: nil means not set.
type ownerRules struct {
	teams      *[]string
	codeowners *bool
}

// teams decodes approval.teams: logins or "org/team" slugs, a leading "@" dropped.
func (d *decoder) teams(v *yaml.Node, what string) *[]string {
	vals, nodes, ok := d.list(v, what)
	if !ok {
		return nil
	}
	out := []string{}
	for i, s := range vals {
		if !ownerPattern.MatchString(s) {
			d.errorf(nodes[i], `%s %q is not a GitHub user or "org/team"`, what, s)
			continue
		}
		out = append(out, strings.TrimPrefix(s, "@"))
	}
	return &out
}

// codeowners decodes approval.codeowners.
func (d *decoder) codeowners(v *yaml.Node, what string) *bool {
	if b, ok := d.boolean(v, what); ok {
		return &b
	}
	return nil
}

// resolve sets what was written over what out inherited. A project's teams add to the
// top level's and its codeowners cannot switch off the top level's (RulesFor combines
// them), so the inherited values only matter for what a project entry says of itself.
func (o ownerRules) resolve(out *Approval) {
	if o.teams != nil {
		out.Teams = *o.teams
	}
	if o.codeowners != nil {
		out.CodeOwners = *o.codeowners
	}
}

// addOwners adds an entry's owner rules to r: every team, codeowners when any asks.
func (r *Rules) addOwners(a Approval) {
	for _, t := range a.Teams {
		if !slices.ContainsFunc(r.Teams, func(have string) bool { return strings.EqualFold(have, t) }) {
			r.Teams = append(r.Teams, t)
		}
	}
	r.CodeOwners = r.CodeOwners || a.CodeOwners
}

// NamedTeams are the "org/team" owners c names (approval.teams of the top level and of
// each project, policies.owners): the teams tfgate doctor checks the token can read.
func (c *Config) NamedTeams() []string {
	var out []string
	add := func(owners []string) {
		for _, o := range owners {
			if strings.Contains(o, "/") && !slices.Contains(out, o) {
				out = append(out, o)
			}
		}
	}
	add(c.Approval.Teams)
	add(c.Policies.Owners)
	for _, p := range c.Projects {
		if p.Approval != nil {
			add(p.Approval.Teams)
		}
	}
	return out
}
