package notify

import (
	"io"
	"time"

	"github.com/tfgate/tfgate/internal/ci"
	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/report"
)

// The commit status contexts tfgate sets, for branch protection to require.
const (
	StatusPlan  = "tfgate/plan"
	StatusGate  = "tfgate/gate"
	StatusApply = "tfgate/apply"
	// StatusStale on a default branch commit records that notify-stale told every pull
	// request the changes up to it made stale (pipeline/stale_record.go).
	StatusStale = "tfgate/stale"
)

// GitHub is the GitHub Actions context of a run: where it reports. In Actions the job
// summary, step outputs and annotations are always written (they are files and log lines);
// the comment and statuses only when API is set (--publish).
type GitHub struct {
	Env   ci.GitHub
	Event ci.Event
	API   github.API // nil: nothing goes through GitHub's API
	// Identity is the login tfgate posts as, from the config; "" = learn it (from the status
	// tfgate creates, else GET /user).
	Identity string
	// ArtifactName is the name the plan bundles are uploaded under (a step output).
	ArtifactName string
	Annotate     io.Writer // workflow commands (annotations) go here: the step's log
	// Timings gives the projects' phases once the run is over, for the job summary's timing
	// table (metrics.Recorder.Phases); nil: no table.
	Timings func() map[string][]report.Phase
}

// timings are the phases for the job summary, nil without a source.
func timings(f func() map[string][]report.Phase) map[string][]report.Phase {
	if f == nil {
		return nil
	}
	return f()
}

// publishLimit is TFGATE_PUBLISH_TIMEOUT (validated when the client was made), 0 for the
// default: all of a run's publishing is bounded (github.StartPublish).
func publishLimit(env ci.GitHub) time.Duration {
	_, d, _ := env.Timeouts()
	return d
}
