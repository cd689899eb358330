package render

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// chunkByRunes is the rune-slice chunking appendChunks replaced, kept as its oracle.
func chunkByRunes(s string, n int) []string {
	n = max(n, 8)
	if runes(s) <= n {
		return []string{s}
	}
	var out []string
	r := []rune(s)
	for len(r) > n {
		cut := n
		for i := n; i > n/2; i-- {
			if r[i-1] == ' ' {
				cut = i
				break
			}
		}
		out = append(out, string(r[:cut]))
		r = r[cut:]
	}
	return append(out, string(r))
}

// appendChunks cuts where the rune-slice chunking cut, on values of every kind: spaces
// anywhere, multi-byte runes, invalid UTF-8, lines of every width.
func TestAppendChunksAsRuneChunks(t *testing.T) {
	alphabet := []string{"a", "b", " ", "  ", "é", "→", "🔑", "\xff", "\xe2\x80", ":", "#", "\\n"}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 5000; i++ {
		var b strings.Builder
		for k := rng.IntN(300); k > 0; k-- {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		s, n := b.String(), rng.IntN(90)
		want := chunkByRunes(s, n)
		for j := range want {
			want[j] = map[bool]string{true: "- ", false: "  "}[j == 0] + want[j]
		}
		var got []string
		for _, d := range appendChunks([]detail{{"x"}}, "- ", "  ", s, n) {
			got = append(got, strings.Join(d[:], ""))
		}
		if !slices.Equal(got[1:], want) || got[0] != "x" {
			t.Fatalf("appendChunks(%q, %d) = %q, want %q", s, n, got[1:], want)
		}
	}
}
