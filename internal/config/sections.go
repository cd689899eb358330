package config

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/go-version"
	"gopkg.in/yaml.v3"
)

// rawApproval is an approval mapping before defaults: nil means the key was not set.
type rawApproval struct {
	min, destroy *int
	owners       ownerRules // teams, codeowners (owners_config.go)
	destroyNode  *yaml.Node
	destroyName  string // the key as messages name it, e.g. approval.destroy_min_approvals
}

// config decodes the document's top-level mapping.
func (d *decoder) config(n *yaml.Node) *Config {
	cfg := Default()
	if n.Kind != yaml.MappingNode {
		d.errorf(n, "the file must be a mapping of keys such as \"version: 1\", got %s", describe(n))
		return cfg
	}
	versionSet := false
	var top rawApproval
	var projects []rawProject
	var autodetectKey *yaml.Node
	d.mapping(n, "", []field{
		{"version", func(k, v *yaml.Node) {
			versionSet = true
			if isNull(v) {
				d.errorf(k, `version is empty; write "version: 1"`)
				return
			}
			if i, ok := d.integer(v, "version"); ok && i != 1 {
				d.errorf(v, "version must be 1, got %d; this tfgate reads configuration version 1", i)
			}
		}},
		{"terraform", func(_, v *yaml.Node) { d.terraform(v, &cfg.Terraform) }},
		{"policies", func(_, v *yaml.Node) { d.policies(v, &cfg.Policies) }},
		{"approval", func(_, v *yaml.Node) { top = d.approval(v, "", "approval") }},
		{"apply", func(_, v *yaml.Node) { d.apply(v, &cfg.Apply) }},
		{"projects", func(_, v *yaml.Node) { projects = d.projects(v) }},
		{"autodetect", func(k, v *yaml.Node) { d.autodetect(v, &cfg.Autodetect); autodetectKey = k }},
		{"drift", func(_, v *yaml.Node) { d.drift(v, &cfg.Drift) }},
		{"github", func(_, v *yaml.Node) { d.github(v, &cfg.GitHub) }},
		{"ignore", func(_, v *yaml.Node) { cfg.Ignore = d.ignore(v) }},
		// As in docker compose, x- keys hold YAML anchors for the rest of the file to use.
		{"x-*", func(_, _ *yaml.Node) {}},
	})
	if !versionSet && !misspelt(n, "version") {
		d.errorf(n, `version is missing; add "version: 1" at the top of the file`)
	}
	cfg.Approval = d.resolveApproval(top, Approval{}, true)
	cfg.Projects = d.finishProjects(projects, cfg.Approval)
	if autodetectKey != nil && len(projects) > 0 {
		d.errorf(autodetectKey, "autodetect has no effect when projects lists the projects; remove one of the two")
	}
	return cfg
}

func (d *decoder) terraform(n *yaml.Node, t *Terraform) {
	d.section(n, "terraform", []field{
		{"version", func(_, v *yaml.Node) {
			s, ok := d.str(v, "terraform.version")
			if !ok {
				return
			}
			if _, err := version.NewConstraint(s); err != nil {
				d.errorf(v, `terraform.version %q is not a version or constraint; write e.g. "~> 1.5" or "1.5.7"`, s)
				return
			}
			t.Version = strings.TrimSpace(s)
		}},
		{"binary", func(_, v *yaml.Node) {
			s, ok := d.str(v, "terraform.binary")
			if !ok {
				return
			}
			if s != "terraform" && s != "tofu" {
				d.errorf(v, `terraform.binary must be "terraform" or "tofu", got %q`, s)
				return
			}
			t.Binary = s
		}},
		{"install", func(_, v *yaml.Node) {
			if b, ok := d.boolean(v, "terraform.install"); ok {
				t.Install = b
			}
		}},
		{"plugin_cache", func(_, v *yaml.Node) {
			var b bool
			if v.Kind == yaml.ScalarNode && !isNull(v) && v.Decode(&b) != nil {
				// A path here would hold for every machine that runs the repository's
				// config; where the cache lives is the machine's business.
				d.errorf(v, "terraform.plugin_cache must be true or false, got %s; to choose the directory, set TF_PLUGIN_CACHE_DIR where tfgate runs", describe(v))
				return
			}
			if b, ok := d.boolean(v, "terraform.plugin_cache"); ok {
				t.PluginCache = b
			}
		}},
	})
}

