package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/tfgate/tfgate/internal/codeowners"
	"github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/english"
	"github.com/tfgate/tfgate/internal/gate"
	"github.com/tfgate/tfgate/internal/git"
	"github.com/tfgate/tfgate/internal/stage"
)

// Owners per path (docs/owners.md): the facts behind the gate's owner needs — the base
// commits' CODEOWNERS and which changed files each target stands for. The rule and its
// wording are gate/owners.go's.

// ownerFacts are what the owner needs are computed from, read once per run.
type ownerFacts struct {
	// files are the files the change commits (merge base to HEAD; a rename is both
	// paths), relative to the git top level as CODEOWNERS names them.
	files []string
	rel   map[string]string // each of files relative to the root (stage.RootRelative)
	// unowned caches unattributed for the targets it was computed with (their number).
	unowned    []string
	unownedFor int
	// byRules is the CODEOWNERS of the commit each configuration of the rules was read
	// from, for those that turn approval.codeowners on.
	byRules map[*config.Config]ownersFile
}

// ownersFile is a base commit's CODEOWNERS: where it was found, or why none counts.
type ownersFile struct {
	file   *codeowners.File // nil: none was found
	source string           // e.g. ".github/CODEOWNERS at base commit 1a2b3c4"
}

// readOwners reads, for each configuration of the rules (a.base, a.extraRules: read from
// revs, in order) that asks for CODEOWNERS, that commit's CODEOWNERS (GitHub's locations,
// the first found), never the checkout's: a pull request that edits CODEOWNERS is judged
// by its base's. It also lists the files the change commits since revs[0].
func (a *runFacts) readOwners(ctx context.Context, revs []string) error {
	cfgs := append([]*config.Config{a.base}, a.extraRules...)
	a.owners = ownerFacts{byRules: map[*config.Config]ownersFile{}}
	repo := git.Git{Dir: a.Root}
	for i, cfg := range cfgs {
		if !asksCodeOwners(cfg) || i >= len(revs) {
			continue
		}
		of, err := readCodeOwners(ctx, repo, revs[i])
		if err != nil {
			return fmt.Errorf("read CODEOWNERS at the base commit (approval.codeowners): %w", err)
		}
		a.owners.byRules[cfg] = of
	}
	if len(a.owners.byRules) == 0 {
		return nil
	}
	changes, err := repo.ChangedFiles(ctx, revs[0])
	if err != nil {
		return err
	}
	prefix, err := repo.Prefix(ctx)
	if err != nil {
		return err
	}
	a.owners.files, a.owners.rel = changes.Committed, map[string]string{}
	for i, rel := range stage.RootRelative(prefix, changes.Committed) {
		a.owners.rel[changes.Committed[i]] = rel
	}
	return nil
}

func readCodeOwners(ctx context.Context, repo git.Git, rev string) (ownersFile, error) {
	sha, err := repo.Commit(ctx, rev)
	if err != nil {
		return ownersFile{}, err
	}
	for _, loc := range codeowners.Locations {
		data, err := repo.ReadFile(ctx, sha, loc)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return ownersFile{}, err
		}
		return ownersFile{file: codeowners.Parse(string(data)), source: loc + " at base commit " + git.ShortSHA(sha)}, nil
	}
	return ownersFile{source: "base commit " + git.ShortSHA(sha)}, nil
}

// asksCodeOwners reports whether any rules of cfg turn approval.codeowners on.
func asksCodeOwners(cfg *config.Config) bool {
	if cfg.Approval.CodeOwners {
		return true
	}
	return slices.ContainsFunc(cfg.Projects, func(p config.Project) bool { return p.Approval != nil && p.Approval.CodeOwners })
}

// ownedProject is gateProject with its CODEOWNERS needs under cfg.
func (a *runFacts) ownedProject(cfg *config.Config, t target) gate.Project {
	gp := gateProject(cfg, t)
	if gp.Rules.CodeOwners {
		gp.OwnerNeeds = a.codeOwnerNeeds(cfg, t)
	}
	return gp
}

