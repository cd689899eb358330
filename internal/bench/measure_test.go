package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestMedian(t *testing.T) {
	for _, tt := range []struct {
		in   []int64
		want int64
	}{{nil, 0}, {[]int64{5}, 5}, {[]int64{9, 1, 5}, 5}, {[]int64{4, 1, 3, 2}, 2}} {
		if got := median(tt.in); got != tt.want {
			t.Errorf("median(%v) = %d, want %d", tt.in, got, tt.want)
		}
	}
	in := []time.Duration{3, 1, 2}
	median(in)
	if in[0] != 3 {
		t.Error("median sorted its input")
	}
}

func TestTable(t *testing.T) {
	out := table([]Row{
		{What: "(a) fixed", A: "110 ms", B: "100 ms", Ratio: 1.1, Target: 1.15},
		{What: "(b) policy eval ÷ conftest", A: "1.00 s", B: "2.00 s", Ratio: 0.5, Target: 0.3},
	})
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.HasSuffix(lines[1], "ok") || !strings.HasSuffix(lines[2], "OVER") {
		t.Errorf("table:\n%s", out)
	}
	if !strings.Contains(lines[1], "1.10×") || !strings.Contains(lines[2], "≤0.30×") {
		t.Errorf("table lacks ratio or target:\n%s", out)
	}
}

// TestCompareRotates: every sequence gets n samples, and each round starts one further on,
// the warm-up round with the last.
func TestCompareRotates(t *testing.T) {
	log := filepath.Join(t.TempDir(), "log")
	seq := func(name string) Sequence {
		return Sequence{Name: name, Commands: []Command{{Args: []string{"/bin/sh", "-c", "printf " + name + " >> " + log}}}}
	}
	st, err := compare(context.Background(), []Sequence{seq("a"), seq("b"), seq("c")}, 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range st {
		if len(s.Samples) != 3 {
			t.Errorf("sequence %d: %d samples, want 3", i, len(s.Samples))
		}
	}
	got, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if want := "cab" + "abc" + "bca" + "cab"; string(got) != want {
		t.Errorf("order %q, want %q", got, want)
	}
}
