package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// TestReferenceListsEveryCommand keeps docs/reference.md's command synopsis whole: every
// command tfgate has is in it ("tfgate NAME" at the start of a line), with every flag of
// its own (`--flag`), so a new command or flag cannot go undocumented there.
func TestReferenceListsEveryCommand(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "reference.md"))
	if err != nil {
		t.Fatal(err)
	}
	ref := string(data)
	root := newRootCmd(newApp(nil, nil, nil, nil, nil, nil))
	for _, c := range root.Commands() {
		if c.Hidden || c.Name() == "help" || c.Name() == "completion" {
			continue
		}
		names := []string{c.Name()}
		if c.HasSubCommands() {
			names = nil
			for _, sub := range c.Commands() {
				names = append(names, c.Name()+" "+sub.Name())
			}
		}
		for _, name := range names {
			cmd, _, err := root.Find(strings.Fields(name))
			if err != nil {
				t.Fatal(err)
			}
			line := synopsis(ref, "tfgate "+name)
			if line == "" {
				t.Errorf("docs/reference.md: no synopsis line starts with %q", "tfgate "+name)
				continue
			}
			cmd.LocalNonPersistentFlags().VisitAll(func(f *pflag.Flag) {
				if f.Name != "help" && !f.Hidden && !strings.Contains(line, "--"+f.Name) {
					t.Errorf("docs/reference.md: the synopsis of tfgate %s lacks --%s", name, f.Name)
				}
			})
		}
	}
}

// synopsis is the synopsis of cmd in ref: its line and the indented lines that continue it.
func synopsis(ref, cmd string) string {
	lines := strings.Split(ref, "\n")
	for i, l := range lines {
		if l != cmd && !strings.HasPrefix(l, cmd+" ") {
			continue
		}
		s := l
		for _, next := range lines[i+1:] {
			if !strings.HasPrefix(next, "      ") {
				break
			}
			s += "\n" + next
		}
		return s
	}
	return ""
}
