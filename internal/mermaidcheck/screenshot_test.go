package mermaidcheck

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A screenshot holds up to shotBatch drawings, one above the other, each in a white cell of
// cellWidth×cellHeight CSS pixels (a drawing larger is scaled down to fit).
const (
	cellWidth  = 800
	cellHeight = 500
	shotBatch  = 6
	// minInk is how many of a cell's pixels must be drawn (not white) for the drawing to
	// count as there: the smallest diagram, two nodes and an edge, draws thousands.
	minInk = 500
)

// checkScreenshots screenshots the drawings in batches and checks that each cell has ink.
// The screenshots are kept in the test's artifact directory (go test -artifacts).
func checkScreenshots(t *testing.T, s *site, chromium string, drawn []result) {
	if len(drawn) == 0 {
		t.Fatal("no diagram was drawn")
	}
	dir := t.ArtifactDir()
	for start := 0; start < len(drawn); start += shotBatch {
		batch := drawn[start:min(start+shotBatch, len(drawn))]
		name := fmt.Sprintf("mermaid-%d.png", start/shotBatch+1)
		shot := s.screenshot(t, chromium, name, shotPage(batch), cellWidth, cellHeight*len(batch))
		if err := os.WriteFile(filepath.Join(dir, name), shot, 0o644); err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(shot))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if b := img.Bounds(); b.Dx() != cellWidth || b.Dy() != cellHeight*len(batch) {
			t.Fatalf("%s is %d×%d, want %d×%d", name, b.Dx(), b.Dy(), cellWidth, cellHeight*len(batch))
		}
		for i, r := range batch {
			cell := image.Rect(0, i*cellHeight, cellWidth, (i+1)*cellHeight)
			if n := ink(img, cell); n < minInk {
				t.Errorf("%s: cell %d, %s, is blank (%d pixels drawn, want %d or more)", name, i+1, r.Name, n, minInk)
			} else {
				t.Logf("%s: %s drawn (%d pixels)", name, r.Name, n)
			}
		}
	}
	t.Logf("screenshots in %s", dir)
}

// shotPage is a static page of the drawings, each in its cell: Mermaid's SVG inline, so
// nothing runs and the page is complete once loaded.
func shotPage(drawn []result) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<!doctype html><html><head><meta charset="utf-8"><style>
html, body { margin: 0; background: #fff; }
.cell { width: %dpx; height: %dpx; overflow: hidden; }
.cell svg { max-width: 100%%; max-height: 100%%; }
</style></head><body>
`, cellWidth, cellHeight)
	for _, r := range drawn {
		fmt.Fprintf(&b, "<div class=\"cell\">%s</div>\n", r.SVG)
	}
	b.WriteString("</body></html>\n")
	return b.String()
}

// ink counts the pixels in r that are not white (any channel below 0xf0, 8-bit): the
// drawing, not the page.
func ink(img image.Image, r image.Rectangle) int {
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			red, green, blue, _ := img.At(x, y).RGBA()
			if red>>8 < 0xf0 || green>>8 < 0xf0 || blue>>8 < 0xf0 {
				n++
			}
		}
	}
	return n
}

// ink tells a drawing from a blank page, and counts only inside the rectangle.
func TestInk(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 40, 40))
	for i := range img.Pix {
		img.Pix[i] = 0xff // white, opaque
	}
	if n := ink(img, img.Bounds()); n != 0 {
		t.Errorf("a white image has %d pixels of ink, want 0", n)
	}
	for x := 10; x < 20; x++ {
		img.Pix[img.PixOffset(x, 5)] = 0xec // a node's lavender fill, #ececff, is ink
	}
	if n := ink(img, img.Bounds()); n != 10 {
		t.Errorf("ten drawn pixels counted as %d", n)
	}
	if n := ink(img, image.Rect(0, 10, 40, 40)); n != 0 {
		t.Errorf("%d pixels counted outside the rectangle", n)
	}
}
