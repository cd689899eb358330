package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/tfgate/tfgate/internal/bundle"
	"github.com/tfgate/tfgate/internal/plan"
	"github.com/tfgate/tfgate/internal/policy"
	"github.com/tfgate/tfgate/internal/project"
	"github.com/tfgate/tfgate/internal/render"
	"github.com/tfgate/tfgate/internal/secret"
	"github.com/tfgate/tfgate/internal/terraform"
)

// Progress receives each project's phases while it runs (render.Progress implements it).
type Progress interface {
	Start(project, phase string)
	Phase(project, phase string)
	Done(project string, ok bool, d time.Duration, note string)
}

// PlanOptions configure a plan run.
type PlanOptions struct {
	Root          string
	Projects      []project.Project
	Binary        terraform.Binary
	Env           map[string]string // terraform's environment
	OutDir        string            // write a bundle per project here; "" = plans are discarded
	Parallel      int               // max projects at once; <= 0 = number of CPUs
	Commit        string            // HEAD sha recorded in bundles
	Dirty         bool              // the working tree differs from Commit
	Masks         []string          // literal secrets to mask in rendered values
	Progress      Progress
	Policies      Policies // Policies.Engine nil: no policies configured
	ChangedFiles  []string // root-relative files changed (for data.tfgate.project)
	TfgateVersion string
	Now           func() time.Time
}

// Plan plans every project with bounded parallelism. One project failing does not stop the
// others: its report says why. The error is only for problems that stop the whole run.
func Plan(ctx context.Context, opts PlanOptions) (render.Report, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Progress == nil {
		opts.Progress = nopProgress{}
	}
	limit := opts.Parallel
	if limit <= 0 {
		limit = runtime.NumCPU()
	}
	work := opts.OutDir
	if work == "" {
		tmp, err := os.MkdirTemp("", "tfgate-plan-")
		if err != nil {
			return render.Report{}, err
		}
		defer os.RemoveAll(tmp)
		work = tmp
	} else if err := os.MkdirAll(work, 0o700); err != nil {
		return render.Report{}, fmt.Errorf("--out %s: %w", work, err)
	}

	// Projects sharing a directory (several workspaces) share its .terraform dir, so they
	// must not run at the same time.
	dirLocks := map[string]*sync.Mutex{}
	for _, p := range opts.Projects {
		if dirLocks[p.Dir] == nil {
			dirLocks[p.Dir] = &sync.Mutex{}
		}
	}
	dirs := bundleDirs(opts.Projects)
	reports := make([]render.ProjectReport, len(opts.Projects))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(limit)
	for i, p := range opts.Projects {
		g.Go(func() error {
			dirLocks[p.Dir].Lock()
			defer dirLocks[p.Dir].Unlock()
			if gctx.Err() != nil { // interrupted while it waited for a slot: never started
				reports[i] = render.ProjectReport{Name: p.Name, Dir: p.Dir, Workspace: p.Workspace,
					Status: render.StatusFailed, Error: "not started: the run was interrupted"}
				return nil
			}
			reports[i] = planProject(gctx, opts, p, filepath.Join(work, dirs[i]))
			return nil
		})
	}
	_ = g.Wait() // workers never return errors; failures live in the reports
	if err := ctx.Err(); err != nil {
		return render.Report{Projects: reports}, fmt.Errorf("plan interrupted: %w", err)
	}
	return render.Report{Projects: reports}, nil
}

// planProject runs init → workspace → plan → show for one project and summarises the plan.
func planProject(ctx context.Context, opts PlanOptions, p project.Project, dir string) render.ProjectReport {
	start := opts.Now()
	rep := render.ProjectReport{Name: p.Name, Dir: p.Dir, Workspace: p.Workspace}
	// Values the project's var files and environment give to sensitive variables: terraform
	// can quote them in its own error messages.
	masks := append(slices.Clone(opts.Masks), project.SensitiveValues(ctx, opts.Root, p, opts.Env)...)
	masker := secret.NewMasker(masks)
	fail := func(err error) render.ProjectReport {
		if opts.OutDir != "" {
			// A failed project leaves no half-bundle: terraform may have written an errored
			// plan (secrets in clear) that must not look like something to apply.
			os.RemoveAll(dir)
		}
		rep.Status = render.StatusFailed
		rep.Error = masker.String(err.Error())
		rep.Duration = opts.Now().Sub(start)
		opts.Progress.Done(p.Name, false, rep.Duration, headline(rep.Error))
		return rep
	}
	opts.Progress.Start(p.Name, "init")
	if len(p.Problems) > 0 { // found while reading its files: terraform would fail too
		return fail(fmt.Errorf("%s", strings.Join(p.Problems, "\n")))
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fail(err)
	}
	// Hash the inputs before init: init may create or update .terraform.lock.hcl, and apply
	// (from a fresh checkout) must see the same hash.
	var inputs map[string]string
	var inputHash string
	if opts.OutDir != "" {
		files, err := project.InputFiles(ctx, opts.Root, p)
		if err != nil {
			return fail(err)
		}
		files = outside(files, opts.Root, opts.OutDir)
		if inputs, inputHash, err = bundle.HashInputs(ctx, opts.Root, files); err != nil {
			return fail(err)
		}
	}
	tf, err := terraform.NewRunner(filepath.Join(opts.Root, filepath.FromSlash(p.Dir)), opts.Binary, terraform.RunnerOptions{
		Env: opts.Env, Name: p.Dir,
		InitWait: func(waiting bool) {
			if waiting {
				opts.Progress.Phase(p.Name, "queued") // behind another project's init
			} else {
				opts.Progress.Phase(p.Name, "init")
			}
		},
	})
	if err != nil {
		return fail(err)
	}
	if err := tf.Init(ctx); err != nil {
		return fail(err)
	}
	opts.Progress.Phase(p.Name, "workspace")
	if err := tf.SelectWorkspace(ctx, p.Workspace); err != nil {
		return fail(err)
	}
	opts.Progress.Phase(p.Name, "plan")
	planFile := filepath.Join(dir, bundle.PlanFile)
	if _, err := tf.Plan(ctx, terraform.PlanOptions{Out: planFile, VarFiles: p.VarFiles}); err != nil {
		return fail(err)
	}
	// The plan file holds secrets in clear text: only its owner may read it.
	if err := os.Chmod(planFile, 0o600); err != nil {
		return fail(err)
	}
	opts.Progress.Phase(p.Name, "show")
	raw, err := tf.ShowPlan(ctx, planFile)
	if err != nil {
		return fail(err)
	}
	tfplan, err := plan.Decode(raw)
	if err != nil {
		return fail(fmt.Errorf("read plan of %s: %w", p.Name, err))
	}
	rep.Changes = plan.Summarise(tfplan, plan.Options{Masks: masks})
	rep.Status = render.StatusPlanned
	if engine := opts.Policies.Engine; engine != nil {
		opts.Progress.Phase(p.Name, "policy")
		res := engine.Eval(ctx, raw, policy.Project{Name: opts.Policies.ProjectName(p.Name, p.Dir, p.Workspace),
			Dir: p.Dir, Workspace: p.Workspace, ChangedFiles: projectFiles(p, opts.ChangedFiles), Mask: rep.Changes.Mask})
		res = MaskPolicyResult(res, rep.Changes.Mask)
		rep.Policy = &res
	}

	if opts.OutDir != "" {
		m, err := writeBundle(ctx, opts, p, dir, rep.Changes, inputs, inputHash)
		if err != nil {
			return fail(err)
		}
		rep.PlanFile = filepath.Join(dir, m.PlanFile)
	}
	rep.Duration = opts.Now().Sub(start)
	opts.Progress.Done(p.Name, true, rep.Duration, doneNote(rep))
	return rep
}

