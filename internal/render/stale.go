package render

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/tfgate/tfgate/internal/git"
	"github.com/tfgate/tfgate/internal/report"
)

// Stale says why an open pull request's plan went stale: the default branch changed
// projects (or shared files) it plans since it was planned.
type Stale struct {
	Branch   string   // the default branch, e.g. main
	Projects []string // the projects the default branch changed that the pull request plans
	Shared   []string // shared files it changed (inputs of every project)
	Merge    int      // the pull request whose merge changed them; 0 = a direct push
	// Earlier are the pull requests merged before it, oldest first, whose runs told no one
	// (a cancelled run): notify-stale told for them too.
	Earlier []int
	Commit  string // the default branch's commit
	// Replanning: tfgate started the plan workflow again for the pull request.
	Replanning bool
}

// what is "envs/prod/app, net" or "shared files (scripts/x.sh)", in plain text.
func (s Stale) what() string {
	var parts []string
	parts = append(parts, s.Projects...)
	if len(s.Shared) > 0 {
		parts = append(parts, "shared "+strings.Join(s.Shared, ", "))
	}
	return strings.Join(parts, ", ")
}

func (s Stale) by() string {
	last := git.ShortSHA(s.Commit)
	if s.Merge > 0 {
		last = fmt.Sprintf("#%d", s.Merge)
	}
	if len(s.Earlier) > 2 { // within the status's 140 characters
		return fmt.Sprintf("#%d … %s, %d merges", s.Earlier[0], last, len(s.Earlier)+1)
	}
	return s.earlier() + last
}

// earlier is "#5, #6, " for the earlier merges, or "".
func (s Stale) earlier() string {
	var b strings.Builder
	for _, n := range s.Earlier {
		fmt.Fprintf(&b, "#%d, ", n)
	}
	return b.String()
}

// StaleStatus is the tfgate/gate description of a stale plan, within GitHub's 140
// characters: `stale: main changed envs/prod/app (#7) — re-plan`.
func StaleStatus(s Stale) string {
	tail := " (" + s.by() + ") — re-plan"
	if s.Replanning {
		tail = " (" + s.by() + ") — re-planning"
	}
	head := "stale: " + s.Branch + " changed "
	what := s.what()
	if room := 140 - utf8.RuneCountInString(head+tail); utf8.RuneCountInString(what) > room {
		r := []rune(what)
		what = string(r[:max(room-1, 0)]) + "…"
	}
	return head + what + tail
}

// Markers around the stale banner at the top of the sticky plan comment.
const (
	StaleBannerOpen  = "<!-- tfgate:stale -->"
	StaleBannerClose = "<!-- /tfgate:stale -->"
)

// StaleBanner is the block tfgate puts at the top of a stale plan's comment.
func StaleBanner(s Stale) string {
	next := "Plan it again (push a commit, or re-run the plan workflow) before merging: apply would refuse this plan."
	if s.Replanning {
		next = "tfgate started the plan workflow again for this pull request; the comment below is replaced when it is done. Do not merge before."
	}
	return strings.Join([]string{
		StaleBannerOpen,
		"> [!WARNING]",
		fmt.Sprintf("> **This plan is stale.** %s changed %s on `%s` (commit `%s`) since it was planned.",
			s.mdBy(), s.mdWhat(), codeSpanText(s.Branch), git.ShortSHA(s.Commit)),
		"> " + next,
		StaleBannerClose,
	}, "\n")
}

// StaleGateLine is the gate line of a stale plan (see SetGateLine).
func StaleGateLine(s Stale) string {
	next := "re-plan"
	if s.Replanning {
		next = "re-planning…"
	}
	return fmt.Sprintf("**Gate:** %s stale — %s changed %s on `%s`: %s", stateIcon(report.GatePending), s.mdBy(), s.mdWhat(), codeSpanText(s.Branch), next)
}

// mdBy is "#7" (GitHub links it) or "a push", after the earlier merges ("#5, #6, #7").
func (s Stale) mdBy() string {
	if s.Merge > 0 {
		return s.earlier() + fmt.Sprintf("#%d", s.Merge)
	}
	return s.earlier() + "a push"
}

func (s Stale) mdWhat() string {
	var names []string
	for _, p := range s.Projects {
		names = append(names, "`"+codeSpanText(p)+"`")
	}
	for _, f := range s.Shared {
		names = append(names, "shared file `"+codeSpanText(f)+"`")
	}
	return strings.Join(names, ", ")
}

// SetStaleBanner returns body (a sticky comment: its marker line first) with banner
// right below the marker line, replacing a banner already there.
func SetStaleBanner(body, banner string) string {
	first, rest, _ := strings.Cut(body, "\n")
	if strings.HasPrefix(rest, StaleBannerOpen+"\n") {
		if i := strings.Index(rest, "\n"+StaleBannerClose+"\n"); i >= 0 {
			rest = strings.TrimLeft(rest[i+len(StaleBannerClose)+2:], "\n")
		}
	}
	return first + "\n" + banner + "\n\n" + rest
}

// codeSpanText keeps a name inside a code span: backticks and newlines cannot end it.
func codeSpanText(s string) string {
	s = strings.NewReplacer("`", "'", "\n", " ", "\r", " ").Replace(clean(s))
	return s
}
