package terraform

import (
	"archive/zip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/hashicorp/terraform-exec/tfexec"
)

// StateMeta identifies one snapshot of a state: terraform's saved-plan check compares
// exactly these two with the plan's prior state (a plan is stale when they differ).
type StateMeta struct {
	Lineage string `json:"lineage"`
	Serial  uint64 `json:"serial"`
}

func (m StateMeta) String() string {
	if m.Lineage == "" {
		return "no state"
	}
	return fmt.Sprintf("lineage %s serial %d", m.Lineage, m.Serial)
}

// Recorder is what apply uses to keep a record of itself in the state backend and to save
// a state terraform could not (errored.tfstate). It is part of every Runner.
type Recorder interface {
	// Workspaces lists the backend's workspaces and the selected one.
	Workspaces(ctx context.Context) (list []string, current string, err error)
	// NewWorkspace creates the workspace, empty, and selects it.
	NewWorkspace(ctx context.Context, name string) error
	// DeleteWorkspace deletes an empty workspace other than the selected one.
	DeleteWorkspace(ctx context.Context, name string) error
	// StateMeta reads the selected workspace's state lineage and serial (`state pull`).
	StateMeta(ctx context.Context) (StateMeta, error)
	// PushState writes a state file to the backend (`state push`, never -force: terraform
	// refuses one of another lineage or an older serial).
	PushState(ctx context.Context, path string) error
}

func (r *runner) Workspaces(ctx context.Context) (list []string, current string, err error) {
	err = r.run(ctx, "workspace list", func() error {
		var err error
		list, current, err = r.tf.WorkspaceList(ctx)
		return err
	})
	return list, current, err
}

func (r *runner) NewWorkspace(ctx context.Context, name string) error {
	return r.run(ctx, "workspace new "+name, func() error { return r.tf.WorkspaceNew(ctx, name) })
}

func (r *runner) DeleteWorkspace(ctx context.Context, name string) error {
	return r.run(ctx, "workspace delete "+name, func() error { return r.tf.WorkspaceDelete(ctx, name) })
}

func (r *runner) StateMeta(ctx context.Context) (StateMeta, error) {
	var raw string
	err := r.run(ctx, "state pull", func() error {
		var err error
		raw, err = r.tf.StatePull(ctx)
		return err
	})
	if err != nil {
		return StateMeta{}, err
	}
	return parseStateMeta(strings.NewReader(raw))
}

func (r *runner) PushState(ctx context.Context, path string) error {
	return r.run(ctx, "state push", func() error { return r.tf.StatePush(ctx, path, tfexec.Lock(true)) })
}

// parseStateMeta reads lineage and serial of a state; an empty one (no state yet) is the
// zero StateMeta.
func parseStateMeta(r io.Reader) (StateMeta, error) {
	var m StateMeta
	data, err := io.ReadAll(io.LimitReader(r, 1<<30))
	if err != nil {
		return m, err
	}
	if strings.TrimSpace(string(data)) == "" {
		return m, nil
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return m, fmt.Errorf("read state: %w", err)
	}
	return m, nil
}

// PlanPriorState reads the lineage and serial of the state a saved plan was made against
// (the plan file's tfstate entry): terraform applies the plan only onto that snapshot.
func PlanPriorState(planFile string) (StateMeta, error) {
	z, err := zip.OpenReader(planFile)
	if err != nil {
		return StateMeta{}, fmt.Errorf("plan file %s: %w", planFile, err)
	}
	defer z.Close()
	for _, f := range z.File {
		if f.Name != "tfstate" {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return StateMeta{}, fmt.Errorf("plan file %s: %w", planFile, err)
		}
		defer rc.Close()
		m, err := parseStateMeta(rc)
		if err != nil {
			return m, fmt.Errorf("plan file %s: %w", planFile, err)
		}
		return m, nil
	}
	return StateMeta{}, fmt.Errorf("plan file %s: %w", planFile, errNoPriorState)
}

var errNoPriorState = errors.New("no prior state in it (not a terraform plan file?)")

// ReadStateMeta is parseStateMeta for a state file's contents.
func ReadStateMeta(r io.Reader) (StateMeta, error) { return parseStateMeta(r) }
