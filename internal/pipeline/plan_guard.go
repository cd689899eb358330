package pipeline

import (
	"context"
	"fmt"

	"github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/gate"
	"github.com/tfgate/tfgate/internal/stage"
)

// guardPlan applies gate.GuardPlan with the config read from the event's base commit: a fork
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
	return gate.GuardPlan(gate.PlanEvent{Name: ev.Name, Fork: ev.Fork, PR: ev.PRNumber, HeadRepo: ev.HeadRepo}, base.GitHub.AllowPullRequestTargetForks)
}
