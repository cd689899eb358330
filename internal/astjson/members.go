package astjson

import (
	"bytes"
	"runtime"

	"github.com/open-policy-agent/opa/v1/ast"
)

// DecodeMembers is Decode for a top-level object whose members are wanted one at a time:
// each member's value is decoded and passed to visit, in document order, and is kept in
// the returned object only when visit returns true. A member that is not kept can be
// collected as soon as visit returns, so the whole document never needs to be in memory
// at once. A top-level value that is not an object is returned as it is, without a visit.
//
// Members are decoded by several goroutines at once (a plan's large members — resource
// changes, planned values, prior state, configuration — take about as long each), while
// visit is called from the caller's goroutine only, in order, and never for a member
// after one that failed: the visits and the result, error included, are those of a
// decoding in one pass. At most a few members are decoded ahead of visit.
func DecodeMembers(data []byte, visit func(key string, v ast.Value) bool) (ast.Value, error) {
	return decodeMembers(data, min(runtime.GOMAXPROCS(0), maxMemberWorkers), visit)
}

// DecodeMembersText is DecodeMembers for a caller that wants some members as JSON text
// rather than as values: for a member whose key text accepts, visit gets a nil value and
// the member's text, a slice of data (scanned for balance only: the caller parses it), and
// the member is never kept. The other members are visited as by DecodeMembers, raw nil.
// Only the members decoded cost a tree: a large member wanted as text costs a scan.
func DecodeMembersText(data []byte, text func(key string) bool, visit func(key string, v ast.Value, raw []byte) bool) (ast.Value, error) {
	return decodeMembersText(data, min(runtime.GOMAXPROCS(0), maxMemberWorkers), text, visit)
}

// maxMemberWorkers bounds the goroutines decoding members: a plan has four large ones.
const maxMemberWorkers = 4

// member is one top-level member on its way from the scanner through a worker to visit.
type member struct {
	key        []byte
	start, end int  // the value's span in data
	text       bool // wanted as text: not decoded
	v          *ast.Term
	err        error // the worker's decoding failed, or did not end at end
	scanErr    error // the scanner stopped here: no member, the document is malformed
	done       chan struct{}
}

func decodeMembers(data []byte, workers int, visit func(string, ast.Value) bool) (ast.Value, error) {
	return decodeMembersText(data, workers, nil, valuesOnly(visit))
}

// valuesOnly adapts a visit of values to the visit of DecodeMembersText.
func valuesOnly(visit func(string, ast.Value) bool) func(string, ast.Value, []byte) bool {
	if visit == nil {
		return nil
	}
	return func(k string, v ast.Value, _ []byte) bool { return visit(k, v) }
}

func decodeMembersText(data []byte, workers int, text func(string) bool, visit func(string, ast.Value, []byte) bool) (ast.Value, error) {
	start := 0
	if bytes.HasPrefix(data, utf8BOM) {
		start = len(utf8BOM)
	}
	d := &decoder{data: data, pos: start, nums: map[string]*ast.Term{}, vals: map[string]*ast.Term{}}
	d.skipSpace()
	if workers < 2 || d.pos >= len(data) || data[d.pos] != '{' {
		return decodeText(data, nil, text, visit)
	}

	// The scanner finds each member's span (skipping, not building, its value) and hands
	// it on; order bounds how far it runs ahead of visit. Workers depend on nothing, the
	// scanner only on workers and visit, visit only on members already handed to a
	// worker: nothing waits in a circle.
	order := make(chan *member, workers)
	jobs := make(chan *member)
	stop := make(chan struct{}) // closed when visit stops early: the scanner gives up
	for range workers {
		go decodeJobs(data, jobs)
	}
	go func() {
		defer close(order)
		defer close(jobs)
		d.scanMembers(func(m *member) bool {
			m.text = m.scanErr == nil && text != nil && text(string(m.key))
			select {
			case order <- m:
			case <-stop:
				return false
			}
			if m.scanErr != nil {
				return false
			}
			select {
			case jobs <- m:
				return true
			case <-stop:
				close(m.done) // never decoded: visit is gone
				return false
			}
		})
	}()
	halted := false
	halt := func() { // the scanner stops handing out members; workers finish the one they have
		if !halted {
			halted = true
			close(stop)
			for range order { // let the scanner finish: it owns jobs
			}
		}
	}
	defer halt()

	return gather(data, order, halt, text, visit)
}

