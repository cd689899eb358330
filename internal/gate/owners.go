package gate

import (
	"slices"
	"strings"

	"github.com/tfgate/tfgate/internal/english"
)

// Owners per path (docs/owners.md): approvals that must come from particular people —
// a member of each team of approval.teams, and each changed file's owners in the base
// commit's CODEOWNERS (approval.codeowners).

// Reason codes of owner needs.
const (
	CodeOwners        = "owners"         // an owner's approval is missing
	CodeOwnersInvalid = "owners-invalid" // an owner need nobody can meet (CODEOWNERS that cannot be read or matched)
)

// OwnerNeed is one approval a project needs from an owner: a counting approver (the same
// approvals that count toward min_approvals) who is one of AnyOf — the user, or an active
// member of the team. The pull request's author never meets it: their approval does not
// count.
type OwnerNeed struct {
	AnyOf []string // logins or "org/team" slugs, without "@"
	For   string   // what asks for it, for people: "approval.teams", "CODEOWNERS line 3 (envs/prod/main.tf)"
	// Problem says why no approval can meet the need ("" when one of AnyOf can): the
	// gate refuses until the rules are fixed.
	Problem string
}

// NeedOwner is a need met by the approval of any one of anyOf (logins or "org/team",
// a leading "@" is dropped), asked for by what forWhat says.
func NeedOwner(forWhat string, anyOf ...string) OwnerNeed {
	n := OwnerNeed{For: forWhat}
	for _, o := range anyOf {
		n.AnyOf = append(n.AnyOf, strings.TrimPrefix(o, "@"))
	}
	return n
}

// Unmeetable is a need no approval can meet, and why: fail closed on owners that cannot
// be told.
func Unmeetable(forWhat, problem string) OwnerNeed {
	return OwnerNeed{For: forWhat, Problem: problem}
}

// NoCodeOwners is the need of approval.codeowners when the base commit (source says
// which) has no CODEOWNERS: fail closed.
func NoCodeOwners(source string) OwnerNeed {
	return Unmeetable("approval.codeowners", "the "+source+" has no CODEOWNERS (in .github/, the root or docs/)")
}

// InvalidCodeOwnersLine is the need a line GitHub reports as invalid makes (source: the
// file; problem: the line and what is wrong): GitHub skips it, so whose files it names
// cannot be told.
func InvalidCodeOwnersLine(source, problem string) OwnerNeed {
	return Unmeetable(source, problem+" (GitHub skips such a line; tfgate cannot tell whose files it names)")
}

// EmailOwners is the need of a CODEOWNERS rule whose owners are only e-mail addresses:
// GitHub maps them to accounts by verified e-mail, which its REST API does not tell.
func EmailOwners(forWhat string, emails []string) OwnerNeed {
	return Unmeetable(forWhat, "its owners are e-mail addresses only ("+strings.Join(emails, ", ")+
		"), which tfgate cannot match to GitHub logins; name them as @user or @org/team")
}

// ownerNeeds are p's needs: one per team of its rules, one per owner its approval
// policies require, then its own (CODEOWNERS).
func ownerNeeds(p Project) []OwnerNeed {
	var out []OwnerNeed
	for _, t := range p.Rules.Teams {
		out = append(out, NeedOwner("approval.teams", t))
	}
	if a := p.Approval; a != nil {
		for _, t := range a.Teams {
			out = append(out, NeedOwner("approval policy", t))
		}
	}
	return append(out, p.OwnerNeeds...)
}

// ownerReasons are the reasons p's owner needs are not met by the counted approvers:
// each need once (needs of the same owners are merged), pending, with the teams whose
// membership could not be read (blocked). missing reports whether a need is unmet.
func ownerReasons(p Project, rv reviews, teams map[string]Team) (reasons []Reason, missing bool) {
	type unmet struct {
		need OwnerNeed
		fors []string
	}
	var open []*unmet
	for _, n := range ownerNeeds(p) {
		if n.Problem == "" && metBy(n, rv, teams) {
			continue
		}
		missing = true
		key := func(u *unmet) bool {
			return u.need.Problem == n.Problem && slices.EqualFunc(u.need.AnyOf, n.AnyOf, strings.EqualFold)
		}
		if i := slices.IndexFunc(open, key); i >= 0 {
			if !slices.Contains(open[i].fors, n.For) {
				open[i].fors = append(open[i].fors, n.For)
			}
			continue
		}
		open = append(open, &unmet{need: n, fors: []string{n.For}})
	}
	var unreadable []string
	for _, u := range open {
		what := english.ClipList(u.fors, 3)
		if u.need.Problem != "" {
			reasons = append(reasons, Reason{CodeOwnersInvalid, what + ": " + u.need.Problem + "; no approval can meet it until it is fixed on the default branch", false})
			continue
		}
		reasons = append(reasons, Reason{CodeOwners, "needs " + needList(u.need.AnyOf) + " (" + what + ")", true})
		for _, t := range unreadableTeams(u.need.AnyOf, teams) {
			if !slices.Contains(unreadable, t) {
				unreadable = append(unreadable, t)
			}
		}
	}
	for _, t := range unreadable {
		reasons = append(reasons, teamUnreadable(t))
	}
	return reasons, missing
}

// metBy reports whether a counted approver is one of n's owners.
func metBy(n OwnerNeed, rv reviews, teams map[string]Team) bool {
	for _, a := range rv.approvers {
		for _, o := range n.AnyOf {
			if isOwner(o, a.key, teams) {
				return true
			}
		}
	}
	return false
}

// needList names the owners of a need: "@acme/platform", "one of @alice, @acme/sec".
func needList(anyOf []string) string {
	if len(anyOf) == 1 {
		return "@" + anyOf[0]
	}
	return "one of @" + strings.Join(anyOf, ", @")
}

// teamUnreadable is the reason a team's membership could not be read.
func teamUnreadable(team string) Reason {
	return Reason{CodeTeamUnreadable, "the token cannot read team membership of " + team +
		": give it the organization permission members: read, or list owners by login", false}
}

// addOwnerReasons adds p's unmet owner needs to reasons, each reason once.
func addOwnerReasons(reasons *[]Reason, p Project, rv reviews, teams map[string]Team) (missing bool) {
	rs, missing := ownerReasons(p, rv, teams)
	for _, r := range rs {
		if !slices.Contains(*reasons, r) {
			*reasons = append(*reasons, r)
		}
	}
	return missing
}
