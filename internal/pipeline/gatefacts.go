package pipeline

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/tfgate/tfgate/internal/gate"
	"github.com/tfgate/tfgate/internal/github"
)

// GateAPI is what the approval gate reads from GitHub.
type GateAPI interface {
	ListReviews(ctx context.Context, repo github.Repo, number int) ([]github.Review, error)
	CollaboratorPermission(ctx context.Context, repo github.Repo, login string) (string, error)
	TeamMembership(ctx context.Context, org, team, login string) (bool, error)
}

var _ GateAPI = (*github.Client)(nil)

// CollectFacts reads what gate.Evaluate needs to know about pr's reviewers: every review
// (all pages), the repository permission of each reviewer whose standing review is an
// approval or a change request (once per login; the author's approval never counts and is
// not asked about),
// and for each "org/team" in owners whether those approvers are members. Pass owners only
// when a policy denied a project: nil reads no team.
//
// Team membership is asked only for approvers whose approval can count (on the head
// commit, with write access). A team the token cannot read (github.ErrTeamUnreadable) is
// recorded as Unreadable and asked no more; the gate then refuses with what the token
// lacks. Any other error is returned, and the caller must refuse: the gate never decides on
// facts it could not read.
func CollectFacts(ctx context.Context, api GateAPI, repo github.Repo, pr github.PullRequest, owners []string) ([]gate.Review, gate.Facts, error) {
	facts := gate.Facts{Permissions: map[string]string{}, Teams: map[string]gate.Team{}}
	list, err := api.ListReviews(ctx, repo, pr.Number)
	if err != nil {
		return nil, facts, err
	}
	reviews := make([]gate.Review, 0, len(list))
	for _, r := range list {
		reviews = append(reviews, gate.Review{ID: r.ID, Login: r.User.Login, State: r.State, CommitID: r.CommitID,
			SubmittedAt: r.SubmittedAt})
	}

	author := strings.ToLower(pr.Author.Login)
	standing := gate.Latest(reviews)
	var asked []string // lower-case logins, sorted: the calls are made in a stable order
	for key, r := range standing {
		switch strings.ToUpper(r.State) {
		case gate.Approved:
			if key != author {
				asked = append(asked, key)
			}
		case gate.ChangesRequested: // blocks only with write access, as on GitHub
			asked = append(asked, key)
		}
	}
	slices.Sort(asked)
	var counting []string // approvers whose approval can count
	for _, key := range asked {
		perm, err := api.CollaboratorPermission(ctx, repo, standing[key].Login)
		if err != nil {
			return nil, facts, err
		}
		facts.Permissions[key] = perm
		if strings.ToUpper(standing[key].State) == gate.Approved && gate.CanWrite(perm) &&
			pr.HeadSHA != "" && standing[key].CommitID == pr.HeadSHA {
			counting = append(counting, key)
		}
	}

	for _, owner := range owners {
		owner = strings.TrimPrefix(owner, "@")
		org, team, ok := strings.Cut(owner, "/")
		if !ok {
			continue
		}
		t := gate.Team{Members: map[string]bool{}}
		for _, key := range counting {
			member, err := api.TeamMembership(ctx, org, team, standing[key].Login)
			if errors.Is(err, github.ErrTeamUnreadable) {
				t = gate.Team{Unreadable: err.Error()}
				break
			}
			if err != nil {
				return nil, facts, err
			}
			t.Members[key] = member
		}
		facts.Teams[owner] = t
	}
	return reviews, facts, nil
}
