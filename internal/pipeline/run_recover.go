package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tfgate/tfgate/internal/stage"
)

// The way back when a merged change was not applied (a stale plan, an approval missing at
// apply time, a failed apply, an expired artifact): a pull request that changes the project
// without changing what it does. tfgate plans it like any other — main's code against the
// infrastructure as it is now — reviewers approve that plan under the base rules, and its
// merge applies exactly it, which closes the project's tracking issue (apply_tracking.go).
// Nothing is applied that nobody reviewed; the pull request, its plan, approvals and audit
// are the record, and the tracking issue names the merges it recovers.

// RecoverFile is the file `tfgate recover` writes in a project's directory: a Terraform
// file of comments only, so that the default globs (and any that watch *.tf) see the change.
const RecoverFile = "tfgate_recover.tf"

// RecoverRequest is what `tfgate recover` was asked to do.
type RecoverRequest struct {
	stage.Env
	Names  []string // projects (names or dirs)
	Reason string   // optional: written into the file (one line)
}

// RunRecover is `tfgate recover`: it writes RecoverFile into each named project's
// directory (once per directory: a directory's workspaces share it) and returns the files
// written, root-relative. The file names the time, so a second recovery changes it again.
func RunRecover(ctx context.Context, req RecoverRequest) ([]string, error) {
	if len(req.Names) == 0 {
		return nil, fmt.Errorf("name the projects to recover (their tracking issues say which): tfgate recover PROJECT")
	}
	req.Defaults()
	sel, err := stage.Select(ctx, stage.SelectOptions{Root: req.Root, Config: req.Config, ConfigFile: req.ConfigFile, Names: req.Names})
	if err != nil {
		return nil, err
	}
	var written []string
	seen := map[string]bool{}
	for _, p := range sel.Projects {
		if seen[p.Dir] {
			continue
		}
		seen[p.Dir] = true
		rel := filepath.ToSlash(filepath.Join(p.Dir, RecoverFile))
		if err := os.WriteFile(filepath.Join(req.Root, filepath.FromSlash(rel)), []byte(recoverText(p.Name, req.Reason, req.Now())), 0o644); err != nil {
			return written, fmt.Errorf("recover %s: %w", p.Name, err)
		}
		written = append(written, rel)
	}
	return written, nil
}

func recoverText(name, reason string, now time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Written by `tfgate recover %s` at %s.\n#\n", oneLine(name), now.UTC().Format("2006-01-02 15:04:05 UTC"))
	b.WriteString("# A merged change of this project was not applied (tfgate's tracking issue \"Not applied:\n")
	b.WriteString("# ...\" says which merges, and why). This file changes the project without changing what it\n")
	b.WriteString("# does, so that the pull request that adds it plans the project: the default branch's code\n")
	b.WriteString("# against the infrastructure as it is now, reviewed and approved like any other change, and\n")
	b.WriteString("# applied on merge. It holds no configuration; a later recovery rewrites it.\n")
	if r := oneLine(reason); r != "" {
		fmt.Fprintf(&b, "#\n# Reason: %s\n", r)
	}
	return b.String()
}

// oneLine keeps a text on one comment line: control characters (a newline would end the
// comment and start configuration) become spaces; at most 200 characters.
func oneLine(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == '\u2028' || r == '\u2029' || r == '\u0085' {
			return ' '
		}
		return r
	}, s)
	s = strings.TrimSpace(s)
	if rs := []rune(s); len(rs) > 200 {
		s = string(rs[:200])
	}
	return s
}
