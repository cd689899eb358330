package doctor

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tfgate/tfgate/internal/codeowners"
	"github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/github"
)

// checkTeams checks that the token reads every owner team the gate may need (approval.teams,
// policies.owners, and with approval.codeowners the teams of CODEOWNERS in the checkout):
// GET /orgs/{org}/teams/{team_slug}. A team the gate cannot read is an approval no one can
// give. ok is false when no team is named: there is nothing to check.
func checkTeams(ctx context.Context, o Options, cfg *config.Config) (f Finding, ok bool) {
	if cfg == nil {
		return f, false
	}
	teams := ownerTeams(o.Root, cfg)
	if len(teams) == 0 {
		return f, false
	}
	f = Finding{Check: "owner teams", Essential: true}
	if o.GitHub == nil {
		f.Status, f.Message, f.Fix = Unknown, "could not check the owner teams ("+strings.Join(teams, ", ")+"): "+o.NoGitHub, o.noGitHubFix()
		return f, true
	}
	var unreadable, failed []string
	for _, t := range teams {
		org, slug, _ := strings.Cut(t, "/")
		cctx, cancel := o.call(ctx)
		err := o.GitHub.Team(cctx, org, slug)
		cancel()
		switch {
		case errors.Is(err, github.ErrTeamUnreadable):
			unreadable = append(unreadable, t)
		case err != nil:
			failed = append(failed, t+" ("+err.Error()+")")
		}
	}
	switch {
	case len(unreadable) > 0:
		f.Status, f.Message = Fail, "the token cannot read the owner teams "+strings.Join(unreadable, ", ")+
			" (GitHub answers 403 or 404): the gate cannot tell their members, and refuses what needs them"
		f.Fix = "run tfgate gate and apply with a GitHub App token granted the organization permission members: read " +
			"(GITHUB_TOKEN cannot be given it), check the teams exist, or name owners by login (docs/owners.md)"
	case len(failed) > 0:
		f.Status, f.Message, f.Fix = Unknown, "could not check the owner teams: "+strings.Join(failed, "; "), "run `tfgate doctor` again"
	default:
		f.Status, f.Message = OK, "the token reads the owner teams "+strings.Join(teams, ", ")+
			" (the workflows' token must too: GITHUB_TOKEN cannot; a GitHub App token with members: read can)"
	}
	return f, true
}

// ownerTeams are the "org/team" owners of cfg, and of the checkout's CODEOWNERS when any
// rules ask for it, sorted.
func ownerTeams(root string, cfg *config.Config) []string {
	teams := cfg.NamedTeams()
	codeOwnersOn := cfg.Approval.CodeOwners || slices.ContainsFunc(cfg.Projects, func(p config.Project) bool {
		return p.Approval != nil && p.Approval.CodeOwners
	})
	if codeOwnersOn {
		for _, loc := range codeowners.Locations {
			data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(loc)))
			if err != nil {
				continue
			}
			for _, r := range codeowners.Parse(string(data)).Rules {
				for _, o := range r.Owners {
					if codeowners.IsTeam(o) {
						teams = append(teams, o)
					}
				}
			}
			break
		}
	}
	slices.Sort(teams)
	return slices.Compact(teams)
}
