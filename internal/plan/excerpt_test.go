package plan

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func TestExcerpt(t *testing.T) {
	long := strings.Repeat("x", 40)
	tests := []struct {
		name, before, after string
		budget              int
		wantB, wantA        string
	}{
		{"equal", long, long, 0, long, long},
		{"short: whole", "size = 3", "size = 4", 0, "size = 3", "size = 4"},
		{"one change in a long word", long + "A" + long, long + "B" + long, 0,
			"…" + long[:10] + "A" + long[:10] + "…", "…" + long[:10] + "B" + long[:10] + "…"},
		{"two changes far apart", "head " + long + " one " + long + " two " + long + " tail",
			"head " + long + " ONE " + long + " TWO " + long + " tail", 0,
			"…xxxxxxxxx one xxxxxxxxx…xxxxxxxxx two xxxxxxxxx…", "…xxxxxxxxx ONE xxxxxxxxx…xxxxxxxxx TWO xxxxxxxxx…"},
		{"changes close together share their context", long + " a 0123456789012345678 b " + long,
			long + " A 0123456789012345678 B " + long, 0,
			"…xxxxxxxxx a 0123456789012345678 b xxxxxxxxx…", "…xxxxxxxxx A 0123456789012345678 B xxxxxxxxx…"},
		{"insertion", long + long, long + "NEW" + long, 0, "…" + long[:10] + long[:10] + "…", "…" + long[:10] + "NEW" + long[:10] + "…"},
		{"deletion at the end", long + " gone", long, 0, "…" + long[:10] + " gone", "…" + long[:10]},
		{"non-ASCII", "αβγ " + long + " δ", "αβγ " + long + " ε", 0, "…" + long[:9] + " δ", "…" + long[:9] + " ε"},
		{"over budget", strings.Repeat(long+" a ", 6) + long, strings.Repeat(long+" b ", 6) + long, 60,
			"…xxxxxxxxx a xxxxxxxxx…xxxxxxxxx a xxxxxxxxx…xxxxxxxxx a xxxxxxxxx…xxxxxxxxx … (3 differences not shown)",
			"…xxxxxxxxx b xxxxxxxxx…xxxxxxxxx b xxxxxxxxx…xxxxxxxxx b xxxxxxxxx…xxxxxxxxx … (3 differences not shown)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, a := excerpt(tt.before, tt.after, 10, tt.budget)
			if b != tt.wantB || a != tt.wantA {
				t.Errorf("excerpt =\n  %q\n  %q\nwant\n  %q\n  %q", b, a, tt.wantB, tt.wantA)
			}
		})
	}
}

// For any two texts, the segments rebuild both, and each side's excerpt holds every region
// where that side differs.
func TestExcerptShowsEveryDifference(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	words := []string{"a", "bb", "ccc", " ", ",", `\"`, "é", "0", "Statement", "\xff", "\xe2\x82"}
	text := func(n int) []string {
		out := make([]string, n)
		for k := range out {
			out[k] = words[rng.IntN(len(words))]
		}
		return out
	}
	for i := range 2000 {
		ws := text(rng.IntN(300))
		before := strings.Join(ws, "")
		for range rng.IntN(6) {
			if len(ws) == 0 {
				break
			}
			p := rng.IntN(len(ws))
			ws = append(ws[:p:p], append(text(rng.IntN(4)), ws[p+rng.IntN(min(3, len(ws)-p)):]...)...)
		}
		after := strings.Join(ws, "")
		segs := segments(before, after)
		var rb, ra strings.Builder
		for k, sg := range segs {
			if sg.same && sg.a != sg.b || k > 0 && sg.same == segs[k-1].same {
				t.Fatalf("case %d: bad segments %+v", i, segs)
			}
			rb.WriteString(sg.a)
			ra.WriteString(sg.b)
		}
		if rb.String() != before || ra.String() != after {
			t.Fatalf("case %d: segments do not rebuild the texts:\n%q\n%q\n%+v", i, before, after, segs)
		}
		eb, ea := Excerpt(before, after, 5)
		for _, sg := range segs {
			if !sg.same && (!strings.Contains(eb, sg.a) || !strings.Contains(ea, sg.b)) {
				t.Fatalf("case %d: region %q/%q missing from excerpt\n%q\n%q", i, sg.a, sg.b, eb, ea)
			}
		}
	}
}

// Texts that differ everywhere are one region; huge ones stay cheap.
func TestExcerptUnrelatedTexts(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	words := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(string(rune('a'+rng.IntN(26))) + " ")
		}
		return b.String()
	}
	before, after := "same start "+words(20000), words(20000)+" same end"
	b, a := excerpt(before, after, 20, 2000)
	if !strings.HasSuffix(b, "not shown)") || !strings.HasSuffix(a, "not shown)") || len([]rune(b)) > 2100 {
		t.Errorf("excerpt of unrelated texts:\n%.200q…\n%.200q…", b, a)
	}
}
