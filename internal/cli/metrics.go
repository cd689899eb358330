package cli

import (
	"bytes"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/tfgate/tfgate/internal/fileio"
	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/metrics"
	"github.com/tfgate/tfgate/internal/report"
)

// metricsOptions are the --metrics flags of plan, apply and drift.
type metricsOptions struct {
	File   string
	Format string
}

func addMetricsFlags(cmd *cobra.Command, o *metricsOptions) {
	f := cmd.Flags()
	f.StringVar(&o.File, "metrics", "", "write the run's numbers (per project and phase durations, outcomes, resources changed, policy verdicts, GitHub API calls) to `file`, also when the run fails")
	f.StringVar(&o.Format, "metrics-format", "json", "format of --metrics: json, or openmetrics (for the node-exporter textfile collector or the Pushgateway)")
	completeValues(cmd, "metrics-format", metricsFormats)
}

// metricsFormats are the values of --metrics-format.
var metricsFormats = []string{"json", "openmetrics"}

// collector gathers one command's numbers while it runs: the phases (through the Progress
// it wraps), the run, the GitHub client. finish writes them, whatever the outcome.
type collector struct {
	opts    metricsOptions
	kind    report.Kind
	started time.Time
	rec     *metrics.Recorder
	run     report.Run
	api     interface{ Stats() github.Stats }
}

func newCollector(opts metricsOptions, kind report.Kind) *collector {
	return &collector{opts: opts, kind: kind, started: time.Now(), run: report.Run{Kind: kind}}
}

// check refuses an unknown --metrics-format before anything runs.
func (c *collector) check() error {
	return oneOf("--metrics-format", c.opts.Format, metricsFormats...)
}

// watch times the phases reported to next (the terminal's progress).
func (c *collector) watch(next metrics.Progress) *metrics.Recorder {
	c.rec = metrics.NewRecorder(next, nil)
	return c.rec
}

// phases are the phases recorded so far (GitHubRun.Timings, for the job summary).
func (c *collector) phases() map[string][]report.Phase {
	if c.rec == nil {
		return nil
	}
	return c.rec.Phases()
}

// useGitHub counts the calls of the run's GitHub client (nil: none).
func (c *collector) useGitHub(api github.API) {
	if s, ok := api.(interface{ Stats() github.Stats }); ok {
		c.api = s
	}
}

// finish writes --metrics once the command is over, err being what it returns, and returns
// err — or the write's error when err is nil. A failed write does not hide the run's own
// error: it is a warning then.
func (c *collector) finish(a *app, err error) error {
	if c.opts.File == "" || c.check() != nil {
		return err
	}
	var stats github.Stats
	if c.api != nil {
		stats = c.api.Stats()
	}
	run := c.run
	if run.Kind == "" {
		run.Kind = c.kind
	}
	m := metrics.FromRun(run, c.phases(), stats).Timed(c.started, time.Now())
	m.Version, m.ExitCode = version(), exitCode(err)
	var buf bytes.Buffer
	write := metrics.WriteJSON
	if c.opts.Format == "openmetrics" {
		write = metrics.WriteOpenMetrics
	}
	werr := write(&buf, m)
	if werr == nil {
		werr = fileio.WriteAtomic(c.opts.File, buf.Bytes(), 0o644)
	}
	switch {
	case werr == nil:
		return err
	case err == nil:
		return fmt.Errorf("--metrics: %w", werr)
	}
	a.warn("--metrics: " + werr.Error())
	return err
}
