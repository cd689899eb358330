package cli

import "runtime/debug"

// evalGCPercent is the collector's GOGC while `tfgate policy eval` decodes and judges a
// plan. A one-shot command that builds a large plan's tree once and then only reads it
// gains little from collecting often: at 200, a plan of 10,000 changes takes a tenth less
// CPU and its peak memory stays within the spread of the default's (make bench-compare,
// case policy). A GOGC the user sets wins.
const evalGCPercent = 200

// oneShotGC sets evalGCPercent unless the environment sets GOGC, and returns what restores
// the previous setting.
func (a *app) oneShotGC() (restore func()) {
	if a.getenv("GOGC") != "" {
		return func() {}
	}
	old := debug.SetGCPercent(evalGCPercent)
	return func() { debug.SetGCPercent(old) }
}
