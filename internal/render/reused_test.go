package render

import (
	"bytes"
	"testing"
)

// TestReusedProject: a reused plan says so in the comment's table, the text table and the
// JSON document: `reused from abc1234 (nothing it depends on changed)`.
func TestReusedProject(t *testing.T) {
	r := testReport(t)
	r.Projects = r.Projects[:2]
	r.Projects[0].ReusedFrom = "abc1234def5678abc1234def5678abc1234def56"
	var md, text, js bytes.Buffer
	if err := Markdown(&md, r, MarkdownOptions{Version: "test"}); err != nil {
		t.Fatal(err)
	}
	if err := Text(&text, r, TextOptions{Width: 100}); err != nil {
		t.Fatal(err)
	}
	if err := JSON(&js, r); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string][]byte{"markdown": md.Bytes(), "text": text.Bytes(), "json": js.Bytes()} {
		if got := bytes.Count(out, []byte("reused from abc1234 (nothing it depends on changed)")); got != 1 {
			t.Errorf("%s says the project was reused %d times, want once:\n%s", name, got, out)
		}
	}
	var all bytes.Buffer
	all.WriteString("== markdown\n")
	all.Write(md.Bytes())
	all.WriteString("== text\n")
	all.Write(text.Bytes())
	golden(t, all.Bytes())
}
