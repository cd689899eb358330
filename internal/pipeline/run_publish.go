package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tfgate/tfgate/internal/fileio"
	"github.com/tfgate/tfgate/internal/git"
	"github.com/tfgate/tfgate/internal/matrixresult"
	"github.com/tfgate/tfgate/internal/notify"
	"github.com/tfgate/tfgate/internal/project"
	"github.com/tfgate/tfgate/internal/report"
	"github.com/tfgate/tfgate/internal/stage"
)

// PublishRequest is everything `tfgate publish` was asked to do: merge the results the
// matrix jobs' `plan --changed PROJECT --out DIR --publish none` left, and publish them as
// the one plan run they are shares of.
type PublishRequest struct {
	stage.Env
	// Dirs hold the results: each a matrix job's --out directory (one downloaded
	// artifact), or a directory holding several (actions/download-artifact's path).
	Dirs []string
	// Expect are the projects the matrix planned (`projects --changed --format matrix`);
	// ExpectNames more, by name or directory. A project expected without a result is
	// reported failed, never left out. None: the results found are the run.
	Expect      []Expected
	ExpectNames []string
	// Out gathers the bundles into one directory, as one `plan --out` would have written
	// them (the artifact gate and apply read); "" leaves them where they are.
	Out string
	// GitHub is set in GitHub Actions: the merged run is published there as `plan`
	// publishes (see GitHubRun); nil only prints.
	GitHub *GitHubRun
}

// Expected is one project of the matrix.
type Expected struct {
	Name      string `json:"project"`
	Dir       string `json:"dir"`
	Workspace string `json:"workspace"`
}

// ReadMatrix reads what `tfgate projects --format matrix` wrote: {"include": [...]}.
func ReadMatrix(path string) ([]Expected, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, stage.Optionf("{Matrix}: %w", err)
	}
	var m struct {
		Include *[]Expected `json:"include"`
	}
	if err := json.Unmarshal(data, &m); err != nil || m.Include == nil {
		return nil, stage.Optionf("{Matrix} %s: not the output of `tfgate projects --format matrix` ({\"include\": [...]}): %v", path, err)
	}
	for i, e := range *m.Include {
		if e.Name == "" {
			return nil, stage.Optionf("{Matrix} %s: entry %d has no project", path, i+1)
		}
	}
	return *m.Include, nil
}

// missingResult is the error of an expected project without a result.
const missingResult = "no result: the matrix job planning this project left no " + matrixresult.FileName +
	" (it failed or was cancelled before it finished, or its artifact was not downloaded); see that job's log"

// RunPublish merges the matrix jobs' results into one plan run, in project order, and
// publishes it exactly as one `tfgate plan` of every project would have: the sticky
// comment, the tfgate/plan status, the job summary, the step outputs and the annotations,
// through the same publisher. Its GitHub API calls do not depend on the number of
// projects. The run is returned whatever happens; the error names the results that could
// not be used (they are also notes of the run) and what could not be published.
func RunPublish(ctx context.Context, req PublishRequest) (report.Run, error) {
	req.Defaults()
	run := report.Run{Kind: report.KindPlan}
	sel, err := stage.Select(ctx, stage.SelectOptions{Root: req.Root, Config: req.Config, All: true})
	if err != nil {
		return run, err
	}
	if req.Expect == nil && len(req.ExpectNames) == 0 {
		req.Warn("without --matrix or --expect, publish cannot tell a matrix job that left no result from a project nobody planned: such a project is not in the review")
	}
	expect := slices.Clone(req.Expect)
	if len(req.ExpectNames) > 0 {
		named, err := project.Select(sel.All, req.ExpectNames)
		if err != nil {
			return run, stage.Optionf("{Expect}: %w", err)
		}
		for _, p := range named {
			expect = append(expect, Expected{Name: p.Name, Dir: p.Dir, Workspace: p.Workspace})
		}
	}
	if req.Out != "" {
		if req.Out, err = stage.OutDir(req.Out); err != nil {
			return run, err
		}
	}
	m := merger{all: sel.All}
	if req.GitHub != nil {
		m.commit, m.pr = req.GitHub.Event.HeadSHA, req.GitHub.Event.PRNumber
	}
	for _, r := range readResults(req.Dirs, &m.problems) {
		m.add(r)
	}
	m.expect(expect)
	run = m.run()
	var errs []string
	if req.Out != "" {
		if err := gatherBundles(req.Out, run.Projects, m.dirs()); err != nil {
			errs = append(errs, err.Error())
		}
	}
	if len(m.problems) > 0 {
		errs = append(errs, fmt.Sprintf("%s: %s", pluralResults(len(m.problems)), strings.Join(m.problems, "; ")))
	}
	if req.GitHub != nil {
		pub := notify.StartPlan(ctx, req.GitHub, req.Root, req.Warn, req.TfgateVersion)
		if err := pub.Finish(ctx, run, nil); err != nil {
			errs = append(errs, err.Error())
		}
	}
	if len(errs) > 0 {
		return run, errors.New(strings.Join(errs, "; "))
	}
	return run, nil
}

