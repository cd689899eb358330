package cli

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Version, Commit and Date are stamped at build time (goreleaser and the Action do):
//
//	-ldflags "-X github.com/tfgate/tfgate/internal/cli.Version=v1.2.3
//	          -X github.com/tfgate/tfgate/internal/cli.Commit=<sha>
//	          -X github.com/tfgate/tfgate/internal/cli.Date=2026-01-02T03:04:05Z"
//
// Unstamped, they come from the module's build info (`go install …@v1.2.3` records the
// version, a build in a git checkout the commit and its time).
var (
	Version = ""
	Commit  = ""
	Date    = ""
)

// buildInfo is what `tfgate version` reports.
type buildInfo struct {
	Version string `json:"version"`
	Commit  string `json:"commit"`
	Date    string `json:"date"`
	Go      string `json:"go"`
	OS      string `json:"os"`
	Arch    string `json:"arch"`
}

func currentBuild() buildInfo {
	b := buildInfo{Version: Version, Commit: Commit, Date: Date,
		Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if b.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			b.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch {
			case s.Key == "vcs.revision" && b.Commit == "":
				b.Commit = s.Value
			case s.Key == "vcs.time" && b.Date == "":
				b.Date = s.Value
			}
		}
	}
	if b.Version == "" {
		b.Version = "dev"
	}
	return b
}

func version() string { return currentBuild().Version }

// line is the version as tfgate version (and tfgate --version) writes it. The first words
// stay "tfgate <version>": scripts read them.
func (b buildInfo) line() string {
	line := fmt.Sprintf("tfgate %s (%s, %s/%s", b.Version, b.Go, b.OS, b.Arch)
	if b.Commit != "" {
		line += ", commit " + b.Commit
	}
	if b.Date != "" {
		line += ", built " + b.Date
	}
	return line + ")"
}

func newVersionCmd(a *app) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print tfgate's version",
		Example: `  tfgate version
  tfgate version --format json
  tfgate --version`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := oneOf("--format", format, dataFormats...); err != nil {
				return err
			}
			b := currentBuild()
			if format == "json" {
				enc := json.NewEncoder(a.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(b)
			}
			_, err := fmt.Fprintln(a.stdout, b.line())
			return err
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or json")
	completeValues(cmd, "format", dataFormats)
	return cmd
}
