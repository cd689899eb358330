package gate

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tfgate/tfgate/internal/english"
	"github.com/tfgate/tfgate/internal/report"
)

// State is where the verdict leaves the pull request: allowed when every project may
// apply, pending when every reason left is one that more reviews can lift, else blocked.
func (v Verdict) State() report.GateState {
	if v.Allowed {
		return report.GateAllowed
	}
	for _, p := range v.Projects {
		for _, r := range p.Reasons {
			if !r.Pending {
				return report.GateBlocked
			}
		}
	}
	return report.GatePending
}

// Description is the verdict in one line of at most max characters (the commit status's
// limit): the outcome when allowed, else the first blocking reason (the first reason when
// all are pending), named by project unless every project has it, and how many more there are.
func (v Verdict) Description(max int) string {
	if v.Allowed {
		return truncate(max, v.allowedText())
	}
	var head *Reason
	var where string
	named := false // a review-only item is always named: its name says what needs the review
	for _, pending := range []bool{false, true} {
		for _, p := range v.Projects {
			for i, r := range p.Reasons {
				if r.Pending == pending && head == nil {
					head, where, named = &p.Reasons[i], p.Name, p.ReviewOnly
				}
			}
		}
	}
	if head == nil { // not allowed without a reason: cannot happen, but never say success
		return "refused"
	}
	text := head.Text
	if (named || !v.everyProjectHas(*head)) && where != "" {
		text = where + ": " + text
	}
	if more := v.distinctReasons() - 1; more > 0 {
		suffix := " (+" + strconv.Itoa(more) + " more)"
		return truncate(max, text, suffix)
	}
	return truncate(max, text)
}

func (v Verdict) allowedText() string {
	if len(v.Projects) == 0 {
		return "no project to apply"
	}
	n := len(v.Projects[0].Approvers)
	text := english.Plural(n, "approval", "approvals") + " on " + short(v.HeadSHA)
	var owners []string
	seen := map[string]bool{}
	for _, p := range v.Projects {
		for _, o := range p.PolicyOverriddenBy {
			if !seen[o] {
				seen[o] = true
				owners = append(owners, "@"+o)
			}
		}
	}
	text += v.policyWhys()
	if len(owners) > 0 {
		return text + "; policy deny overridden by " + strings.Join(owners, ", ")
	}
	return text + "; policies pass"
}

func (v Verdict) everyProjectHas(r Reason) bool {
	for _, p := range v.Projects {
		found := false
		for _, q := range p.Reasons {
			if q == r {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// distinctReasons counts the reasons across projects, one shared by several projects once.
func (v Verdict) distinctReasons() int {
	seen := map[Reason]bool{}
	for _, p := range v.Projects {
		for _, r := range p.Reasons {
			seen[r] = true
		}
	}
	return len(seen)
}

// truncate fits text and then suffix into max characters, shortening text with "…" when
// needed; suffix is kept whole.
func truncate(max int, text string, suffix ...string) string {
	s := strings.Join(suffix, "")
	room := max - utf8.RuneCountInString(s)
	return english.Clip(text, room) + s
}
