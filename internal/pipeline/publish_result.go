package pipeline

import (
	"errors"
	"os"

	"github.com/tfgate/tfgate/internal/matrixresult"
	"github.com/tfgate/tfgate/internal/report"
	"github.com/tfgate/tfgate/internal/stage"
)

// writeResult leaves the run's result beside the bundles of `plan --out DIR`
// (DIR/tfgate-result.json), for `tfgate publish` to merge with the other matrix jobs'. A
// matrix job (`--changed NAME`) that stopped before planning leaves one too, saying why:
// publish reports its projects failed with the reason rather than only missing; any other
// run that stopped leaves --out as it was. err is the run's; the result is the caller's.
func writeResult(req PlanRequest, run report.Run, err error) error {
	f := matrixresult.File{TfgateVersion: req.TfgateVersion, Asked: req.Names, PR: req.PR}
	if gh := req.GitHub; gh != nil {
		f.Commit = gh.Event.HeadSHA
	}
	if err != nil && run.Projects == nil {
		if !req.Changed || len(req.Names) == 0 {
			return err
		}
		f.Stopped = req.Masker.String(err.Error())
	}
	werr := os.MkdirAll(req.OutDir, 0o700) // a run that stopped early made no bundle directory
	if werr == nil {
		werr = matrixresult.Write(req.OutDir, f, run)
	}
	if werr != nil {
		return errors.Join(err, stage.Optionf("{Out}: the result for tfgate publish: %w", werr))
	}
	return err
}
