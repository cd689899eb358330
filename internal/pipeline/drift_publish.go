package pipeline

import (
	"context"

	"github.com/tfgate/tfgate/internal/notify"
	"github.com/tfgate/tfgate/internal/report"
)

// DriftPublish is where a drift run is reported beyond stdout (notify.Drift).
type DriftPublish = notify.Drift

// PublishDrift reports a finished drift run: its issues, job summary and webhook
// (notify.PublishDrift).
func PublishDrift(ctx context.Context, p DriftPublish, run report.Run) (report.Run, error) {
	return notify.PublishDrift(ctx, p, run)
}
