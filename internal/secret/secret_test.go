package secret

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestFromEnv(t *testing.T) {
	env := []string{"GITHUB_TOKEN=ghp_abcdefgh", "HOME=/root", "DB_PASSWORD=hunter22", "AWS_SECRET_ACCESS_KEY=xyz12345", "PATH=/bin", "TF_VAR_region=eu-west-1"}
	got := strings.Join(FromEnv(env), ",")
	want := "ghp_abcdefgh,hunter22,xyz12345"
	if got != want {
		t.Fatalf("FromEnv = %q, want %q", got, want)
	}
}

func TestMaskerString(t *testing.T) {
	m := NewMasker([]string{"hunter22", "abc", "hunter22-long-form"})
	tests := []struct{ in, want string }{
		{"password is hunter22.", "password is (masked)."},
		{"hunter22-long-form", "(masked)"},
		{"abc is too short to mask", "abc is too short to mask"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := m.String(tt.in); got != tt.want {
			t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestWriterSplitAcrossWrites(t *testing.T) {
	var out bytes.Buffer
	w := NewMasker([]string{"supersecret"}).Writer(&out)
	for _, chunk := range []string{"value: super", "secret\nnext ", "line supersec", "ret"} {
		if _, err := w.Write([]byte(chunk)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "value: (masked)\nnext line (masked)"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestWriterNoSecretsPassesThrough(t *testing.T) {
	var out bytes.Buffer
	w := NewMasker(nil).Writer(&out)
	w.Write([]byte("partial"))
	if out.String() != "partial" {
		t.Fatalf("without secrets the writer must not buffer, got %q", out.String())
	}
}

func TestMaskerEscapedForms(t *testing.T) {
	secret := "quote\"secret\tvalue\nline ü"
	m := NewMasker([]string{secret})
	for _, text := range []string{
		"raw: " + secret,
		`terraform: var.x is "quote\"secret\tvalue\nline ü"`,
		`json: {"error": "var.x is \"quote\\\"secret\\tvalue\\nline ü\""}`,
	} {
		if got := m.String(text); strings.Contains(got, "secret") {
			t.Errorf("String(%q) = %q: the secret survived", text, got)
		}
	}
}

func TestWriterMasksMultiLineSecretWrittenLineByLine(t *testing.T) {
	key := "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj\n-----END PRIVATE KEY-----"
	var out bytes.Buffer
	w := NewMasker([]string{key}).Writer(&out)
	for _, line := range strings.Split(key, "\n") {
		w.Write([]byte(line + "\n"))
	}
	w.Flush()
	if strings.Contains(out.String(), "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC") || strings.Contains(out.String(), "BKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj") {
		t.Fatalf("key lines leaked:\n%s", out.String())
	}
}

func TestWithKnownValuesHaveALowerFloor(t *testing.T) {
	env := NewMasker([]string{"pin1", "guessed-long"})
	m := env.With("pin2", "abc")
	tests := []struct{ in, want string }{
		{"pin1 is a guess, too short to mask", "pin1 is a guess, too short to mask"},
		{"pin2 is known sensitive", "(masked) is known sensitive"},
		{"abc is shorter than any floor", "abc is shorter than any floor"},
		{"guessed-long", "(masked)"},
	}
	for _, tt := range tests {
		if got := m.String(tt.in); got != tt.want {
			t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := env.String("pin2"); got != "pin2" {
		t.Errorf("With must not change the masker it derives from: %q", got)
	}
	var none *Masker
	if got := none.With("secret-x").String("a secret-x b"); got != "a (masked) b" {
		t.Errorf("nil masker With = %q", got)
	}
}

func TestValueMasksKeysAndNestedStrings(t *testing.T) {
	m := NewMasker(nil).With("hunter2")
	got := m.Value(map[string]any{"hunter2": []any{"x hunter2", 3.5, map[string]any{"k": "hunter2"}}})
	b, _ := json.Marshal(got)
	if strings.Contains(string(b), "hunter2") {
		t.Fatalf("Value left a secret: %s", b)
	}
}

func TestMaskerEncodedSpellings(t *testing.T) {
	secret := "Kéy-🔑-pass<&>"
	m := NewMasker(nil).With(secret)
	for name, text := range map[string]string{
		"yaml":       `pw: "Kéy-\U0001F511-pass<&>"`,
		"go ascii":   `"K\u00e9y-\U0001f511-pass<&>"`,
		"json html":  `"Kéy-🔑-pass\u003c\u0026\u003e"`,
		"query":      "pw=K%C3%A9y-%F0%9F%94%91-pass%3C%26%3E",
		"path":       "/K%C3%A9y-%F0%9F%94%91-pass%3C&%3E",
		"bytes":      `K\xc3\xa9y-\xf0\x9f\x94\x91-pass<&>`,
		"json(yaml)": `{"m":"pw: \"Kéy-\\U0001F511-pass<&>\""}`,
	} {
		if got := m.String(text); strings.Contains(got, "pass") {
			t.Errorf("%s: %q survived as %q", name, text, got)
		}
	}
}

func TestMaskerMultiLineSecretLineByLineEscaped(t *testing.T) {
	m := NewMasker(nil).With("first-line-secret\nsecond \"line\" secret")
	got := m.String(`yaml: |-` + "\n  first-line-secret\n" + `json: "second \"line\" secret"`)
	if strings.Contains(got, "secret") {
		t.Fatalf("a line of a multi-line secret survived: %q", got)
	}
}

func TestMaskerNumbers(t *testing.T) {
	m := NewMasker(nil).With("3.14159265358979323846", "0.000001234567", "12345678901234567890")
	for _, text := range []string{"3.141592653589793", "1.234567e-06", "1.2345678901234567e+19", "12345678901234567000"} {
		if got := m.String("n=" + text); got != "n=(masked)" {
			t.Errorf("String(%q) = %q", text, got)
		}
	}
	got := m.Value(map[string]any{"a": json.Number("3.141592653589793"), "b": 1.234567e-06, "c": 42, "d": json.Number("7")})
	want := map[string]any{"a": Replacement, "b": Replacement, "c": 42, "d": json.Number("7")}
	if b1, b2 := fmt.Sprint(got), fmt.Sprint(want); b1 != b2 {
		t.Errorf("Value = %v, want %v", b1, b2)
	}
}
