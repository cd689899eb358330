package notify

import (
	"context"
	"slices"
	"strings"

	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/report"
)

// RetryStatus is an error that stopped a plan run and says, for the tfgate/plan status,
// why and that the run is to be tried again (a merge queue group that gave up waiting for
// its base's apply): the status is failure with these words, not "could not run".
type RetryStatus interface {
	error
	RetryStatus() string
}

// ProjectLabels are the labels a plan run's pull request carries: one per project planned
// (github.ProjectLabel), so that tfgate notify-stale finds the pull requests a merge makes
// stale by label; beyond github.MaxProjectLabels projects the one label
// github.ManyProjectsLabel (related to every change).
func ProjectLabels(run report.Run) []string {
	var out []string
	for _, p := range run.Projects {
		if l := github.ProjectLabel(p.Name); !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	if len(out) > github.MaxProjectLabels {
		return []string{github.ManyProjectsLabel}
	}
	return out
}

// labelProjects makes the pull request's tfgate:<project> labels those of the projects
// just planned: one call to add the missing ones (GitHub creates a label on first use), one
// per label no longer planned; none when they are already right (the event lists them).
func (pub *Plan) labelProjects(ctx context.Context, run report.Run) {
	gh := pub.gh
	if gh.Event.PRNumber <= 0 || !gh.Event.ForPullRequest() {
		return
	}
	want := ProjectLabels(run)
	var have []string
	for _, l := range gh.Event.LabelList() {
		if strings.HasPrefix(l, github.ProjectLabelPrefix) && !strings.EqualFold(l, github.FreshPlanLabel) {
			have = append(have, l)
		}
	}
	var add []string
	for _, l := range want {
		if !slices.ContainsFunc(have, func(h string) bool { return strings.EqualFold(h, l) }) {
			add = append(add, l)
		}
	}
	if len(add) > 0 {
		pub.try("project labels", gh.API.AddLabels(ctx, pub.repo, gh.Event.PRNumber, add))
	}
	for _, h := range have {
		if !slices.ContainsFunc(want, func(l string) bool { return strings.EqualFold(h, l) }) {
			pub.try("project labels", gh.API.RemoveLabel(ctx, pub.repo, gh.Event.PRNumber, h))
		}
	}
}
