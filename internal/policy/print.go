package policy

import (
	"fmt"
	"io"
	"sync"

	"github.com/open-policy-agent/opa/v1/topdown/print"
	"github.com/tfgate/tfgate/internal/secret"
)

// maxBufferedPrints bounds the print() output one evaluation holds back
// (see evalPrints); past it, lines go straight to the writer.
const maxBufferedPrints = 1 << 20

// printer serialises print() output from concurrent evaluations.
type printer struct {
	mu sync.Mutex
	w  io.Writer
}

func (p *printer) write(b []byte) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	_, err := p.w.Write(b)
	return err
}

// evalPrints is the print hook of one evaluation. It is created per
// evaluation so each line is masked with the evaluated project's own Masker,
// whatever other projects evaluate at the same time.
//
// Lines are held back until the evaluation ends: when a rule fails, the
// engine evaluates again rule by rule, and only that second pass's lines are
// written, so each print() shows once. A project's lines are also written
// together rather than interleaved with other projects'. Output beyond
// maxBufferedPrints is written as it comes; if the second pass then runs, its
// lines are dropped, since it would repeat what was written.
type evalPrints struct {
	p       *printer
	project string
	mask    *secret.Masker

	mu       sync.Mutex
	buf      []byte
	streamed bool // some lines of the current pass reached the writer
	muted    bool
}

func (e *Engine) newPrints(p Project) *evalPrints {
	if e.printer == nil {
		return nil
	}
	return &evalPrints{p: e.printer, project: p.Name, mask: p.Masker}
}

// Print implements print.Hook: "project: file:line: message".
func (h *evalPrints) Print(pc print.Context, msg string) error {
	loc := ""
	if pc.Location != nil {
		loc = fmt.Sprintf("%s:%d: ", pc.Location.File, pc.Location.Row)
	}
	prefix := ""
	if h.project != "" {
		prefix = h.project + ": "
	}
	line := prefix + loc + h.mask.String(msg) + "\n"

	h.mu.Lock()
	defer h.mu.Unlock()
	if h.muted {
		return nil
	}
	h.buf = append(h.buf, line...)
	if !h.streamed && len(h.buf) <= maxBufferedPrints {
		return nil
	}
	h.streamed = true
	return h.flushLocked()
}

// retry drops the lines of a pass whose work is about to be repeated.
func (h *evalPrints) retry() {
	if h == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.buf = nil
	h.muted = h.streamed
}

// flush writes the lines held back.
func (h *evalPrints) flush() error {
	if h == nil {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.flushLocked()
}

func (h *evalPrints) flushLocked() error {
	if len(h.buf) == 0 {
		return nil
	}
	err := h.p.write(h.buf)
	h.buf = h.buf[:0]
	if err != nil {
		return fmt.Errorf("write print() output: %w", err)
	}
	return nil
}
