package english

import (
	"testing"
	"unicode/utf8"
)

func TestPlural(t *testing.T) {
	tests := []struct {
		n    int
		want string
	}{{0, "0 projects"}, {1, "1 project"}, {2, "2 projects"}, {-1, "-1 projects"}}
	for _, tt := range tests {
		if got := Plural(tt.n, "project", "projects"); got != tt.want {
			t.Errorf("Plural(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

func TestAgree(t *testing.T) {
	for n, want := range map[int]string{0: "belong", 1: "belongs", 2: "belong", -1: "belong"} {
		if got := Agree(n, "belongs", "belong"); got != want {
			t.Errorf("Agree(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestCount(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -1000: "-1000"} {
		if got := Count(n); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
	if got := Plural(10000, "project", "projects"); got != "10,000 projects" {
		t.Errorf("Plural(10000) = %q", got)
	}
}

func TestClip(t *testing.T) {
	tests := []struct {
		s    string
		max  int
		want string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"eleven char", 10, "eleven ch…"},
		{"ééééé", 3, "éé…"}, // never splits a character: bytes would cut é in half
		{"日本語テキスト", 4, "日本語…"},
		{"x", 0, ""},
		{"xy", 1, "…"},
	}
	for _, tt := range tests {
		got := Clip(tt.s, tt.max)
		if got != tt.want || !utf8.ValidString(got) {
			t.Errorf("Clip(%q, %d) = %q, want %q", tt.s, tt.max, got, tt.want)
		}
	}
}

func TestShortSHA(t *testing.T) {
	for in, want := range map[string]string{
		"":         "",
		"abc":      "abc",
		"abcdef01": "abcdef0",
		"0123456789abcdef0123456789abcdef01234567": "0123456",
		"ééééééééé":                                "ééééééé",
	} {
		if got := ShortSHA(in); got != want {
			t.Errorf("ShortSHA(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestClipList(t *testing.T) {
	tests := []struct {
		items []string
		max   int
		want  string
	}{
		{nil, 3, ""},
		{[]string{"a"}, 3, "a"},
		{[]string{"a", "b", "c"}, 3, "a, b, c"},
		{[]string{"a", "b", "c", "d"}, 3, "a, b, c and 1 more"},
		{[]string{"a", "b", "c", "d", "e"}, 1, "a and 4 more"},
	}
	for _, tt := range tests {
		if got := ClipList(tt.items, tt.max); got != tt.want {
			t.Errorf("ClipList(%q, %d) = %q, want %q", tt.items, tt.max, got, tt.want)
		}
	}
}
