package ci

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// dispatch reads the inputs of a workflow_dispatch that re-plans a pull request: pr (its
// number) and base (the default branch's commit to plan it on), both optional. GitHub
// sends inputs as strings (a number input too); a JSON number is taken as well.
func (ev *Event) dispatch(p payload) error {
	if raw, ok := p.Inputs["pr"]; ok {
		s := input(raw)
		if s != "" {
			n, err := strconv.Atoi(strings.TrimPrefix(s, "#"))
			if err != nil || n <= 0 {
				return fmt.Errorf("inputs.pr %q is not a pull request number", s)
			}
			ev.PRNumber = n
		}
	}
	if raw, ok := p.Inputs["base"]; ok {
		if s := input(raw); s != "" {
			if !isSHA(s) {
				return fmt.Errorf("inputs.base %q is not a commit SHA", s)
			}
			ev.DispatchBase = s
		}
	}
	return nil
}

func input(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return strings.TrimSpace(s)
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	return strings.TrimSpace(string(raw))
}

// LabelList is Labels as a list.
func (ev Event) LabelList() []string {
	var out []string
	for _, l := range strings.Split(ev.Labels, "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

// ForPullRequest reports whether a run's event is about one pull request: its own events
// (IsPullRequest), or a workflow_dispatch re-planning it once resolved to that pull request
// (its number, head and base filled in).
func (ev Event) ForPullRequest() bool {
	return IsPullRequest(ev.Name) || ev.Name == "workflow_dispatch" && ev.PRNumber > 0 && ev.HeadSHA != "" && ev.BaseSHA != ""
}
