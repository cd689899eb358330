package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/tfgate/tfgate/internal/golden"
)

// commands are tfgate's commands, the root first, as newRootCmd builds them.
func commands() []*cobra.Command {
	var all []*cobra.Command
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		all = append(all, c)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCmd(newApp(nil, nil, nil, nil, nil, nil)))
	return all
}

// flagLine is a flag in help: the flag, then what pflag writes after its name up to the
// two spaces before its description (the placeholder, or a [=value]).
var flagLine = regexp.MustCompile(`^ +(?:-\S, )?--[a-z0-9-]+(\S*)(?: (\S.*?))?  +\S`)

// noun is what a placeholder must be: a word (or hyphenated words) naming what the flag
// takes — dir, file, ref, duration — never a command line copied from its description.
var noun = regexp.MustCompile(`^[a-z]+(-[a-z]+)*$`)

// TestHelp renders every command's help (go test ./internal/cli -run TestHelp -update
// rewrites testdata/help/) and holds what makes it read like a Go CLI's: placeholders
// that are nouns, switches without [=true|false], and an Examples section whose command
// lines tfgate accepts.
func TestHelp(t *testing.T) {
	for _, c := range commands() {
		path := strings.Fields(c.CommandPath())
		t.Run(strings.Join(path, "_"), func(t *testing.T) {
			code, out, stderr := run(t, nil, append(path[1:], "--help")...)
			if code != ExitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			golden.Check(t, filepath.Join("testdata", "help", strings.Join(path, "_")+".golden"), []byte(out))
			for _, problem := range helpProblems(out) {
				t.Error(problem)
			}
			if !strings.Contains(out, "\nExamples:\n") {
				t.Error("no Examples section")
			}
			for _, line := range exampleCommands(c.Example) {
				if err := acceptsExample(line); err != nil {
					t.Errorf("example %q: %v", line, err)
				}
			}
		})
	}
}

// helpProblems are the flag lines of a help text whose placeholder is not a noun or
// that show a switch as taking a value.
func helpProblems(help string) []string {
	var problems []string
	for _, line := range strings.Split(help, "\n") {
		m := flagLine.FindStringSubmatch(line)
		switch {
		case m == nil:
		case m[1] != "":
			problems = append(problems, "a switch shown as taking a value: "+line)
		case m[2] != "" && !noun.MatchString(m[2]):
			problems = append(problems, "a placeholder that is not a noun: "+line)
		}
	}
	return problems
}

func TestHelpProblems(t *testing.T) {
	bad := `Flags:
      --all[=true|false]   plan every project
      --out tfgate publish   write bundles for tfgate publish
      --matrix FILE   the projects expected
`
	good := `Flags:
  -C, --chdir dir             the repository root
      --all                   plan every project
      --lock-timeout duration  how long (default 5m0s)
      --unsaved-state-dir dir  where
`
	if got := helpProblems(bad); len(got) != 3 {
		t.Errorf("helpProblems(bad) = %q, want 3 problems", got)
	}
	if got := helpProblems(good); len(got) != 0 {
		t.Errorf("helpProblems(good) = %q, want none", got)
	}
}

// exampleCommands are the tfgate command lines of an Examples section: each line's
// tfgate part (after a pipe), up to a redirection.
func exampleCommands(example string) []string {
	var lines []string
	for _, line := range strings.Split(example, "\n") {
		for _, part := range strings.Split(line, "|") {
			part, _, _ = strings.Cut(strings.TrimSpace(part), ">")
			if strings.HasPrefix(part, "tfgate ") {
				lines = append(lines, strings.TrimSpace(part))
			}
		}
	}
	return lines
}

// acceptsExample parses an example command line as tfgate would, without running it: the
// command exists, its flags and their values parse, and its arguments are as many as it takes.
func acceptsExample(line string) error {
	root := newRootCmd(newApp(nil, nil, nil, nil, nil, nil))
	words := shellWords(strings.TrimPrefix(line, "tfgate "))
	cmd, args, err := root.Find(words)
	if err != nil {
		return err
	}
	if err := cmd.ParseFlags(args); err != nil {
		return err
	}
	return cmd.ValidateArgs(cmd.Flags().Args())
}

// shellWords splits a command line at spaces outside double quotes, as the examples'
// shell would.
func shellWords(s string) []string {
	var words []string
	for i, part := range strings.Split(s, `"`) {
		if i%2 == 1 {
			words = append(words, part)
			continue
		}
		words = append(words, strings.Fields(part)...)
	}
	return words
}

func TestCompletion(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"app", "network"} {
		if err := os.MkdirAll(filepath.Join(dir, p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p, "main.tf"), []byte("terraform {}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"plan", "--format", ""}, "text\nmarkdown\njson\n:4\n"},
		{[]string{"apply", "--publish", ""}, "auto\ngithub\nnone\n:4\n"},
		{[]string{"notify-stale", "--publish", ""}, "auto\ngithub\n:4\n"},
		{[]string{"projects", "--format", "m"}, "table\njson\nmatrix\nmermaid\ndot\n:4\n"}, // the shell filters
		{[]string{"-C", dir, "plan", ""}, "app\nnetwork\n:4\n"},
		{[]string{"-C", dir, "drift", "app", ""}, "network\n:4\n"},
		{[]string{"-C", dir, "recover", "n"}, "network\n:4\n"},
		{[]string{"-C", filepath.Join(dir, "nope"), "plan", ""}, ":1\n"},
	}
	for _, tt := range tests {
		code, out, stderr := run(t, nil, append([]string{"__complete"}, tt.args...)...)
		if code != ExitOK || out != tt.want {
			t.Errorf("tfgate __complete %q: exit %d, stdout %q, want %q (stderr %s)", tt.args, code, out, tt.want, stderr)
		}
	}
}

func TestVersionFlag(t *testing.T) {
	_, flag, _ := run(t, nil, "--version")
	_, command, _ := run(t, nil, "version")
	if flag != command || !strings.HasPrefix(flag, "tfgate ") {
		t.Errorf("tfgate --version = %q, tfgate version = %q: want the same line", flag, command)
	}
}
