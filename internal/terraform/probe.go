package terraform

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"

	"github.com/hashicorp/go-version"
)

// probeTimeout bounds `version -json`; a binary that hangs on it is broken.
const probeTimeout = 10 * time.Second

// probeVersion runs `<path> version -json`, which terraform and tofu answer
// with the same shape. The environment is minimal and fixed: the version
// check must not depend on, or phone home because of, the caller's settings.
func probeVersion(ctx context.Context, path, pathEnv string) (*version.Version, error) {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	env := []string{"PATH=" + pathEnv, "CHECKPOINT_DISABLE=1"}
	var stdout, stderr bytes.Buffer
	cmd := command(ctx, path, filepath.Dir(path), env, time.Second, "version", "-json")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := tracked(cmd.Run); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("`version -json` did not answer: %w", ctx.Err())
		}
		return nil, fmt.Errorf("`version -json`: %v %s", err, firstLine(stripANSI(stderr.String())))
	}
	var out struct {
		Version string `json:"terraform_version"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil || out.Version == "" {
		return nil, fmt.Errorf("`version -json` printed no terraform_version (terraform older than 0.13, or not terraform at all)")
	}
	v, err := version.NewVersion(out.Version)
	if err != nil {
		return nil, fmt.Errorf("`version -json` printed version %q: %w", out.Version, err)
	}
	return v, nil
}