// decodeJobs is a worker of decodeMembersText: it decodes each member handed to it (those
// kept as text are only marked done).
func decodeJobs(data []byte, jobs <-chan *member) {
	w := &decoder{data: data}
	for m := range jobs {
		if !m.text {
			m.v, m.err = w.member(m.start, m.end)
		}
		close(m.done)
	}
}

// gather visits the members of order as their workers finish them, in order, and builds
// the object of those kept; on a fault it halts the scanner and redoes the document for
// its error.
func gather(data []byte, order <-chan *member, halt func(), text func(string) bool, visit func(string, ast.Value, []byte) bool) (ast.Value, error) {
	var pairs [][2]*ast.Term
	for m := range order {
		if m.scanErr != nil {
			halt()
			return nil, redo(data, text)
		}
		<-m.done
		if m.err != nil {
			halt()
			return nil, redo(data, text)
		}
		key := string(m.key)
		if m.text {
			if visit != nil {
				visit(key, nil, data[m.start:m.end])
			}
			continue
		}
		if visit == nil || visit(key, m.v.Value, nil) {
			pairs = append(pairs, [2]*ast.Term{ast.StringTerm(key), m.v})
		}
	}
	return newObject(pairs), nil
}

// redo decodes a malformed document in one pass, for its error: the offset and message
// are those of the first fault in the document, wherever the scanner or a worker met one.
// Nothing is visited again; the members wanted as text are skipped as the one-pass
// decoding skips them.
func redo(data []byte, text func(string) bool) error {
	_, err := decodeText(data, nil, text, func(string, ast.Value, []byte) bool { return false })
	if err == nil {
		// Unreachable: a document the one-pass decoder accepts is scanned and decoded
		// without fault. Never return a value for it from here, though.
		err = &SyntaxError{Msg: "inconsistent decoding"}
	}
	return err
}

// scanMembers steps through the top-level object at d.pos, passing each member's key and
// value span to emit, and a last member with scanErr when the document is malformed there
// (after the members before it). It stops when emit returns false.
func (d *decoder) scanMembers(emit func(*member) bool) {
	fail := func(err error) { emit(&member{scanErr: err, done: make(chan struct{})}) }
	d.pos++ // '{'
	d.skipSpace()
	if d.pos < len(d.data) && d.data[d.pos] == '}' {
		d.pos++
		if err := d.trailing(); err != nil {
			fail(err)
		}
		return
	}
	for {
		kb, err := d.memberKey()
		if err != nil {
			fail(err)
			return
		}
		key := bytes.Clone(kb) // the scratch buffer, perhaps: skipValue reads strings
		start := d.pos
		if err := d.skipValue(); err != nil {
			fail(err)
			return
		}
		if !emit(&member{key: key, start: start, end: d.pos, done: make(chan struct{})}) {
			return
		}
		last, err := d.memberEnd()
		if err != nil {
			fail(err)
			return
		}
		if last {
			break
		}
	}
	if err := d.trailing(); err != nil {
		fail(err)
	}
}

// trailing checks that nothing but space follows the top-level value.
func (d *decoder) trailing() error {
	d.skipSpace()
	if d.pos < len(d.data) {
		return d.errorf("unexpected %q after top-level value", d.data[d.pos])
	}
	return nil
}

// member decodes one top-level member's value, data[start:end], as the one-pass decoder
// does at that depth. Each member gets blocks of its own (see object) and the worker's
// intern tables, which only ever hold terms allocated on their own.
func (w *decoder) member(start, end int) (*ast.Term, error) {
	if w.keys == nil {
		w.keys = make(map[string]*ast.Term, 512)
		w.vals = make(map[string]*ast.Term, 1024)
		w.nums = make(map[string]*ast.Term, 256)
	}
	w.pos, w.depth, w.slab = start, 1, nil
	v, err := w.value()
	if err != nil {
		return nil, err
	}
	if w.pos != end {
		return nil, w.errorf("value ends at %d, not at %d", w.pos, end)
	}
	return v, nil
}
