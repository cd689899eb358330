package drift

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// patchContext is the number of unchanged lines around each change, as diff -u writes.
const patchContext = 3

// Patch returns a unified diff (for git apply, paths a/FILE and b/FILE relative to root)
// that makes every foldable suggestion's edit; "" when there is none. It fails when a
// file no longer holds a suggestion's Old text at its Line (the code changed since
// Suggest) or when two edits overlap.
func Patch(root string, s []Suggestion) (string, error) {
	byFile := map[string][]Suggestion{}
	for _, sg := range s {
		if sg.Foldable() && sg.Old != sg.New {
			byFile[sg.File] = append(byFile[sg.File], sg)
		}
	}
	files := make([]string, 0, len(byFile))
	for f := range byFile {
		files = append(files, f)
	}
	sort.Strings(files)
	var out strings.Builder
	for _, file := range files {
		src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(file)))
		if err != nil {
			return "", fmt.Errorf("patch %s: %w", file, err)
		}
		edits, err := placeEdits(file, src, byFile[file])
		if err != nil {
			return "", err
		}
		writeFileDiff(&out, file, src, edits)
	}
	return out.String(), nil
}

// textEdit is a placed edit: replace src[off:off+len(old)] with new.
type textEdit struct {
	off      int
	old, new string
}

// placeEdits finds each suggestion's Old in src: at its recorded offset when it is still
// there, else the first occurrence starting on its Line.
func placeEdits(file string, src []byte, s []Suggestion) ([]textEdit, error) {
	starts := lineStarts(src)
	var edits []textEdit
	for _, sg := range s {
		off := -1
		if o := sg.offset - 1; o >= 0 && bytes.HasPrefix(src[min(o, len(src)):], []byte(sg.Old)) && lineOf(starts, o) == sg.Line-1 {
			off = o
		} else if sg.Line >= 1 && sg.Line <= len(starts) {
			ls := starts[sg.Line-1]
			lineEnd := len(src)
			if sg.Line < len(starts) {
				lineEnd = starts[sg.Line]
			}
			if i := bytes.Index(src[ls:], []byte(sg.Old)); i >= 0 && ls+i < lineEnd {
				off = ls + i
			}
		}
		if off < 0 || sg.Old == "" {
			return nil, fmt.Errorf("%s:%d: %s is no longer there: the file changed since the suggestion; suggest again", file, sg.Line, oneLine(sg.Old))
		}
		edits = append(edits, textEdit{off, sg.Old, sg.New})
	}
	slices.SortFunc(edits, func(a, b textEdit) int { return a.off - b.off })
	for i := 1; i < len(edits); i++ {
		if edits[i].off < edits[i-1].off+len(edits[i-1].old) {
			return nil, fmt.Errorf("%s:%d: two suggested edits overlap; make one of them by hand", file, lineOf(starts, edits[i].off)+1)
		}
	}
	return edits, nil
}

// lineStarts are the byte offsets at which src's lines start.
func lineStarts(src []byte) []int {
	starts := []int{0}
	for i, c := range src {
		if c == '\n' && i+1 < len(src) {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// lineOf is the 0-based line holding byte offset off.
func lineOf(starts []int, off int) int {
	i, found := slices.BinarySearch(starts, off)
	if found {
		return i
	}
	return i - 1
}

// block is a run of whole lines [from, to] (0-based, inclusive) that edits change.
type block struct {
	from, to int
	lines    []string // the new lines, each with its line ending (the last one maybe without)
}

// writeFileDiff writes the diff of one file: its edits grouped into blocks of changed
// lines, and blocks close enough to share context into one hunk.
func writeFileDiff(out *strings.Builder, file string, src []byte, edits []textEdit) {
	starts := lineStarts(src)
	lines := splitLines(src, starts)
	end := func(line int) int {
		if line+1 < len(starts) {
			return starts[line+1]
		}
		return len(src)
	}
	var blocks []block
	var members [][]textEdit
	for _, e := range edits {
		from := lineOf(starts, e.off)
		to := lineOf(starts, e.off+max(len(e.old), 1)-1)
		if n := len(blocks); n > 0 && from <= blocks[n-1].to {
			blocks[n-1].to = max(blocks[n-1].to, to)
			members[n-1] = append(members[n-1], e)
			continue
		}
		blocks = append(blocks, block{from: from, to: to})
		members = append(members, []textEdit{e})
	}
	for i := range blocks {
		b := &blocks[i]
		base := starts[b.from]
		var text strings.Builder
		pos := base
		for _, e := range members[i] {
			text.Write(src[pos:e.off])
			text.WriteString(e.new)
			pos = e.off + len(e.old)
		}
		text.Write(src[pos:end(b.to)])
		b.lines = splitLines([]byte(text.String()), lineStarts([]byte(text.String())))
	}

	fmt.Fprintf(out, "diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n", file, file, file, file)
	delta := 0
	for i := 0; i < len(blocks); {
		j := i
		for j+1 < len(blocks) && blocks[j+1].from-blocks[j].to-1 <= 2*patchContext {
			j++
		}
		from := max(0, blocks[i].from-patchContext)
		to := min(len(lines)-1, blocks[j].to+patchContext)
		var body strings.Builder
		oldN, newN := 0, 0
		line := from
		for k := i; k <= j; k++ {
			for ; line < blocks[k].from; line++ {
				writeLine(&body, ' ', lines[line])
				oldN, newN = oldN+1, newN+1
			}
			for ; line <= blocks[k].to; line++ {
				writeLine(&body, '-', lines[line])
				oldN++
			}
			for _, l := range blocks[k].lines {
				writeLine(&body, '+', l)
				newN++
			}
		}
		for ; line <= to; line++ {
			writeLine(&body, ' ', lines[line])
			oldN, newN = oldN+1, newN+1
		}
		fmt.Fprintf(out, "@@ -%d,%d +%d,%d @@\n", from+1, oldN, from+1+delta, newN)
		out.WriteString(body.String())
		delta += newN - oldN
		i = j + 1
	}
}

func splitLines(src []byte, starts []int) []string {
	if len(src) == 0 {
		return nil
	}
	lines := make([]string, len(starts))
	for i, s := range starts {
		e := len(src)
		if i+1 < len(starts) {
			e = starts[i+1]
		}
		lines[i] = string(src[s:e])
	}
	return lines
}

func writeLine(b *strings.Builder, prefix byte, line string) {
	b.WriteByte(prefix)
	b.WriteString(line)
	if !strings.HasSuffix(line, "\n") {
		b.WriteString("\n\\ No newline at end of file\n")
	}
}
