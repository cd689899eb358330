package cli

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/tfgate/tfgate/internal/golden"
)

// cliDocs is where the command-line reference lives, generated from the commands.
var cliDocs = filepath.Join("..", "..", "docs", "cli")

// TestCLIReference keeps docs/cli current: one page per command, generated from the cobra
// commands themselves (go test ./internal/cli -run TestCLIReference -update rewrites it).
func TestCLIReference(t *testing.T) {
	root := newRootCmd(newApp(nil, nil, nil, nil, nil, nil))
	root.DisableAutoGenTag = true // no date: the pages change only when the commands do
	showSwitches(root)
	dir := t.TempDir()
	if err := doc.GenMarkdownTree(root, dir); err != nil {
		t.Fatal(err)
	}
	generated, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range generated {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		golden.Check(t, filepath.Join(cliDocs, e.Name()), data)
		names = append(names, e.Name())
	}
	committed, err := os.ReadDir(cliDocs)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range committed {
		if !slices.Contains(names, e.Name()) {
			t.Errorf("docs/cli/%s documents no command: remove it", e.Name())
		}
	}
}

// showSwitches has the boolean flags of cmd and its subcommands written as switches
// (showAsSwitch), as help writes them: cobra/doc writes flags with pflag's FlagUsages.
func showSwitches(cmd *cobra.Command) {
	cmd.InitDefaultHelpFlag()
	cmd.Flags().VisitAll(showAsSwitch)
	cmd.PersistentFlags().VisitAll(showAsSwitch)
	for _, sub := range cmd.Commands() {
		showSwitches(sub)
	}
}
