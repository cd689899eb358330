package astjson

import (
	"sync"
	"testing"
)

// Paths are shared: one engine's InputPaths serves every project a run plans at once
// (stage.ForEach), and plan.Open calls Child/Elem on it from each. A shared Paths is
// frozen first (Freeze): concurrent readers then only read, and every member carries the
// wildcard's reads. (Found by the audit: a lazily frozen tree raced, and a reader could
// see a member not yet folded.) Run with -race to see any data race directly.
func TestAuditPathsConcurrentChild(t *testing.T) {
	bad := 0
	for iter := 0; iter < 20000 && bad == 0; iter++ {
		p := NoPaths()
		// rc[*].change.after read whole; rc.named member read for its kind only.
		p.Add([]Seg{{Any: true}, {Key: "change"}, {Key: "after"}}, true)
		for _, k := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
			p.Add([]Seg{{Key: k}, {Key: "type"}}, false)
		}
		p.Freeze()
		var wg sync.WaitGroup
		var mu sync.Mutex
		for g := 0; g < auditGoroutines; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c, ok := p.Child("h")
				if !ok {
					return
				}
				ch, ok := c.Child("change")
				if !ok || ch == nil {
					mu.Lock()
					bad++
					mu.Unlock()
					return
				}
				if a, ok := ch.Child("after"); !ok || !a.Whole() {
					mu.Lock()
					bad++
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
	}
	if bad > 0 {
		t.Errorf("a concurrent Child saw a member without the wildcard's reads folded in (%d times)", bad)
	}
}

// auditGoroutines read the shared Paths at once (1: the test passes).
var auditGoroutines = 4

// A frozen Paths refuses to grow: a read added after freezing would miss the wildcard's.
func TestAddAfterFreezePanics(t *testing.T) {
	p := NoPaths()
	p.Add([]Seg{{Any: true}, {Key: "a"}}, true)
	p.Freeze()
	defer func() {
		if recover() == nil {
			t.Error("Add after Freeze did not panic")
		}
	}()
	p.Add([]Seg{{Key: "b"}}, true)
}
