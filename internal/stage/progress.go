package stage

import (
	"sync"
	"time"

	"github.com/tfgate/tfgate/internal/terraform"
)

// detailEvery is how often a project's progress detail may change: terraform reports
// thousands of resources a second on a large plan, and a terminal needs a few updates a
// second at most.
const detailEvery = 250 * time.Millisecond

// detailer passes terraform's counts on as a project's progress detail, throttled: a
// count at most every detailEvery, but at once when the kind of news changes (the walk
// ended and the changes arrive, the summary is in), so that the last word is never lost.
// Terraform's UI is read on one goroutine; the mutex is for the race detector's peace of
// mind and costs nothing.
type detailer struct {
	mu       sync.Mutex
	now      func() time.Time
	emit     func(string)
	format   func(terraform.Progress) (text, kind string)
	last     time.Time
	lastKind string
	lastText string
}

// NewDetailer reports terraform's progress through emit, formatted by format, at most every
// detailEvery (see detailer).
func NewDetailer(now func() time.Time, emit func(string), format func(terraform.Progress) (string, string)) *detailer {
	return &detailer{now: now, emit: emit, format: format}
}

// Update is a terraform.PlanOptions.Progress.
func (d *detailer) Update(p terraform.Progress) {
	text, kind := d.format(p)
	d.mu.Lock()
	defer d.mu.Unlock()
	if text == "" || text == d.lastText {
		return
	}
	now := d.now()
	if kind == d.lastKind && now.Sub(d.last) < detailEvery {
		return
	}
	d.last, d.lastKind, d.lastText = now, kind, text
	d.emit(text)
}
