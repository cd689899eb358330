// Command tfgate runs the Terraform plan → review → apply pipeline from CI and laptops.
package main

import (
	"os"

	"github.com/tfgate/tfgate/internal/cli"
)

func main() { os.Exit(cli.Main()) }
