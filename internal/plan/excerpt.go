package plan

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Excerpt shortens two texts that differ to the places where they differ: every differing
// region is kept whole, with up to context runes of the text they share on either side, and
// each stretch of shared text left out reads "…". A change in the middle of a long policy
// document, or two changes far apart in it, stay visible whatever the length. Texts that
// are equal come back unchanged.
func Excerpt(before, after string, context int) (string, string) {
	return excerpt(before, after, context, 0)
}

// excerptContext is how much shared text Summarise keeps around each difference.
const excerptContext = 20

// maxEdits bounds the diff of two texts (in tokens inserted or deleted); texts that differ
// more are one differing region from their first to their last difference.
const maxEdits = 256

// maxDiffTokens bounds the tokens the diff compares, so that huge values stay cheap.
const maxDiffTokens = 1 << 17

// excerpt is Excerpt with a budget: when budget > 0, a side stops at the first differing
// region that would take it past budget runes (shared context may overrun it a little) and
// says how many differing regions it does not show in full.
func excerpt(before, after string, context, budget int) (string, string) {
	if before == after {
		return before, after
	}
	segs := segments(before, after)
	return side(segs, false, context, budget), side(segs, true, context, budget)
}

// segment is a stretch of the two texts: shared (a == b) or differing.
type segment struct {
	same bool
	a, b string
}

// side writes one side (b for after) of the segments, eliding shared text far from any
// difference.
func side(segs []segment, after bool, context, budget int) string {
	var out strings.Builder
	shown := 0 // runes written, "…" counting as one
	write := func(s string) {
		out.WriteString(s)
		shown += utf8.RuneCountInString(s)
	}
	for i, sg := range segs {
		text := sg.a
		if after {
			text = sg.b
		}
		if !sg.same {
			if budget > 0 && shown+utf8.RuneCountInString(text) > budget {
				return cutSide(&out, text, budget-shown, segs[i:])
			}
			write(text)
			continue
		}
		first, last := i == 0, i == len(segs)-1
		r := []rune(text)
		switch {
		case first && len(r) > context+1:
			write("…" + string(r[len(r)-context:]))
		case last && len(r) > context+1:
			write(string(r[:context]) + "…")
		case !first && !last && len(r) > 2*context+1:
			write(string(r[:context]) + "…" + string(r[len(r)-context:]))
		default:
			write(text)
		}
	}
	return out.String()
}

// cutSide ends a side that ran over its budget at a differing region: what fits of the
// region, then how many differing regions (this one included) are not shown in full.
func cutSide(out *strings.Builder, text string, room int, rest []segment) string {
	n := 0
	for _, sg := range rest {
		if !sg.same {
			n++
		}
	}
	if room > 1 {
		out.WriteString(shorten(text, room))
	}
	if !strings.HasSuffix(out.String(), "…") {
		out.WriteString("…")
	}
	what := "differences"
	if n == 1 {
		what = "difference"
	}
	fmt.Fprintf(out, " (%d %s not shown)", n, what)
	return out.String()
}

// segments splits two texts into shared and differing stretches, by a diff of their tokens
// (words, and single other characters), so that regions start and end at word boundaries.
func segments(before, after string) []segment {
	ta, tb := tokens(before), tokens(after)
	ids := map[string]int{}
	intern := func(ts []string) []int {
		out := make([]int, len(ts))
		for i, t := range ts {
			id, ok := ids[t]
			if !ok {
				id = len(ids)
				ids[t] = id
			}
			out[i] = id
		}
		return out
	}
	a, b := intern(ta), intern(tb)
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var segs []segment
	add := func(same bool, ia, ja, ib, jb int) {
		if ia == ja && ib == jb {
			return
		}
		sa, sb := strings.Join(ta[ia:ja], ""), strings.Join(tb[ib:jb], "")
		if n := len(segs); n > 0 && segs[n-1].same == same {
			segs[n-1].a += sa
			segs[n-1].b += sb
			return
		}
		segs = append(segs, segment{same: same, a: sa, b: sb})
	}
	add(true, 0, pre, 0, pre)
	i, j := pre, pre
	for _, m := range matches(a[pre:len(a)-suf], b[pre:len(b)-suf]) {
		add(false, i, pre+m.a, j, pre+m.b)
		add(true, pre+m.a, pre+m.a+m.n, pre+m.b, pre+m.b+m.n)
		i, j = pre+m.a+m.n, pre+m.b+m.n
	}
	add(false, i, len(a)-suf, j, len(b)-suf)
	add(true, len(a)-suf, len(a), len(b)-suf, len(b))
	return narrow(segs)
}