func pluralResults(n int) string {
	if n == 1 {
		return "1 result could not be used"
	}
	return fmt.Sprintf("%d results could not be used", n)
}

// readResults finds and reads the results in dirs: dir/tfgate-result.json, else one in
// each subdirectory. What cannot be read is a problem, not the end of the run.
func readResults(dirs []string, problems *[]string) []matrixresult.Result {
	var out []matrixresult.Result
	for _, dir := range dirs {
		paths, err := resultPaths(dir)
		if err != nil {
			*problems = append(*problems, err.Error())
			continue
		}
		for _, path := range paths {
			r, err := matrixresult.Read(path)
			if err != nil {
				*problems = append(*problems, err.Error())
				continue
			}
			out = append(out, r)
		}
	}
	return out
}

func resultPaths(dir string) ([]string, error) {
	own := filepath.Join(dir, matrixresult.FileName)
	if _, err := os.Stat(own); err == nil {
		return []string{own}, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("results in %s: %w", dir, err)
	}
	var paths []string
	for _, e := range entries { // sorted by name
		path := filepath.Join(dir, e.Name(), matrixresult.FileName)
		if _, err := os.Stat(path); e.IsDir() && err == nil {
			paths = append(paths, path)
		}
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("%s holds no %s, nor do its subdirectories: pass the directories `tfgate plan --out` wrote (the downloaded artifacts)", dir, matrixresult.FileName)
	}
	return paths, nil
}

// merger assembles the run from the results, one at a time.
type merger struct {
	all        []project.Project // the repository's projects, in project order
	commit     string            // the head commit being reviewed ("" outside a pull request)
	pr         int
	header     *report.Run // the first planned result's run: base, policies, notes
	headerFrom string
	projects   []merged
	problems   []string
	scope      *report.Scope // the results' scopes merged (publish_scope.go)
	touched    map[report.Touch]bool
}

type merged struct {
	p    report.Project
	dir  string // the result's directory ("" for a project without a result)
	from string // the result's path
}

func projectKey(name, workspace string) string { return name + "\x00" + workspace }

func (m *merger) find(name, workspace string) int {
	return slices.IndexFunc(m.projects, func(x merged) bool {
		return projectKey(x.p.Name, x.p.Workspace) == projectKey(name, workspace)
	})
}

func (m *merger) add(r matrixresult.Result) {
	run := r.Decoded
	switch {
	case run.Kind != report.KindPlan && run.Kind != "":
		m.problems = append(m.problems, fmt.Sprintf("%s is the result of a %s run, not of a plan", r.Path, run.Kind))
		return
	case m.commit != "" && r.Commit != m.commit, m.pr != 0 && r.PR != m.pr:
		// Another commit's plan must not pass for this one's: its projects fail here.
		why := fmt.Sprintf("the result in %s was planned for %s, not for %s under review: it comes from another run", r.Path, planOf(r.PR, r.Commit), planOf(m.pr, m.commit))
		m.failAll(r, why)
		return
	case r.Stopped != "":
		m.failAll(r, r.Stopped)
		return
	}
	if m.header == nil {
		m.header, m.headerFrom = &run, r.Path
	} else if h := m.header; h.Base != run.Base || h.MergeBase != run.MergeBase || h.Policies != run.Policies {
		m.problems = append(m.problems, fmt.Sprintf("%s and %s were planned against different bases or policies (%s %s, %s; %s %s, %s)",
			m.headerFrom, r.Path, h.Base, h.MergeBase, h.Policies, run.Base, run.MergeBase, run.Policies))
	}
	for _, p := range run.Projects {
		m.put(merged{p: p, dir: r.Dir, from: r.Path})
	}
	m.addScope(run.Scope)
}

