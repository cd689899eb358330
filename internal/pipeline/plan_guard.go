package pipeline

import (
	"context"
	"fmt"

	"github.com/tfgate/tfgate/internal/ci"
	"github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/stage"
)

// PlanGuard refuses what must not be planned at all: under pull_request_target the
// workflow runs with the base repository's secrets, and terraform runs providers and
// external data sources from the checked-out code, so a fork's code is never planned there
// unless the base commit's config allows it.
func PlanGuard(ev ci.Event, base *config.Config) error {
	if ev.Name == "pull_request_target" && ev.Fork && !base.GitHub.AllowPullRequestTargetForks {
		return fmt.Errorf("refusing to plan pull request #%d from the fork %s under pull_request_target: the workflow's secrets would reach code from outside the repository (terraform runs providers and external data sources from it). Plan forks under pull_request (read-only token, no secrets), or set github.allow_pull_request_target_forks: true in the base branch's %s if you trust every fork",
			ev.PRNumber, ev.HeadRepo, config.FileName)
	}
	return nil
}

// guardPlan applies PlanGuard with the config read from the event's base commit: a fork
// must not be able to allow itself.
func guardPlan(ctx context.Context, req PlanRequest) error {
	ev := req.GitHub.Event
	if ev.Name != "pull_request_target" || !ev.Fork {
		return nil
	}
	base := config.Default()
	if ev.BaseSHA != "" {
		_, cfg, _, err := stage.BaseConfig(ctx, req.Root, req.ConfigFile, ev.BaseSHA)
		if err != nil {
			return fmt.Errorf("read the base commit's configuration for the fork rule: %w", err)
		}
		base = cfg
	}
	return PlanGuard(ev, base)
}
