package cli

import (
	"runtime/debug"
	"testing"
)

func gcPercent() int {
	p := debug.SetGCPercent(-1)
	debug.SetGCPercent(p)
	return p
}

// TestOneShotGC: policy eval collects at evalGCPercent and restores the setting after; a
// GOGC in the environment wins.
func TestOneShotGC(t *testing.T) {
	before := gcPercent()
	restore := (&app{}).oneShotGC()
	if got := gcPercent(); got != evalGCPercent {
		t.Errorf("GOGC during policy eval %d, want %d", got, evalGCPercent)
	}
	restore()
	if got := gcPercent(); got != before {
		t.Errorf("GOGC after policy eval %d, want %d restored", got, before)
	}
	restore = (&app{environ: []string{"GOGC=50"}}).oneShotGC()
	if got := gcPercent(); got != before {
		t.Errorf("GOGC set by the user: %d during policy eval, want %d untouched", got, before)
	}
	restore()
}
