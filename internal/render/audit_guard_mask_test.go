package render

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/tfgate/tfgate/internal/secret"
)

// brokenPipe fails its writes while broken.
type brokenPipe struct {
	broken bool
	out    bytes.Buffer
}

func (b *brokenPipe) Write(p []byte) (int, error) {
	if b.broken {
		return 0, errors.New("broken pipe")
	}
	return b.out.Write(p)
}

// After a failed write the guard holds back what it held before it, as before the speed
// work: not the failed write's lines too (a later write would write them a second time).
func TestGuardAfterFailedWrite(t *testing.T) {
	got, want := &brokenPipe{broken: true}, &brokenPipe{broken: true}
	g, og := GuardCommands(got), oldGuardCommands(want)
	for _, p := range []string{"held ", "one\ntwo "} {
		_, err := g.Write([]byte(p))
		_, oerr := og.Write([]byte(p))
		if (err == nil) != (oerr == nil) {
			t.Fatalf("Write(%q): %v, before %v", p, err, oerr)
		}
	}
	got.broken, want.broken = false, false
	for _, w := range []interface{ Write([]byte) (int, error) }{g, og} {
		if _, err := w.Write([]byte("three\n")); err != nil {
			t.Fatal(err)
		}
	}
	if got.out.String() != want.out.String() {
		t.Errorf("after a failed write, wrote %q, before %q", got.out.String(), want.out.String())
	}
}

// The guard sits above the masking writer (cli.Run): a secret holding what the guard
// neutralises (a `##[`, a leading `::`) reaches the masker rewritten. The masker must still
// mask it: the secret, all but one character, must not be shown.
func TestGuardedSecretMasked(t *testing.T) {
	for _, tc := range []struct{ secret, line string }{
		{"p4ss##[word", "password p4ss##[word here"},
		{"p4ss##[word", "p4ss##[word"},
		{"::s3cret-token", "::s3cret-token"},
		{"::s3cret-token", "  ::s3cret-token and more"},
		{"::s3cret##[two", "::s3cret##[two"},
		{"a##[b##[c", "x a##[b##[c y"},
		{"[s3cret-tail", "a ##[s3cret-tail"},                   // the secret ends a command begun before it
		{"#[s3cret-tail", "a ##[s3cret-tail"},                  //
		{" \u200b::s3cret", " \u200b::s3cret x"},               // invisible characters before its ::
		{"\t::s3cret-tab", "\t::s3cret-tab"},                   //
		{"pass#\u200b#\u200d[word", "pass#\u200b#\u200d[word"}, // ignorable characters inside its ##[
		{`"::quoted-s3cret`, `"::quoted-s3cret`},               // (no command: unchanged, masked)
	} {
		m := secret.NewMasker(nil).With(tc.secret)
		var out bytes.Buffer
		mw := m.Writer(&out)
		g := GuardCommands(mw)
		if _, err := g.Write([]byte(tc.line + "\n")); err != nil {
			t.Fatal(err)
		}
		if err := g.Flush(); err != nil {
			t.Fatal(err)
		}
		if err := mw.Flush(); err != nil {
			t.Fatal(err)
		}
		s := out.String()
		if !strings.Contains(s, secret.Replacement) {
			t.Errorf("secret %q in %q: written as %q, not masked", tc.secret, tc.line, s)
		}
		for _, l := range strings.Split(s, "\n") {
			if IsWorkflowCommand(l) {
				t.Errorf("secret %q in %q: %q reads as a command", tc.secret, tc.line, l)
			}
		}
	}
}

// FuzzGuardedSecretMasked: a secret written on a line through the guard and the masker
// below it is masked, whatever commands it and the text before it hold.
func FuzzGuardedSecretMasked(f *testing.F) {
	f.Add("x ", "p4ss##[word", " y")
	f.Add("", "::s3cret", "")
	f.Add("##", "[s3cret", "")
	f.Add("#", "#\u200b[s3cret", "")
	f.Fuzz(func(t *testing.T, before, s, after string) {
		if len(s) < secret.MinKnown || strings.ContainsAny(before+s+after, "\r\n") || strings.Contains(s, secret.Replacement) {
			return
		}
		m := secret.NewMasker(nil).With(s)
		var out bytes.Buffer
		mw := m.Writer(&out)
		g := GuardCommands(mw)
		g.Write([]byte(before + s + after + "\n"))
		g.Flush()
		mw.Flush()
		if !strings.Contains(out.String(), secret.Replacement) {
			t.Fatalf("secret %q after %q: written as %q", s, before, out.String())
		}
	})
}
