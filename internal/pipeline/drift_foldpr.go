package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/tfgate/tfgate/internal/drift"
	"github.com/tfgate/tfgate/internal/git"
	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/notify"
	"github.com/tfgate/tfgate/internal/plan"
	"github.com/tfgate/tfgate/internal/project"
	"github.com/tfgate/tfgate/internal/render"
	"github.com/tfgate/tfgate/internal/report"
	"github.com/tfgate/tfgate/internal/secret"
)

// FoldBackCollector keeps each project's fold-back suggestions and drifted resources while
// drift runs (Wrap), for its fold-back pull request (FoldBackPRs).
type FoldBackCollector struct {
	mu   sync.Mutex
	seen map[string]collected
}

type collected struct {
	suggestions []drift.Suggestion
	drifted     []plan.Resource
}

func foldKey(name, workspace string) string { return name + "\x00" + workspace }

// Wrap returns suggest, recording what it is asked and answers.
func (c *FoldBackCollector) Wrap(suggest SuggestFunc) SuggestFunc {
	return func(root string, p project.Project, drifted []plan.Resource) []drift.Suggestion {
		s := suggest(root, p, drifted)
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.seen == nil {
			c.seen = map[string]collected{}
		}
		c.seen[foldKey(p.Name, p.Workspace)] = collected{s, drifted}
		return s
	}
}

// FoldBackRequest is what `tfgate drift --fold-back-pr` needs beyond the run.
type FoldBackRequest struct {
	API      github.API // a client that also makes the calls of github.FoldBackAPI
	Repo     github.Repo
	Identity string // config github.identity; "" = find out
	Base     string // the default branch; "" = the branch checked out
	Root     string
	Masker   *secret.Masker
	Version  string
}

// FoldBackState is what FoldBackPRs leaves for LinkFoldBackPRs.
type FoldBackState struct {
	opts  notify.FoldBacks
	plans []notify.FoldBackPlan
	pulls map[int]github.Pull
}

// FoldBackPRs gathers, per project, the files its fold-back commit edits (or why there is
// none), then opens, updates or closes the pull requests (notify.PublishFoldBacks); the
// run's projects come back with their FoldBack, for the drift issues to link.
func FoldBackPRs(ctx context.Context, req FoldBackRequest, run report.Run, c *FoldBackCollector) (report.Run, *FoldBackState, error) {
	api, ok := req.API.(github.FoldBackAPI)
	if !ok || run.Commit == "" {
		return run, nil, fmt.Errorf("--fold-back-pr: no GitHub client that writes branches, or no commit checked")
	}
	g := git.Git{Dir: req.Root}
	top, err := git.TopLevel(ctx, req.Root)
	if err != nil {
		return run, nil, err
	}
	if req.Base == "" {
		pos, err := g.Where(ctx)
		if err != nil || pos.Branch == "" {
			return run, nil, fmt.Errorf("--fold-back-pr: the default branch is unknown (no event names it and HEAD is detached)")
		}
		req.Base = pos.Branch
	}
	id, err := github.IdentityOf(ctx, req.API, req.Identity)
	if err != nil {
		return run, nil, err
	}
	baseTree, _, err := g.TreeWith(ctx, run.Commit, nil)
	if err != nil {
		return run, nil, err
	}
	st := &FoldBackState{opts: notify.FoldBacks{API: api, Repo: req.Repo, Identity: id, Base: req.Base,
		Commit: run.Commit, BaseTree: baseTree, Version: req.Version}}
	for i, p := range run.Projects {
		pl := notify.FoldBackPlan{Project: i, Branch: FoldBackBranch(p.Name, p.Workspace)}
		switch {
		case p.Status == report.StatusDrifted:
			pl.Files, pl.Tree, pl.Why = foldBackFiles(ctx, g, req, top, run.Commit, c.of(p))
		case p.Status == report.StatusCheckFailed:
			pl.Why = render.FoldBackWhyOnlyChecks
		}
		st.plans = append(st.plans, pl)
	}
	run, st.pulls, err = notify.PublishFoldBacks(ctx, st.opts, run, st.plans)
	for _, p := range run.Projects {
		if note := render.FoldBackNote(p); note != "" {
			run.Notes = append(slices.Clip(run.Notes), note)
		}
	}
	return run, st, err
}

// LinkFoldBackPRs links the pull requests to the drift issues published since FoldBackPRs.
func LinkFoldBackPRs(ctx context.Context, st *FoldBackState, run report.Run) error {
	if st == nil {
		return nil
	}
	return notify.LinkFoldBacks(ctx, st.opts, run, st.plans, st.pulls)
}

func (c *FoldBackCollector) of(p report.Project) collected {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.seen[foldKey(p.Name, p.Workspace)]
}

// foldBackFiles are the files a project's fold-back commit writes and the tree it then
// has, or why the drift cannot be folded back whole (fail closed: then no pull request).
func foldBackFiles(ctx context.Context, g git.Git, req FoldBackRequest, top, commit string, c collected) ([]github.TreeFile, string, string) {
	if why := drift.Unfoldable(c.drifted, c.suggestions); why != "" {
		return nil, "", req.Masker.String(render.FoldBackWhyPartial(why))
	}
	edited, err := drift.Edited(req.Root, c.suggestions)
	if err != nil || len(edited) == 0 {
		return nil, "", req.Masker.String(render.FoldBackWhyNoEdit(err))
	}
	files := map[string][]byte{}
	for f, content := range edited {
		if req.Masker.String(string(content)) != string(content) {
			return nil, "", render.FoldBackWhySecret
		}
		rel, err := filepath.Rel(top, filepath.Join(req.Root, filepath.FromSlash(f)))
		if err != nil || strings.HasPrefix(rel, "..") {
			return nil, "", render.FoldBackWhyNoEdit(fmt.Errorf("%s is outside the repository", f))
		}
		files[filepath.ToSlash(rel)] = content
	}
	tree, modes, err := g.TreeWith(ctx, commit, files)
	if err != nil {
		return nil, "", req.Masker.String(err.Error())
	}
	out := make([]github.TreeFile, 0, len(files))
	for f, content := range files {
		out = append(out, github.TreeFile{Path: f, Mode: modes[f], Content: string(content)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, tree, ""
}

var slugUnsafe = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// FoldBackBranch is a project's fold-back branch: tfgate/fold-back/<slug>, the slug the
// project's name (and workspace) with every run of other characters than letters, digits,
// '.', '_' and '-' made one '-', and a short hash of the name added when that changed it,
// so that two projects never share a branch.
func FoldBackBranch(name, workspace string) string {
	key := name
	if workspace != "" && workspace != "default" {
		key += "@" + workspace
	}
	slug := strings.Trim(slugUnsafe.ReplaceAllString(key, "-"), "-.")
	slug = strings.ReplaceAll(slug, "..", "-") // git refuses ".." in a branch name
	slug = strings.TrimSuffix(slug, ".lock")   // and a name ending in .lock
	if slug != key || slug == "" {
		sum := sha256.Sum256([]byte(key))
		if slug != "" {
			slug += "-"
		}
		slug += hex.EncodeToString(sum[:3])
	}
	return notify.FoldBackBranchPrefix + slug
}
