package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/tfgate/tfgate/internal/render"
	"github.com/tfgate/tfgate/internal/stage"
)

func newRenderCmd(a *app) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "render PLAN_JSON",
		Short: "Render any `terraform show -json` plan (use - for stdin)",
		Example: `  terraform show -json plan.tfplan > plan.json
  tfgate render plan.json
  terraform show -json plan.tfplan | tfgate render --format markdown -`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := oneOf("--format", format, reportFormats...); err != nil {
				return err
			}
			data, err := readInput(cmd.InOrStdin(), args[0])
			if err != nil {
				return fmt.Errorf("read plan: %w", err)
			}
			c, err := stage.ReadPlan(data, args[0], a.masker)
			if err != nil {
				return err
			}
			switch format {
			case "json":
				return render.PlanJSON(a.stdout, c)
			case "markdown":
				return render.PlanMarkdown(a.stdout, c)
			}
			return render.PlanText(a.stdout, c, render.TextOptions{Color: a.color(a.rawOut), Width: a.width(a.rawOut)})
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output format: text, markdown or json")
	completeValues(cmd, "format", reportFormats)
	return cmd
}
