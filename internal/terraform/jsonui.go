package terraform

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
)

// Progress is how far a plan or an apply has got, counted from the messages of terraform's
// machine-readable UI (-json) as they arrive.
//
// Terraform never says beforehand how many resources a plan will walk: while it walks, the
// only messages are refresh_start and refresh_complete, one each per resource instance
// already in the state; the plan's changes (planned_change, no-ops left out) and its
// change_summary all come at the end. An apply of a saved plan lists the changes it will
// make (planned_change) before it makes them, so its total is known.
type Progress struct {
	// Refreshing and Refreshed count the instances whose state terraform started and
	// finished reading (refresh_start, refresh_complete).
	Refreshing, Refreshed int
	// Planned counts planned_change messages.
	Planned int
	// Drifted counts resource_drift messages: objects changed outside terraform.
	Drifted int
	// Applying, Applied and Failed count apply_start, apply_complete and apply_errored.
	Applying, Applied, Failed int
	// ToApply is how many apply_complete (or apply_errored) messages the changes listed so
	// far will bring: one each, two for a replace (its create and its delete).
	ToApply int
	// Summary is the change_summary terraform prints at the end; nil before.
	Summary *ChangeSummary
}

// ChangeSummary is terraform's count of a plan's or an apply's changes. Operation is
// "plan", "apply" or "destroy".
type ChangeSummary struct {
	Add       int    `json:"add"`
	Change    int    `json:"change"`
	Import    int    `json:"import"`
	Remove    int    `json:"remove"`
	Operation string `json:"operation"`
}

// uiMessage is one line of the machine-readable UI: the fields tfgate reads
// (internal/command/views/json_view.go and views/json/ in terraform 1.5).
type uiMessage struct {
	Message    string         `json:"@message"`
	Type       string         `json:"type"`
	Diagnostic *Diagnostic    `json:"diagnostic"`
	Change     *uiChange      `json:"change"`
	Changes    *ChangeSummary `json:"changes"`
}

type uiChange struct {
	Action string `json:"action"` // noop, move, create, read, update, replace, delete, import
}

// maxUILine bounds one line of the UI that tfgate holds to decode it. Messages are a few
// hundred bytes; a longer one is, as likely as not, an emergency state dump (the whole state,
// secrets and all, in one "log" message): it is dropped, and only its size is said.
const maxUILine = 1 << 20

// uiStream is the stdout of a terraform command run with -json. It decodes each message as
// it arrives: counts go to onProgress, each message's text to log (a diagnostic rendered as
// terraform's text UI renders it, never the JSON, whose snippets quote var files), and error
// diagnostics are kept for the command's error, as terraform's text UI prints them on
// stderr. A line that is not a message (terraform older than the flag, a crash) is passed on
// as text, to the log and to the error's stderr tail.
type uiStream struct {
	log        io.Writer
	stderr     io.Writer // the command's stderr tail
	onProgress func(Progress)

	mu       sync.Mutex
	partial  []byte
	skipping bool // the rest of an over-long line is being dropped
	progress Progress
	errors   []*Diagnostic
}

func newUIStream(log, stderr io.Writer, onProgress func(Progress)) *uiStream {
	return &uiStream{log: log, stderr: stderr, onProgress: onProgress}
}

func (s *uiStream) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			s.hold(p)
			break
		}
		s.hold(p[:i])
		p = p[i+1:]
		if !s.skipping {
			s.line(s.partial)
		}
		s.partial, s.skipping = s.partial[:0], false
	}
	return n, nil
}

// hold keeps part of a line until its end arrives, up to maxUILine.
func (s *uiStream) hold(p []byte) {
	if s.skipping {
		return
	}
	if len(s.partial)+len(p) > maxUILine {
		s.text([]byte(fmt.Sprintf("(terraform printed a line of more than %d KiB here; not shown: it may hold the state, secrets included)", maxUILine>>10)))
		s.partial, s.skipping = s.partial[:0], true
		return
	}
	s.partial = append(s.partial, p...)
}

// close handles a last line without a newline and adds the error diagnostics, in the order
// terraform's text UI prints them, to stderr. Call it once the command has exited.
func (s *uiStream) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.partial) > 0 && !s.skipping {
		s.line(s.partial)
	}
	s.partial = nil
	sortDiagnostics(s.errors)
	for _, d := range s.errors {
		io.WriteString(s.stderr, d.Text())
	}
	s.errors = nil
}

func (s *uiStream) line(l []byte) {
	l = bytes.TrimRight(l, "\r")
	if len(bytes.TrimSpace(l)) == 0 {
		return
	}
	var m uiMessage
	if l[0] != '{' || json.Unmarshal(l, &m) != nil || m.Type == "" {
		s.text(l)
		return
	}
	if m.Type == "diagnostic" && m.Diagnostic != nil {
		text := m.Diagnostic.Text()
		io.WriteString(s.log, text)
		if m.Diagnostic.Severity != "warning" {
			s.errors = append(s.errors, m.Diagnostic)
		}
		return
	}
	if m.Message != "" {
		io.WriteString(s.log, strings.TrimRight(m.Message, "\n")+"\n")
	}
	if s.count(m) && s.onProgress != nil {
		s.onProgress(s.progress)
	}
}

// count adds m to the progress and reports whether it changed.
func (s *uiStream) count(m uiMessage) bool {
	p := &s.progress
	switch m.Type {
	case "refresh_start":
		p.Refreshing++
	case "refresh_complete":
		p.Refreshed++
	case "planned_change":
		p.Planned++
		if m.Change != nil {
			switch m.Change.Action {
			case "replace":
				p.ToApply += 2
			case "create", "update", "delete", "read":
				p.ToApply++
			}
		}
	case "resource_drift":
		p.Drifted++
	case "apply_start":
		p.Applying++
	case "apply_complete":
		p.Applied++
	case "apply_errored":
		p.Failed++
	case "change_summary":
		if m.Changes == nil {
			return false
		}
		sum := *m.Changes
		p.Summary = &sum
	default:
		return false
	}
	return true
}

// text passes on a line that is not a UI message.
func (s *uiStream) text(l []byte) {
	s.log.Write(append(l[:len(l):len(l)], '\n'))
	s.stderr.Write(append(l[:len(l):len(l)], '\n'))
}
