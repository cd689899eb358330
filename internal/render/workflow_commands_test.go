package render

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// runnerReadsCommand reports whether the Actions runner could read line as a workflow
// command, judged apart from the guard's own code: as ActionCommand.TryParseV2 (after
// TrimStart, a line starting with "::") and TryParse ("##[" anywhere) read it, once every
// character a culture-sensitive comparison may skip and every ANSI sequence is removed.
func runnerReadsCommand(line string) bool {
	line = ansiCSI.ReplaceAllString(line, "")
	s := strings.Map(func(r rune) rune {
		if unicode.In(r, unicode.Cc, unicode.Cf, unicode.Mn, unicode.Me) || unicode.Is(unicode.Variation_Selector, r) {
			return -1
		}
		return r
	}, line)
	s = strings.TrimLeftFunc(s, unicode.IsSpace)
	return strings.HasPrefix(s, "::") || strings.Contains(s, "##[")
}

var ansiCSI = regexp.MustCompile("\x1b\\[[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]")

// outputLines splits what a step printed into the lines the runner reads (LF, CR, CRLF).
func outputLines(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' })
}

func TestNeutralizeCommands(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"::stop-commands::x  planning…", `\u003a:stop-commands::x  planning…`},
		{"  ::set-output name=x::y", `  \u003a:set-output name=x::y`},
		{"\t::add-mask::s3cret", "\t" + `\u003a:add-mask::s3cret`},
		{"\u200b::error::forged", "\u200b" + `\u003a:error::forged`},
		{"\u00a0\u2003::warning::w", "\u00a0\u2003" + `\u003a:warning::w`},
		{":\u200d:debug::d", `\u003a` + "\u200d:debug::d"},
		{"\x1b[1m::error::bold", "\x1b[1m" + `\u003a:error::bold`},
		{"\ufeff::group::g", "\ufeff" + `\u003a:group::g`},
		{"envs/x ##[error]boom", `envs/x ##\u005berror]boom`},
		{"##[set-output name=a]b ##[warning]c", `##\u005bset-output name=a]b ##\u005bwarning]c`},
		{"#\u200b#[error]x", "#\u200b#" + `\u005berror]x`},
		{"  ::x ##[y", `  \u003a:x ##\u005by`},
		// Not commands: unchanged, byte for byte.
		{"", ""},
		{"tfgate: plan app: exit status 1", "tfgate: plan app: exit status 1"},
		{`  ~ cidr = "::/0" → "fe80::1"`, `  ~ cidr = "::/0" → "fe80::1"`},
		{"a::b", "a::b"},
		{": :x", ": :x"},
		{"# heading ## [x]", "# heading ## [x]"},
		{"##", "##"},
		{"::", `\u003a:`},
	} {
		got := NeutralizeCommands(tt.in)
		if got != tt.want {
			t.Errorf("NeutralizeCommands(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if runnerReadsCommand(got) {
			t.Errorf("NeutralizeCommands(%q) = %q: still a command", tt.in, got)
		}
		if IsWorkflowCommand(tt.in) != (tt.in != tt.want) || runnerReadsCommand(tt.in) != (tt.in != tt.want) {
			t.Errorf("IsWorkflowCommand(%q) = %v, the runner's reading %v", tt.in, IsWorkflowCommand(tt.in), runnerReadsCommand(tt.in))
		}
		if again := NeutralizeCommands(got); again != got {
			t.Errorf("not idempotent: %q → %q", got, again)
		}
	}
}