func writeBundle(ctx context.Context, opts PlanOptions, p project.Project, dir string, c *plan.Changes, sums map[string]string, inputHash string) (bundle.Manifest, error) {
	s := c.Summary
	tfVersion := c.TerraformVersion
	if tfVersion == "" && opts.Binary.Version != nil {
		tfVersion = opts.Binary.Version.String()
	}
	return bundle.Write(ctx, dir, bundle.Manifest{
		Project: p.Name, Dir: p.Dir, Workspace: p.Workspace, Commit: opts.Commit, Dirty: opts.Dirty,
		Inputs: sums, InputHash: inputHash, TerraformVersion: tfVersion,
		HasChanges: s.HasChanges(),
		Summary: bundle.Counts{Add: s.Add, Change: s.Change, Destroy: s.Destroy, Replace: s.Replace,
			Import: s.Import, Move: s.Move, Outputs: s.Outputs, Actions: s.Actions},
		CreatedAt: opts.Now().UTC(), TfgateVersion: opts.TfgateVersion,
	})
}

// outside drops the files under outDir (an --out inside the repository): bundles being
// written are not inputs of the projects they describe.
func outside(files []string, root, outDir string) []string {
	rel, err := filepath.Rel(root, outDir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return files
	}
	prefix := filepath.ToSlash(rel) + "/"
	kept := files[:0:0]
	for _, f := range files {
		if !strings.HasPrefix(f, prefix) {
			kept = append(kept, f)
		}
	}
	return kept
}

// bundleDirs names each project's bundle directory. Names that sanitise to the same
// directory ("a/b" and "a_b") get a hash suffix each, so no bundle overwrites another.
func bundleDirs(projects []project.Project) []string {
	dirs := make([]string, len(projects))
	count := map[string]int{}
	for i, p := range projects {
		dirs[i] = bundle.DirName(p.Name, p.Workspace)
		count[dirs[i]]++
	}
	for i, p := range projects {
		if count[dirs[i]] > 1 {
			sum := sha256.Sum256([]byte(p.Name + "\x00" + p.Workspace))
			dirs[i] += "-" + hex.EncodeToString(sum[:4])
		}
	}
	return dirs
}

// Failed lists the projects of a report that did not plan.
func Failed(r render.Report) []render.ProjectReport {
	var out []render.ProjectReport
	for _, p := range r.Projects {
		if p.Status == render.StatusFailed {
			out = append(out, p)
		}
	}
	return out
}

func doneNote(rep render.ProjectReport) string {
	if rep.Policy == nil {
		return "planned"
	}
	return "planned · policies: " + rep.Policy.Summary()
}

// projectFiles are the changed files inside the project's dir or its local modules.
func projectFiles(p project.Project, files []string) []string {
	out := []string{}
	for _, f := range files {
		for _, dir := range append([]string{p.Dir}, p.Modules...) {
			if dir == "." || strings.HasPrefix(f, dir+"/") {
				out = append(out, f)
				break
			}
		}
	}
	return out
}

// headline is the one line of an error worth showing in progress: terraform's own
// "Error: …" summary when there is one, else the first line.
func headline(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for _, l := range lines {
		if msg, ok := strings.CutPrefix(strings.TrimSpace(l), "Error: "); ok {
			return msg
		}
	}
	return lines[0]
}

type nopProgress struct{}

func (nopProgress) Start(string, string)                     {}
func (nopProgress) Phase(string, string)                     {}
func (nopProgress) Done(string, bool, time.Duration, string) {}