// ownerPattern is a GitHub login or an org/team slug, optionally written with a leading
// "@" as in CODEOWNERS.
var ownerPattern = regexp.MustCompile(`^@?[A-Za-z0-9](?:[A-Za-z0-9-]*)(?:/[A-Za-z0-9_.-]+)?$`)

func (d *decoder) policies(n *yaml.Node, p *Policies) {
	d.section(n, "policies", []field{
		{"paths", func(_, v *yaml.Node) {
			vals, nodes, ok := d.list(v, "policies.paths")
			if !ok {
				return
			}
			p.Paths = []string{}
			for i, s := range vals {
				// Policies must come from the repository so that they are read from the
				// pull request's base commit, never from somewhere the change cannot see.
				rel, ok := d.repoPath(nodes[i], "policies.paths", s)
				if ok && d.exists(nodes[i], "policies.paths", s, rel, "in the repository", kindAny) {
					p.Paths = append(p.Paths, rel)
				}
			}
		}},
		{"owners", func(_, v *yaml.Node) {
			vals, nodes, ok := d.list(v, "policies.owners")
			if !ok {
				return
			}
			p.Owners = []string{}
			for i, s := range vals {
				if !ownerPattern.MatchString(s) {
					d.errorf(nodes[i], `policies.owners %q is not a GitHub user or "org/team"`, s)
					continue
				}
				p.Owners = append(p.Owners, strings.TrimPrefix(s, "@"))
			}
		}},
	})
}