// failAll reports every project of a result that cannot be used as failed, with why;
// a stopped run has none, and names the projects it was asked for instead.
func (m *merger) failAll(r matrixresult.Result, why string) {
	ps := r.Decoded.Projects
	if len(ps) == 0 && len(r.Asked) > 0 {
		asked, err := project.Select(m.all, r.Asked)
		if err != nil {
			m.problems = append(m.problems, fmt.Sprintf("%s: %s (and its projects: %v)", r.Path, why, err))
			return
		}
		for _, p := range asked {
			ps = append(ps, report.Project{Name: p.Name, Dir: p.Dir, Workspace: p.Workspace})
		}
	}
	if len(ps) == 0 {
		m.problems = append(m.problems, r.Path+": "+why)
		return
	}
	for _, p := range ps {
		m.put(merged{p: report.Project{Name: p.Name, Dir: p.Dir, Workspace: p.Workspace, Status: report.StatusFailed, Error: why}, from: r.Path})
	}
}

// put adds a project; one that two results planned fails: which plan is current is not
// clear, so neither is shown or applied.
func (m *merger) put(x merged) {
	i := m.find(x.p.Name, x.p.Workspace)
	if i < 0 {
		m.projects = append(m.projects, x)
		return
	}
	prev := m.projects[i]
	m.projects[i] = merged{p: report.Project{Name: x.p.Name, Dir: x.p.Dir, Workspace: x.p.Workspace, Status: report.StatusFailed,
		Error: fmt.Sprintf("two results hold this project (%s and %s): which plan is current is not clear, so neither is shown", prev.from, x.from)}, from: prev.from}
}

// expect adds a failed project for each expected one without a result.
func (m *merger) expect(expect []Expected) {
	for _, e := range expect {
		if m.find(e.Name, e.Workspace) < 0 {
			m.projects = append(m.projects, merged{p: report.Project{Name: e.Name, Dir: e.Dir, Workspace: e.Workspace,
				Status: report.StatusFailed, Error: missingResult}})
		}
	}
}

// run is the merged run, its projects in project order (as `plan` plans them); projects
// the repository no longer has come last, in the order they were found.
func (m *merger) run() report.Run {
	index := map[string]int{}
	for i, p := range m.all {
		index[projectKey(p.Name, p.Workspace)] = i
	}
	order := func(x merged) int {
		if i, ok := index[projectKey(x.p.Name, x.p.Workspace)]; ok {
			return i
		}
		return len(m.all)
	}
	slices.SortStableFunc(m.projects, func(a, b merged) int { return order(a) - order(b) })
	run := report.Run{Kind: report.KindPlan}
	if h := m.header; h != nil {
		run.Base, run.MergeBase, run.Policies, run.PolicyNotes, run.Notes = h.Base, h.MergeBase, h.Policies, h.PolicyNotes, h.Notes
		run.Cost = h.Cost
	}
	for _, p := range m.problems {
		run.Notes = append(run.Notes, "tfgate publish: "+p)
	}
	run.Projects = make([]report.Project, len(m.projects))
	for i, x := range m.projects {
		run.Projects[i] = x.p
	}
	run.Scope = m.mergedScope(index)
	return run
}

func (m *merger) dirs() []string {
	out := make([]string, len(m.projects))
	for i, x := range m.projects {
		out[i] = x.dir
	}
	return out
}

func planOf(pr int, commit string) string {
	s := "commit " + git.ShortSHA(commit)
	if commit == "" {
		s = "no commit"
	}
	if pr != 0 {
		s = fmt.Sprintf("pull request #%d at %s", pr, s)
	}
	return s
}

// gatherBundles copies each project's bundle directory from its result's directory into
// out, as `plan --out` lays them out, and points the project at its copy.
func gatherBundles(out string, projects []report.Project, dirs []string) error {
	if err := os.MkdirAll(out, 0o700); err != nil {
		return stage.Optionf("{Out} %s: %w", out, err)
	}
	used := map[string]bool{}
	for i := range projects {
		p := &projects[i]
		if p.Bundle == "" {
			continue
		}
		name, ok := matrixresult.BundleDir(p.Bundle, dirs[i])
		if !ok {
			return stage.Optionf("{Out}: the bundle of %s is not in its result's directory %s", p.Name, dirs[i])
		}
		target := name
		if used[target] { // as stage.BundleDirs tells apart names that sanitise alike
			sum := sha256.Sum256([]byte(p.Name + "\x00" + p.Workspace))
			target += "-" + hex.EncodeToString(sum[:4])
		}
		used[target] = true
		rest, _ := filepath.Rel(filepath.Join(dirs[i], name), p.Bundle)
		if err := fileio.CopyTree(filepath.Join(dirs[i], name), filepath.Join(out, target), fileio.OwnerOnly); err != nil {
			return stage.Optionf("{Out}: the bundle of %s: %w", p.Name, err)
		}
		p.Bundle = filepath.Join(out, target, rest)
	}
	return nil
}
