package cli

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/tfgate/tfgate/internal/policy"
	"github.com/tfgate/tfgate/internal/render"
	"github.com/tfgate/tfgate/internal/stage"
)

func newPolicyCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "policy",
		Short: "Test and evaluate Rego policies",
		Example: `  tfgate policy test
  tfgate policy eval plan.json`,
	}
	cmd.AddCommand(newPolicyTestCmd(a), newPolicyEvalCmd(a))
	return cmd
}

type policyTestOptions struct {
	Dir     string
	Verbose bool
}

func newPolicyTestCmd(a *app) *cobra.Command {
	var opts policyTestOptions
	cmd := &cobra.Command{
		Use:   "test [DIR]",
		Short: "Run the policies' Rego unit tests (test_* rules), like `opa test`",
		Example: `  tfgate policy test
  tfgate policy test policies --verbose`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Dir = args[0]
			}
			src, err := a.policySource(cmd, opts.Dir)
			if err != nil {
				return err
			}
			passed, failed, err := policy.Test(cmd.Context(), src, a.stdout, opts.Verbose)
			if err != nil {
				return err
			}
			if failed > 0 {
				return fmt.Errorf("%d of %d policy tests failed", failed, passed+failed)
			}
			return nil
		},
	}
	cmd.Flags().BoolVarP(&opts.Verbose, "verbose", "v", false, "list every test, not only failures")
	return cmd
}

type policyEvalOptions struct {
	PlanFile string
	Policies string
	Format   string
	Project  string
}

func newPolicyEvalCmd(a *app) *cobra.Command {
	var opts policyEvalOptions
	cmd := &cobra.Command{
		Use:   "eval PLAN_JSON",
		Short: "Evaluate a `terraform show -json` plan against the policies",
		Example: `  terraform show -json plan.tfplan > plan.json
  tfgate policy eval plan.json
  tfgate policy eval plan.json --project envs/prod/app --format json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.PlanFile = args[0]
			return runPolicyEval(cmd, a, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Policies, "policies", "", "policy `dir` (default: the config's policies.paths, or policies/)")
	cmd.Flags().StringVar(&opts.Format, "format", "text", "output format: text or json")
	cmd.Flags().StringVar(&opts.Project, "project", "", "project name given to policies as data.tfgate.project.name")
	completeValues(cmd, "format", dataFormats)
	return cmd
}

func runPolicyEval(cmd *cobra.Command, a *app, opts policyEvalOptions) error {
	if err := oneOf("--format", opts.Format, dataFormats...); err != nil {
		return err
	}
	src, err := a.policySource(cmd, opts.Policies)
	if err != nil {
		return err
	}
	in, err := openInput(cmd.InOrStdin(), opts.PlanFile, true)
	if err != nil {
		return fmt.Errorf("read plan: %w", err)
	}
	defer in.close() // after the result is written: nothing holds the plan's text then
	defer a.oneShotGC()()
	name := opts.Project
	if name == "" {
		name = filepath.Base(opts.PlanFile)
	}
	eval := stage.EvalOptions{Source: src, Plan: in.data, Release: in.release, PlanName: opts.PlanFile,
		Project: name, Masker: a.masker, Print: a.printWriter()}
	res, err := stage.EvalPlan(cmd.Context(), eval)
	if err != nil && in.release != nil {
		// A plan that fails to decode is read again whole for the error's message, and
		// parts of the mapped one are gone: judge the file read into memory, as without
		// the mapping, for the same refusal with its right message.
		if eval.Plan, err = readInput(cmd.InOrStdin(), opts.PlanFile); err == nil {
			eval.Release = nil
			res, err = stage.EvalPlan(cmd.Context(), eval)
		}
	}
	if err != nil {
		return err
	}
	if opts.Format == "json" {
		err = render.PolicyJSON(a.stdout, res)
	} else {
		err = render.PolicyText(a.stdout, res, render.TextOptions{Color: a.color(a.rawOut), Width: a.width(a.rawOut)})
	}
	if err != nil {
		return err
	}
	if res.Denied() {
		return withCode(ExitPolicyDenied, fmt.Errorf("%s: denied by policy", opts.PlanFile))
	}
	return nil
}

// policySource is DIR when given (relative to the working directory), else the policies of
// the repository's working tree (config paths, or policies/).
func (a *app) policySource(cmd *cobra.Command, dir string) (policy.Source, error) {
	if dir != "" {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return policy.Source{}, err
		}
		if st, err := os.Stat(abs); err != nil {
			return policy.Source{}, fmt.Errorf("policy directory %s: %w", dir, err)
		} else if !st.IsDir() {
			return policy.Source{}, fmt.Errorf("policy directory %s: not a directory", dir)
		}
		return policy.Source{FS: os.DirFS(abs), Paths: []string{"."}, Name: dir}, nil
	}
	ctx := cmd.Context()
	root, cfg, err := a.repository(ctx)
	if err != nil {
		return policy.Source{}, err
	}
	pols, err := stage.WorktreePolicyPaths(root, cfg)
	if err != nil {
		return policy.Source{}, err
	}
	return policy.Source{FS: os.DirFS(root), Paths: pols}, nil
}

// printWriter receives print() output of policies: shown with --log-level debug.
func (a *app) printWriter() io.Writer {
	if a.level <= slog.LevelDebug {
		return a.stderr
	}
	return nil
}