// loginPattern is a GitHub login, bots included ("github-actions[bot]").
var loginPattern = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9-]*)(?:\[bot\])?$`)

func (d *decoder) github(n *yaml.Node, g *GitHub) {
	d.section(n, "github", []field{
		{"identity", func(_, v *yaml.Node) {
			s, ok := d.str(v, "github.identity")
			if !ok {
				return
			}
			if !loginPattern.MatchString(s) {
				d.errorf(v, `github.identity %q is not a GitHub login (e.g. "my-app[bot]")`, s)
				return
			}
			g.Identity = s
		}},
		{"allow_pull_request_target_forks", func(_, v *yaml.Node) {
			if b, ok := d.boolean(v, "github.allow_pull_request_target_forks"); ok {
				g.AllowPullRequestTargetForks = b
			}
		}},
	})
}

func (d *decoder) apply(n *yaml.Node, a *Apply) {
	d.section(n, "apply", []field{
		{"freeze", func(_, v *yaml.Node) {
			if b, ok := d.boolean(v, "apply.freeze"); ok {
				a.Freeze = b
			}
		}},
		{"allow_modes", func(_, v *yaml.Node) {
			vals, nodes, ok := d.list(v, "apply.allow_modes")
			if !ok {
				return
			}
			for i, s := range vals {
				switch s {
				case AllowDestroy, AllowRefreshOnly, AllowTargeted:
					if !slices.Contains(a.AllowModes, s) {
						a.AllowModes = append(a.AllowModes, s)
					}
				default:
					d.errorf(nodes[i], "apply.allow_modes %q is not a kind of plan; valid are %s, %s and %s", s, AllowDestroy, AllowRefreshOnly, AllowTargeted)
				}
			}
		}},
		{"verify", func(_, v *yaml.Node) {
			s, ok := d.str(v, "apply.verify")
			if !ok {
				return
			}
			if s != VerifyPlanFile && s != VerifyReplan {
				d.errorf(v, "apply.verify %q: want %s (the default: the plan file is checked against the merged code) or %s (the merge is also planned again and must plan the same changes)", s, VerifyPlanFile, VerifyReplan)
				return
			}
			a.Verify = s
		}},
		{"read_guard", func(_, v *yaml.Node) {
			s, ok := d.str(v, "apply.read_guard")
			if !ok {
				return
			}
			if s != ReadGuardAuto && s != ReadGuardRequired {
				d.errorf(v, "apply.read_guard %q: want %s (the default: terraform runs under the read guard where the kernel has it) or %s (apply refuses to run terraform without it)", s, ReadGuardAuto, ReadGuardRequired)
				return
			}
			a.ReadGuard = s
		}},
	})
}

func (d *decoder) drift(n *yaml.Node, dr *Drift) {
	d.section(n, "drift", []field{
		{"labels", func(_, v *yaml.Node) {
			vals, nodes, ok := d.list(v, "drift.labels")
			if !ok {
				return
			}
			dr.Labels = []string{}
			for i, s := range vals {
				// GitHub refuses longer label names (422): say so here, not at 3 a.m.
				if n := utf8.RuneCountInString(s); n > MaxLabelChars {
					d.errorf(nodes[i], "drift.labels %q is %d characters long; GitHub allows at most %d in a label name", s, n, MaxLabelChars)
					continue
				}
				dr.Labels = append(dr.Labels, s)
			}
		}},
	})
}

// approval decodes an approval mapping; prefix is the project label ("" at top level).
func (d *decoder) approval(n *yaml.Node, prefix, where string) rawApproval {
	a := rawApproval{destroyName: prefix + where + ".destroy_min_approvals"}
	in := where
	if prefix != "" {
		in = strings.TrimSuffix(prefix, ": ") + " " + where
	}
	d.section(n, in, []field{
		{"min_approvals", func(_, v *yaml.Node) {
			if i, ok := d.count(v, prefix+where+".min_approvals"); ok {
				a.min = &i
			}
		}},
		{"destroy_min_approvals", func(_, v *yaml.Node) {
			if i, ok := d.count(v, a.destroyName); ok {
				a.destroy, a.destroyNode = &i, v
			}
		}},
		{"teams", func(_, v *yaml.Node) { a.owners.teams = d.teams(v, prefix+where+".teams") }},
		{"codeowners", func(_, v *yaml.Node) { a.owners.codeowners = d.codeowners(v, prefix+where+".codeowners") }},
	})
	return a
}

// resolveApproval fills unset fields. At the top level min_approvals defaults to 1 and
// destroy_min_approvals to min_approvals. A project inherits unset fields from the top
// level, and its destroy_min_approvals never silently drops below the top level's, so
// raising min_approvals for a project cannot lower the bar for destroys.
func (d *decoder) resolveApproval(a rawApproval, parent Approval, top bool) Approval {
	out := parent
	if top {
		out = Approval{MinApprovals: 1}
	}
	if a.min != nil {
		out.MinApprovals = *a.min
	}
	switch {
	case a.destroy != nil:
		out.DestroyMinApprovals = *a.destroy
		if out.DestroyMinApprovals < out.MinApprovals {
			d.errorf(a.destroyNode, "%s (%d) must be at least min_approvals (%d); a destroy needs at least as many approvals as any change",
				a.destroyName, out.DestroyMinApprovals, out.MinApprovals)
		}
	case top:
		out.DestroyMinApprovals = out.MinApprovals
	default:
		out.DestroyMinApprovals = max(parent.DestroyMinApprovals, out.MinApprovals)
	}
	a.owners.resolve(&out)
	return out
}

// label names a project in messages: by name, else dir, else position.
func label(name, dir string, index int) string {
	switch {
	case name != "":
		return fmt.Sprintf("project %q", name)
	case dir != "":
		return fmt.Sprintf("project %q", dir)
	}
	return fmt.Sprintf("project #%d", index+1)
}

// misspelt reports whether a key of mapping n is a typo of key, which is already reported
// as an unknown key with a suggestion; reporting key as missing too would be noise.
func misspelt(n *yaml.Node, key string) bool {
	for i := 0; i < len(n.Content); i += 2 {
		if k := n.Content[i]; k.Value != key && suggest(k.Value, []string{key}) == key {
			return true
		}
	}
	return false
}