// narrow moves the characters a differing region's sides share at its start and end into
// the shared text around it, so that a one-letter change in a long word (a hash, a base64
// blob) shows as that letter, not as the whole word.
func narrow(segs []segment) []segment {
	var out []segment
	push := func(sg segment) {
		if sg.a == "" && sg.b == "" {
			return
		}
		if n := len(out); n > 0 && out[n-1].same && sg.same {
			out[n-1].a += sg.a
			out[n-1].b += sg.b
			return
		}
		out = append(out, sg)
	}
	for _, sg := range segs {
		if sg.same {
			push(sg)
			continue
		}
		p := commonPrefix(sg.a, sg.b)
		q := commonSuffix(sg.a[p:], sg.b[p:])
		push(segment{same: true, a: sg.a[:p], b: sg.a[:p]})
		push(segment{a: sg.a[p : len(sg.a)-q], b: sg.b[p : len(sg.b)-q]})
		push(segment{same: true, a: sg.a[len(sg.a)-q:], b: sg.a[len(sg.a)-q:]})
	}
	return out
}

// commonPrefix and commonSuffix measure, in bytes at rune boundaries, what a and b share.
func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) {
		ra, sa := utf8.DecodeRuneInString(a[n:])
		rb, _ := utf8.DecodeRuneInString(b[n:])
		if ra != rb || ra == utf8.RuneError {
			break
		}
		n += sa
	}
	return n
}

func commonSuffix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) {
		ra, sa := utf8.DecodeLastRuneInString(a[:len(a)-n])
		rb, _ := utf8.DecodeLastRuneInString(b[:len(b)-n])
		if ra != rb || ra == utf8.RuneError {
			break
		}
		n += sa
	}
	return n
}

// tokens splits s into runs of letters and digits, and single other runes (or bytes of
// invalid UTF-8); joined again they are s.
func tokens(s string) []string {
	var out []string
	start := -1
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) {
			if start < 0 {
				start = i
			}
			i += size
			continue
		}
		if start >= 0 {
			out = append(out, s[start:i])
			start = -1
		}
		out = append(out, s[i:i+size])
		i += size
	}
	if start >= 0 {
		out = append(out, s[start:])
	}
	return out
}

// match is a run of n equal tokens at a[a:] and b[b:].
type match struct{ a, b, n int }

// matches returns the common runs of a and b in order, from Myers' O((N+M)D) diff; nil
// (everything differs) when they differ by more than maxEdits or are too long to compare.
func matches(a, b []int) []match {
	n, m := len(a), len(b)
	if n == 0 || m == 0 || n+m > maxDiffTokens {
		return nil
	}
	maxD := min(n+m, maxEdits)
	off := maxD + 1
	v := make([]int, 2*maxD+3)
	var trace [][]int
	for d := 0; d <= maxD; d++ {
		trace = append(trace, append([]int(nil), v...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[off+k] = x
			if x >= n && y >= m {
				return backtrack(trace, off, d, n, m)
			}
		}
	}
	return nil
}

// backtrack walks the saved diagonals back from (n, m) and collects the snakes.
func backtrack(trace [][]int, off, d, x, y int) []match {
	var out []match
	for ; d > 0; d-- {
		prev := trace[d]
		k := x - y
		var pk int
		if k == -d || (k != d && prev[off+k-1] < prev[off+k+1]) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := prev[off+pk]
		py := px - pk
		// After the step from (px, py), the snake runs diagonally to (x, y).
		sx, sy := px, py
		if pk == k+1 {
			sy++
		} else {
			sx++
		}
		if n := x - sx; n > 0 {
			out = append(out, match{sx, sy, n})
		}
		x, y = px, py
	}
	if x > 0 { // d == 0: a common start (not possible after trimming, but harmless)
		out = append(out, match{0, 0, x})
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}
