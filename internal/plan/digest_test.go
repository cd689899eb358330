package plan

import (
	"os"
	"strings"
	"testing"
)

// The digest is of what a reviewer reads: the same changes planned at another time by
// another terraform have the same digest; another value or another output does not.
func TestDigest(t *testing.T) {
	raw, err := os.ReadFile("testdata/outputs-changed-1.5.7.json")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	digest := func(s string) string {
		t.Helper()
		d, err := Digest([]byte(s), "")
		if err != nil {
			t.Fatal(err)
		}
		if len(d) != 64 {
			t.Fatalf("digest %q is not a sha256", d)
		}
		return d
	}
	base := digest(doc)
	same := strings.NewReplacer(`"timestamp":"2026-11-29T17:51:08Z"`, `"timestamp":"2027-01-02T03:04:05Z"`,
		`"terraform_version":"1.5.7"`, `"terraform_version":"1.5.8"`).Replace(doc)
	if got := digest(same); got != base {
		t.Errorf("another time and version: digest %s, want %s", got, base)
	}
	for name, edit := range map[string]*strings.Replacer{
		"another value":  strings.NewReplacer(`"before":"x","after":"y"`, `"before":"x","after":"w"`),
		"another action": strings.NewReplacer(`"o":{"actions":["no-op"],"before":"n","after":"n"`, `"o":{"actions":["update"],"before":"m","after":"n"`),
	} {
		if got := digest(edit.Replace(doc)); got == base {
			t.Errorf("%s: the digest did not change", name)
		}
	}
}

// A value longer than the comment shows changes the digest where the comment's excerpt
// would not.
func TestDigestWholeValues(t *testing.T) {
	long := strings.Repeat("a", 2*DefaultMaxValueLen)
	doc := `{"format_version":"1.2","terraform_version":"1.5.7","output_changes":{"q":{"actions":["create"],"before":null,"after":"` +
		long + `X","after_unknown":false,"before_sensitive":false,"after_sensitive":false}}}`
	a, err := Digest([]byte(doc), "")
	if err != nil {
		t.Fatal(err)
	}
	b, err := Digest([]byte(strings.Replace(doc, long+"X", long+"Y", 1)), "")
	if err != nil {
		t.Fatal(err)
	}
	if a == b {
		t.Error("a change past the shown length did not change the digest")
	}
}

// With a key the digest is keyed: another key, another digest; none, the plain sha256.
func TestDigestKeyed(t *testing.T) {
	raw, err := os.ReadFile("testdata/outputs-changed-1.5.7.json")
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := Digest(raw, "")
	k1, _ := Digest(raw, "correct-horse-battery-staple-42")
	k1again, _ := Digest(raw, "correct-horse-battery-staple-42")
	k2, _ := Digest(raw, "another-passphrase-of-16")
	if k1 != k1again || k1 == plain || k1 == k2 || len(k1) != 64 {
		t.Errorf("plain %s, key 1 %s and %s, key 2 %s", plain, k1, k1again, k2)
	}
}
