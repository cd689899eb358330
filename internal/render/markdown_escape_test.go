package render

import (
	"fmt"
	"strings"
	"testing"
)

func TestMdText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain words", "plain words"},
		{"<details>", "&lt;details&gt;"},
		{"</details><!-- x -->", "&lt;/details&gt;&lt;\\!\\-\\- x \\-\\-&gt;"},
		{"a & b", "a &amp; b"},
		{"@octocat", "\\@" + zwj + "octocat"},
		{"mail a@b.c", "mail a\\@" + zwj + "b\\.c"},
		{"@ alone", "\\@ alone"},
		{"#123 and #x", "\\#" + zwj + "123 and \\#" + zwj + "x"},
		{"[x](javascript:y)", "\\[x\\]\\(javascript\\:y\\)"},
		{"**b** _i_ `c`", "\\*\\*b\\*\\* \\_i\\_ \\`c\\`"},
		{"a|b", "a\\|b"},
		{"\x1b[31m\n", "\\\\x1b\\[31m\\\\n"},
		{"\u202e", "\\\\u202e"},
	}
	for _, tt := range tests {
		if got := mdText(tt.in); got != tt.want {
			t.Errorf("mdText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestMdCode(t *testing.T) {
	tests := []struct{ in, want string }{
		{"envs/app", "`envs/app`"},
		{"", "` `"},
		{"a`b", "``a`b``"},
		{"`x`", "`` `x` ``"},
		{"a ``` b", "````a ``` b````"},
		{" lead", "`  lead `"}, // one space each side is stripped by the reader
		{"new\nline", "`new\\nline`"},
	}
	for _, tt := range tests {
		if got := mdCode(tt.in); got != tt.want {
			t.Errorf("mdCode(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestCodeFence(t *testing.T) {
	if f := codeFence([]string{"no ticks"}); f != "```" {
		t.Errorf("fence %q", f)
	}
	if f := codeFence([]string{"a", "`````", "b ```` c"}); f != "``````" {
		t.Errorf("fence %q", f)
	}
}

// Multi-line text stays in one list item: hard breaks, indented, blank lines dropped.
func TestMdLines(t *testing.T) {
	got := mdLines("first\n\n  > second\r\n- third", "  ")
	want := "first\\\n  &gt; second\\\n  \\- third"
	if got != want {
		t.Errorf("mdLines = %q, want %q", got, want)
	}
}

func TestSafeURL(t *testing.T) {
	for u, ok := range map[string]bool{
		"https://github.com/o/r/actions/runs/1": true,
		"http://ghe.local/o/r":                  true,
		"javascript:alert(1)":                   false,
		"https://x/a)b":                         false,
		"https://x/a b":                         false,
		"https://x/\"onmouseover":               false,
		"":                                      false,
		"https:///nohost":                       false,
	} {
		if got := safeURL(u) != ""; got != ok {
			t.Errorf("safeURL(%q) kept = %v, want %v", u, got, ok)
		}
	}
	opts := MarkdownOptions{RunURL: "javascript:alert(1)", Version: "v1"}
	if f := mdFooter(opts); strings.Contains(f, "javascript") {
		t.Errorf("footer links an unsafe URL: %s", f)
	}
}

// mdLogins names ten approvers at most and counts the rest, each mention still broken.
func TestMDLoginsClipsTheList(t *testing.T) {
	var logins []string
	for i := range 12 {
		logins = append(logins, fmt.Sprintf("user%d", i))
	}
	got := mdLogins(logins)
	if !strings.HasSuffix(got, "user9 and 2 more") || strings.Contains(got, "user10") || strings.Count(got, ", ") != 9 {
		t.Errorf("mdLogins(12 logins) = %q", got)
	}
	if got := mdLogins(logins[:2]); strings.Contains(got, "more") {
		t.Errorf("mdLogins(2 logins) = %q", got)
	}
}
