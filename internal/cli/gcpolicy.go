package cli

import "runtime/debug"

// evalGCPercent is the collector's GOGC while `tfgate policy eval` decodes and judges a
// plan. A one-shot command that builds the policies' part of a large plan once and then
// only reads it gains little from collecting often. Measured on a plan of 10,000 changes
// judged by three policies of the library (make bench-compare, case policy), with the plan
// pruned to what they read: at 150, CPU 0.71 s and peak 127 MB; at 200, 0.74 s and 147 MB;
// at 120, 0.71 s and 131 MB. A GOGC the user sets wins.
const evalGCPercent = 150

// oneShotGC sets evalGCPercent unless the environment sets GOGC, and returns what restores
// the previous setting.
func (a *app) oneShotGC() (restore func()) {
	if a.getenv("GOGC") != "" {
		return func() {}
	}
	old := debug.SetGCPercent(evalGCPercent)
	return func() { debug.SetGCPercent(old) }
}
