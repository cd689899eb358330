package cli

import "runtime/debug"

// evalGCPercent is the collector's GOGC while `tfgate policy eval` decodes and judges a
// plan. A one-shot command that builds the policies' part of a large plan once and then
// only reads it gains little from collecting often, and the plan's text is mapped, not in
// the heap (openInput). Measured on a plan of 10,000 changes judged by three policies of
// the library (make bench-compare, case policy): at 200, CPU 0.64 s and peak 80 MB; at
// 100 (Go's default), 0.72 s and 79 MB. A GOGC the user sets wins.
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