// codeOwnerNeeds are target t's CODEOWNERS needs under cfg: one per rule owning its files.
// A project stands for its changed files (its directory and local modules), a dropped base
// project for its own; the files of no project are the shared review's, or every target's
// when there is none (a change to them is part of each apply). Fail closed: no CODEOWNERS,
// an invalid line, or owners given only as e-mail addresses are needs no approval meets.
func (a *runFacts) codeOwnerNeeds(cfg *config.Config, t target) []gate.OwnerNeed {
	of, ok := a.owners.byRules[cfg]
	if !ok { // not read: cannot happen, but never judge without it
		return []gate.OwnerNeed{gate.Unmeetable("approval.codeowners", "CODEOWNERS was not read")}
	}
	files := a.ownedFiles(t)
	if len(files) == 0 {
		return nil
	}
	if of.file == nil {
		return []gate.OwnerNeed{gate.NoCodeOwners(of.source)}
	}
	var needs []gate.OwnerNeed
	for _, e := range of.file.Errors {
		needs = append(needs, gate.InvalidCodeOwnersLine(of.source, e.Error()))
	}
	byLine := map[int][]string{}
	var rules []*codeowners.Rule
	for _, f := range files {
		r := of.file.Match(f)
		if r == nil || len(r.Owners) == 0 {
			continue // no owner
		}
		if byLine[r.Line] == nil {
			rules = append(rules, r)
		}
		byLine[r.Line] = append(byLine[r.Line], f)
	}
	for _, r := range rules {
		forWhat := "CODEOWNERS " + r.Pattern + ": " + english.ClipList(byLine[r.Line], 2)
		var owners, emails []string
		for _, o := range r.Owners {
			if codeowners.IsEmail(o) {
				emails = append(emails, o)
			} else {
				owners = append(owners, o)
			}
		}
		if len(owners) == 0 {
			needs = append(needs, gate.EmailOwners(forWhat, emails))
			continue
		}
		needs = append(needs, gate.NeedOwner(forWhat, owners...))
	}
	return needs
}

// ownedFiles are the committed changed files (top-level relative) that target t stands
// for: a project's and a dropped project's own, and those of no project unless the shared
// review stands for them.
func (a *runFacts) ownedFiles(t target) []string {
	if t.review == "shared" {
		return a.unattributed()
	}
	var own []string
	for _, f := range a.owners.files {
		if a.covers(t, f) {
			own = append(own, f)
		}
	}
	if slices.ContainsFunc(a.targets, func(u target) bool { return u.review == "shared" }) {
		return own
	}
	return append(own, a.unattributed()...)
}

// covers reports whether target t (not the shared review) stands for the top-level
// relative file f: it is in its directory or one of its local modules.
func (a *runFacts) covers(t target, f string) bool {
	rel, ok := a.owners.rel[f]
	if !ok {
		rel = f
	}
	return t.review != "shared" && len(stage.ProjectFiles(t.p, []string{rel})) > 0
}

// unattributed are the committed changed files no project or dropped project stands for.
func (a *runFacts) unattributed() []string {
	if a.owners.unowned != nil && a.owners.unownedFor == len(a.targets) {
		return a.owners.unowned
	}
	out := []string{}
	for _, f := range a.owners.files {
		if !slices.ContainsFunc(a.targets, func(u target) bool { return a.covers(u, f) }) {
			out = append(out, f)
		}
	}
	a.owners.unowned, a.owners.unownedFor = out, len(a.targets)
	return out
}

// neededTeams are the teams whose membership the gate may need under rules: every
// "org/team" of approval.teams and of the targets' CODEOWNERS needs.
func (a *runFacts) neededTeams(rules []*config.Config) []string {
	var out []string
	for _, cfg := range rules {
		for _, t := range a.targets {
			gp := a.ownedProject(cfg, t)
			out = append(out, gp.Rules.Teams...)
			for _, n := range gp.OwnerNeeds {
				out = append(out, n.AnyOf...)
			}
		}
	}
	out = slices.DeleteFunc(out, func(o string) bool { return !strings.Contains(o, "/") })
	return slices.Compact(slices.Sorted(slices.Values(out)))
}