// The guard neutralises lines however the text is cut into writes (a project name at the
// start of one write, "::" at the end of the one before), and passes tfgate's own
// commands unchanged without breaking a held-back line.
func TestCommandGuard(t *testing.T) {
	in := "::stop-commands::x  planning…\n" +
		"envs/ok  planned ##[error]x\r\n" +
		"\r::set-output name=a::b\n" +
		"  ~ ipv6 = \"::/0\"\n" +
		"#" + "#[warning]split\n" +
		"partial ::"
	want := `\u003a:stop-commands::x  planning…` + "\n" +
		`envs/ok  planned ##\u005berror]x` + "\r\n" +
		"\r" + `\u003a:set-output name=a::b` + "\n" +
		"  ~ ipv6 = \"::/0\"\n" +
		`##\u005bwarning]split` + "\n" +
		"partial ::"
	for size := 1; size <= len(in); size++ {
		var out bytes.Buffer
		g := GuardCommands(&out)
		for i := 0; i < len(in); i += size {
			if _, err := g.Write([]byte(in[i:min(len(in), i+size)])); err != nil {
				t.Fatal(err)
			}
		}
		if err := g.Flush(); err != nil {
			t.Fatal(err)
		}
		if out.String() != want {
			t.Fatalf("writes of %d bytes:\n%q\nwant\n%q", size, out.String(), want)
		}
		for _, l := range outputLines(out.String()) {
			if runnerReadsCommand(l) {
				t.Fatalf("writes of %d bytes: %q reaches the runner", size, l)
			}
		}
	}

	var out bytes.Buffer
	g := GuardCommands(&out)
	io := func(w interface{ Write([]byte) (int, error) }, s string) {
		if _, err := w.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	io(g, "::held ")
	io(Commands(g), WorkflowCommand(Annotation{Level: AnnotationError, Title: "policy p denies ::x", Message: "##[error]y\n::z"})+"\n")
	io(g, "back\n")
	want = "::error title=policy p denies %3A%3Ax::" + `##\u005berror]y` + "%0A::z\n" + `\u003a:held back` + "\n"
	if out.String() != want {
		t.Fatalf("commands:\n%q\nwant\n%q", out.String(), want)
	}
	if Commands(&out) != &out {
		t.Fatal("Commands of an unguarded writer is not the writer")
	}
}

// Without hostile text the guard changes nothing: every golden file (tfgate's text,
// markdown and JSON renderings) passes byte-identical.
func TestCommandGuardPassesGoldens(t *testing.T) {
	files, err := filepath.Glob("testdata/*.golden")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	for _, f := range files {
		if strings.HasPrefix(filepath.Base(f), "TestAnnotations") {
			continue // tfgate's own commands, which take CommandGuard.Commands
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		g := GuardCommands(&out)
		g.Write(data)
		g.Flush()
		if !bytes.Equal(out.Bytes(), data) {
			t.Errorf("%s: the guard changed it", f)
		}
	}
}

// FuzzCommandGuard: whatever tfgate prints, cut into writes anyhow, no line reaches the
// runner as a command, a line holding none is unchanged, and the cut does not matter.
func FuzzCommandGuard(f *testing.F) {
	for _, s := range []string{"::stop-commands::x\n", " \u200b::error::x\r\n##[warning]y", "#\u200d#[a]\n::", "\x1b[2K::x\rfe80::1\n", "a ##[b ##[c\n"} {
		f.Add(s, uint8(1))
		f.Add(s, uint8(7))
	}
	f.Fuzz(func(t *testing.T, text string, cut uint8) {
		whole := guardAll(text, len(text)+1)
		if got := guardAll(text, 1+int(cut)); got != whole {
			t.Fatalf("writes of %d bytes give %q, one write %q", 1+int(cut), got, whole)
		}
		in, out := outputLines(text), outputLines(whole)
		if len(in) != len(out) {
			t.Fatalf("%d lines became %d: %q → %q", len(in), len(out), text, whole)
		}
		for i, l := range out {
			if runnerReadsCommand(l) {
				t.Fatalf("the runner reads a command in %q (from %q)", l, in[i])
			}
			if !runnerReadsCommand(in[i]) && l != in[i] {
				t.Fatalf("%q changed to %q", in[i], l)
			}
		}
	})
}

func guardAll(text string, size int) string {
	var out bytes.Buffer
	g := GuardCommands(&out)
	for i := 0; i < len(text); i += size {
		g.Write([]byte(text[i:min(len(text), i+size)]))
	}
	g.Flush()
	return out.String()
}
