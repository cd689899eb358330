package terraform

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

func (r *runner) SelectWorkspace(ctx context.Context, name string) error {
	if name == "" {
		name = "default"
	}
	// Terraform records a selected workspace other than default in
	// <data dir>/environment. Without that file the current workspace is
	// default and there is nothing to do, which spares a process per project
	// in the common case. With it, a previous run in this directory may have
	// left another workspace selected, so default must really be selected.
	if name == "default" && !r.hasEnvironmentFile() {
		return nil
	}
	var (
		list    []string
		current string
	)
	err := r.run(ctx, "workspace list", func() error {
		var err error
		list, current, err = r.tf.WorkspaceList(ctx)
		return err
	})
	if err != nil || current == name {
		return err
	}
	if slices.Contains(list, name) {
		return r.run(ctx, "workspace select "+name, func() error { return r.tf.WorkspaceSelect(ctx, name) })
	}
	if r.noNewWorkspace {
		// Creating a workspace writes state (an empty one, on a remote backend too).
		return &CommandError{Command: r.bin.Flavor + " workspace select", Dir: r.name,
			Err: fmt.Errorf("workspace %q does not exist, and a read-only run never creates one: plan and apply the project first (it has no infrastructure to check yet)", name)}
	}
	// `workspace new` also selects the new workspace.
	return r.run(ctx, "workspace new "+name, func() error { return r.tf.WorkspaceNew(ctx, name) })
}

func (r *runner) hasEnvironmentFile() bool {
	b, err := os.ReadFile(filepath.Join(r.dataDir(), "environment"))
	return err == nil && strings.TrimSpace(string(b)) != "default"
}
