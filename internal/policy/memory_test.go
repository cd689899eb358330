package policy

import (
	"context"
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"
	"time"
)

// A policy that builds a huge value is stopped when the heap passes the limit, well within
// its time limit, and fails closed. Not parallel: the limit and the heap are process-wide.
func TestEvalMemoryLimit(t *testing.T) {
	tests := []struct{ name, policy string }{
		{"huge range", "package p\ndeny contains \"big\" if count(numbers.range(1, 1e9)) > 0\n"},
		{"huge comprehension", "package p\ndeny contains \"big\" if {\n\txs := [sprintf(\"%d-%d\", [i, i]) | some i in numbers.range(1, 1e8)]\n\tcount(xs) > 0\n}\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runtime.GC()
			sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
			metrics.Read(sample)
			limit := int64(sample[0].Value.Uint64()) + 128<<20
			prev := SetMemoryLimit(limit)
			defer func() { SetMemoryLimit(prev); runtime.GC() }()

			e := mustLoad(t, map[string]string{"p.rego": tt.policy})
			start := time.Now()
			r := e.Eval(context.Background(), []byte(`{}`), Project{})
			if took := time.Since(start); took > 50*time.Second { // generous: under the 60s time limit
				t.Errorf("evaluation took %s", took)
			}
			want := errMemory{limit: limit}.Error()
			if r.Verdict != VerdictError || !r.Denied() || r.Err == nil || r.Err.Error() != want {
				t.Errorf("verdict %s, error %v; want error %q", r.Verdict, r.Err, want)
			}
		})
	}
}

func TestTestMemoryLimit(t *testing.T) {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	limit := int64(sample[0].Value.Uint64()) + 128<<20
	prev := SetMemoryLimit(limit)
	defer func() { SetMemoryLimit(prev); runtime.GC() }()

	files := map[string]string{
		"p.rego":      "package p\ndeny contains \"x\" if false\n",
		"p_test.rego": "package p_test\ntest_big if count(numbers.range(1, 1e9)) > 0\n",
	}
	var out strings.Builder
	_, _, err := Test(context.Background(), Source{FS: policyFS(files), Paths: []string{"policies"}}, &out, false)
	if want := "test policies: " + (errMemory{limit: limit}).Error(); err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
}

func TestSetMemoryLimit(t *testing.T) {
	prev := SetMemoryLimit(1 << 30)
	defer SetMemoryLimit(prev)
	if got := SetMemoryLimit(0); got != 1<<30 {
		t.Errorf("previous limit %d, want 1 GiB", got)
	}
	if got := memoryLimit.Load(); got != DefaultMemoryLimit {
		t.Errorf("0 set the limit to %d, want the default", got)
	}
	for n, want := range map[int64]string{4 << 30: "4 GiB", 300 << 20: "300 MiB", 1536 << 20: "1536 MiB"} {
		if got := formatBytes(n); got != want {
			t.Errorf("formatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}
