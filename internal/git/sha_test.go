package git

import "testing"

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
