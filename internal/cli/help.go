package cli

import (
	"slices"
	"strings"
	"sync"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/tfgate/tfgate/internal/pipeline"
)

// The values the enumerated flags take: checked by oneOf when a command runs, offered by
// shell completion (completeValues) while the command line is typed.
var (
	reportFormats      = []string{"text", "markdown", "json"} // --format of the commands that report plans
	dataFormats        = []string{"text", "json"}             // --format of the others
	publishModes       = []string{"auto", "github", "none"}   // --publish, --report
	projectsFormats    = []string{"table", "json", "matrix", "mermaid", "dot"}
	notifyPublishModes = []string{"auto", "github"} // notify-stale only reads and dispatches
	replanModes        = []string{pipeline.ReplanAuto, pipeline.ReplanAlways, pipeline.ReplanNever}
)

// switchValue shows a boolean flag as the switch it is. pflag (since v1.1.0) writes a
// boolean flag as --all[=true|false], which reads as if it wanted a value; the type name
// "boolfunc" is the one it writes as a plain --all. Only ever on a copy of the flag shown in
// help (or in the generated reference): cobra reads --help and --version with GetBool, which
// insists on the type "bool".
type switchValue struct{ pflag.Value }

// Type is the type name pflag writes without a placeholder or a [=value].
func (switchValue) Type() string { return "boolfunc" }

// IsBoolFlag keeps the flag a switch: given alone, it is true.
func (switchValue) IsBoolFlag() bool { return true }

// showAsSwitch makes a boolean flag read as a switch in the usage pflag writes.
func showAsSwitch(f *pflag.Flag) {
	if f.Value.Type() == "bool" {
		f.Value = switchValue{f.Value}
	}
}

// flagUsages is pflag's FlagSet.FlagUsages with boolean flags shown as switches, written
// from copies of the flags.
func flagUsages(fs *pflag.FlagSet) string {
	shown := pflag.NewFlagSet("", pflag.ContinueOnError)
	shown.SortFlags = fs.SortFlags
	fs.VisitAll(func(f *pflag.Flag) {
		c := *f
		showAsSwitch(&c)
		shown.AddFlag(&c)
	})
	return strings.TrimRight(shown.FlagUsages(), " \n")
}

// usageTemplate is cobra's, but for the flags, written by flagUsages.
const usageTemplate = `Usage:{{if .Runnable}}
  {{.UseLine}}{{end}}{{if .HasAvailableSubCommands}}
  {{.CommandPath}} [command]{{end}}{{if .HasExample}}

Examples:
{{.Example}}{{end}}{{if .HasAvailableSubCommands}}

Available Commands:{{range .Commands}}{{if (or .IsAvailableCommand (eq .Name "help"))}}
  {{rpad .Name .NamePadding }} {{.Short}}{{end}}{{end}}{{end}}{{if .HasAvailableLocalFlags}}

Flags:
{{flagUsages .LocalFlags}}{{end}}{{if .HasAvailableInheritedFlags}}

Global Flags:
{{flagUsages .InheritedFlags}}{{end}}{{if .HasAvailableSubCommands}}

Use "{{.CommandPath}} [command] --help" for more information about a command.{{end}}
`

// addTemplateFuncs registers flagUsages once: cobra keeps template functions in a global
// map, which commands built concurrently (in tests) must not write at the same time.
var addTemplateFuncs sync.Once

// setUsage gives root (and so every command) the usage above, and the --version flag,
// which prints what tfgate version does.
func setUsage(root *cobra.Command) {
	addTemplateFuncs.Do(func() { cobra.AddTemplateFunc("flagUsages", flagUsages) })
	root.SetUsageTemplate(usageTemplate)
	root.Version = currentBuild().line()
	root.SetVersionTemplate("{{.Version}}\n")
	root.Flags().Bool("version", false, "print tfgate's version, as tfgate version does")
}

// completeValues offers values for flag name of cmd in shell completion.
func completeValues(cmd *cobra.Command, name string, values []string) {
	err := cmd.RegisterFlagCompletionFunc(name, cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp))
	if err != nil {
		panic(err) // a flag that does not exist: a mistake in the command's definition
	}
}

// completeProjects offers the names of the repository's projects (the ones tfgate
// projects lists) not yet on the command line, for commands whose arguments are projects.
func completeProjects(a *app) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		names, err := a.projectNames(cmd.Context())
		if err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		var offered []cobra.Completion
		for _, n := range names {
			if strings.HasPrefix(n, toComplete) && !slices.Contains(args, n) {
				offered = append(offered, n)
			}
		}
		return offered, cobra.ShellCompDirectiveNoFileComp
	}
}
