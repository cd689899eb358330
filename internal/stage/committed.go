package stage

import (
	"context"
	"errors"
	"sync"

	"github.com/tfgate/tfgate/internal/git"
	"github.com/tfgate/tfgate/internal/project"
)

// committedDataDirs refuses, before terraform runs, a project whose .terraform (or one in
// a directory above it) git tracks: terraform's data directory from the repository could
// choose the state backend, the modules and the workspace without review. tfgate runs
// terraform with a data directory of its own anyway (datadir.go); the refusal makes the
// committed one visible and removed rather than silently ignored. Git's index is read
// once per run, at the first project that has one on disk (one `git ls-files`).
type committedDataDirs struct {
	root  string
	once  sync.Once
	files []string
	err   error
}

// check returns the refusal of p, or nil. Git is asked only when a .terraform is there to
// be read (project.DataDirsOnDisk): one in the index but not on disk is nothing terraform
// could read, and a fresh checkout of a clean repository has none — the common case costs
// a few lstat calls, not a git process.
func (c *committedDataDirs) check(ctx context.Context, p project.Project) error {
	if !project.DataDirsOnDisk(c.root, p.Dir) {
		return nil
	}
	c.once.Do(func() {
		if _, err := git.TopLevel(ctx, c.root); err != nil {
			return // a plain directory: no index, nothing committed
		}
		c.files, c.err = git.Git{Dir: c.root}.TrackedDirFiles(ctx, project.DataDirName)
	})
	if c.err != nil {
		return c.err
	}
	if found := project.CommittedDataDirs([]project.Project{p}, c.files); len(found) > 0 {
		return errors.New(found[0].Error())
	}
	return nil
}

// RefuseTerraformFiles is the stage that refuses, before terraform runs, a project with a
// committed data directory, or whose terraform.d/plugins leads elsewhere through a link
// (project.LinkedPlugins).
func RefuseTerraformFiles(ctx context.Context, r *ProjectRun) error {
	c := r.Opts.committed // shared by the run's projects (PlanOptions.defaults)
	if c == nil {
		c = &committedDataDirs{root: r.Opts.Root}
	}
	if err := c.check(ctx, r.Project); err != nil {
		return err
	}
	if why := project.LinkedPlugins(r.Opts.Root, r.Project); why != "" {
		return errors.New(why)
	}
	return nil
}
