package render

import "unicode/utf8"

// blanks serves the runs of spaces the text report aligns with.
const blanks = "                                                                "

// spaces writes n spaces (none when n <= 0).
func (t *textWriter) spaces(n int) {
	for n > 0 {
		k := min(n, len(blanks))
		t.bw.WriteString(blanks[:k])
		n -= k
	}
}

// detail is one line of an entry's details, written part after part: the parts of
// `path: before → after` are not joined into a string first.
type detail [5]string

// detail writes d as a line.
func (t *textWriter) detail(d detail) {
	for _, part := range d {
		t.bw.WriteString(part)
	}
	t.bw.WriteByte('\n')
}

// appendChunks breaks a value into lines of at most n runes, after a space when there is
// one in the second half of the line, else anywhere, and appends them to dst, first
// before the first line and rest before the others: joined again, the lines are the
// value.
func appendChunks(dst []detail, first, rest, s string, n int) []detail {
	n = max(n, 8)
	if runes(s) <= n {
		return append(dst, detail{first, s})
	}
	if !utf8.ValidString(s) {
		s = string([]rune(s)) // as a rune slice would: each invalid byte U+FFFD
	}
	prefix := first
	for {
		cut, more := chunkCut(s, n)
		if !more {
			return append(dst, detail{prefix, s})
		}
		dst = append(dst, detail{prefix, s[:cut]})
		s, prefix = s[cut:], rest
	}
}

// chunkCut is the byte offset at which to end the first line of s, lines being at most n
// runes: after the last space among runes n/2 to n-1, else after rune n. more is false
// when s fits in one line.
func chunkCut(s string, n int) (cut int, more bool) {
	off, space := 0, -1
	for k := 0; k < n; k++ {
		if off >= len(s) {
			return len(s), false
		}
		if k >= n/2 && s[off] == ' ' {
			space = off + 1
		}
		_, size := utf8.DecodeRuneInString(s[off:])
		off += size
	}
	if off >= len(s) {
		return len(s), false
	}
	if space >= 0 {
		return space, true
	}
	return off, true
}
