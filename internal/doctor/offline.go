package doctor

import (
	"errors"
	"net"
)

// The GitHub checks: the findings Run makes on GitHub, in order.
var githubChecks = []string{"required check", "plan key", "merge queue"}

// skippedGitHub are the GitHub checks not made, because doctor runs the local checks only
// (why: "--offline", or no token outside GitHub Actions): they hold, and say how to make them.
func skippedGitHub(why string) []Finding {
	out := make([]Finding, len(githubChecks))
	for i, c := range githubChecks {
		out[i] = Finding{Check: c, Essential: c == "required check", Status: Skipped,
			Message: "not checked: local checks only (" + why + ")",
			Fix:     "run doctor with a token (GITHUB_TOKEN or GH_TOKEN, e.g. GH_TOKEN=$(gh auth token) tfgate doctor) to check it on GitHub"}
	}
	return out
}

// networkError is the error the network gave (a name that does not resolve, a connection
// refused or cut), or nil when err is another kind: GitHub's own answer, a timeout.
func networkError(err error) error {
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return dns
	}
	var op *net.OpError
	if errors.As(err, &op) && !op.Timeout() {
		return op
	}
	return nil
}

// unreachableGitHub are the GitHub checks when the first call could not reach GitHub: the
// network error said once, on the essential check; the others not made.
func unreachableGitHub(netErr error) []Finding {
	out := []Finding{{Check: githubChecks[0], Essential: true, Status: Unknown,
		Message: "could not check that " + GateContext + " is a required status check: GitHub is unreachable, a network error: " + netErr.Error(),
		Fix:     "check the network (and GITHUB_API_URL, when set), then run `tfgate doctor` again; `tfgate doctor --offline` makes the local checks only"}}
	for _, c := range githubChecks[1:] {
		out = append(out, Finding{Check: c, Status: Unknown, Message: "not checked: GitHub is unreachable (see required check)"})
	}
	return out
}
