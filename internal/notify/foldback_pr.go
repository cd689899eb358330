package notify

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/render"
	"github.com/tfgate/tfgate/internal/report"
)

// FoldBackKind marks fold-back pull requests: <!-- tfgate:fold-back project=NAME -->.
const FoldBackKind = "fold-back"

// FoldBackBranchPrefix is where fold-back branches live: tfgate/fold-back/<project slug>.
// tfgate writes no other branch, and never the default branch.
const FoldBackBranchPrefix = "tfgate/fold-back/"

// foldBackTrailer ends every fold-back commit's message, after foldBackTreeTrailer with
// the tree tfgate made the commit with: a branch whose tip lacks them for its project and
// its own tree holds someone else's commit, and tfgate leaves it alone. The tree is what
// tells a commit amended (or rebased) by someone, which keeps tfgate's message, from
// tfgate's own: moving the branch would throw their work away.
const (
	foldBackTrailer     = "Tfgate-Fold-Back: "
	foldBackTreeTrailer = "Tfgate-Fold-Back-Tree: "
)

// FoldBackPlan is what the drift check found for one project's fold-back pull request.
type FoldBackPlan struct {
	Project int    // index in the run's projects
	Branch  string // FoldBackBranchPrefix + slug
	// Files are the edited files (whole content) and Tree the tree the branch's commit must
	// have (the checked commit's tree with them); nil when there is no fold-back.
	Files []github.TreeFile
	Tree  string
	Why   string // why there is no fold-back (drift that cannot be folded back whole), masked
}

// FoldBacks configure PublishFoldBacks.
type FoldBacks struct {
	API      github.FoldBackAPI
	Repo     github.Repo
	Identity github.Identity
	Base     string // the branch pull requests go into (the default branch)
	Commit   string // the commit checked: the parent of every fold-back commit
	BaseTree string // its tree
	Version  string
}

// PublishFoldBacks opens, updates or closes each project's fold-back pull request and
// returns the run with each project's FoldBack, and the pull requests by project index (for
// LinkFoldBacks). It lists the open pull requests once; an unchanged drift costs one more
// call per project (its branch's commit), and no write.
func PublishFoldBacks(ctx context.Context, o FoldBacks, run report.Run, plans []FoldBackPlan) (report.Run, map[int]github.Pull, error) {
	open, err := o.API.ListOpenPulls(ctx, o.Repo)
	if err != nil {
		return run, nil, err
	}
	ours := map[string]github.Pull{}
	for _, p := range open {
		if !p.Fork && strings.HasPrefix(p.HeadRef, FoldBackBranchPrefix) && p.BaseRef == o.Base && o.Identity.Is(p.Author) {
			ours[p.HeadRef] = p
		}
	}
	run.Projects = slices.Clone(run.Projects) // the caller's run is left as it was
	pulls := map[int]github.Pull{}
	var errs []string
	for _, pl := range plans {
		p := &run.Projects[pl.Project]
		pr, hasPR := ours[pl.Branch]
		fb, got, err := o.project(ctx, *p, pl, pr, hasPR)
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s: fold-back pull request: %v", p.Name, err))
		}
		if fb != nil {
			p.FoldBack = fb
		}
		if got.Number != 0 {
			pulls[pl.Project] = got
		}
	}
	if len(errs) > 0 {
		return run, pulls, errors.New(strings.Join(errs, "; "))
	}
	return run, pulls, nil
}

// project handles one project's fold-back pull request.
func (o FoldBacks) project(ctx context.Context, p report.Project, pl FoldBackPlan, pr github.Pull, hasPR bool) (*report.FoldBack, github.Pull, error) {
	switch {
	case p.Status == report.StatusDrifted && pl.Files != nil:
		return o.openOrUpdate(ctx, p, pl, pr, hasPR)
	case hasPR && (p.Status == report.StatusInSync || pl.Why != ""):
		return o.close(ctx, p, pl, pr)
	case hasPR: // failed or pending: the drift is unknown or beside the point; left as it is
		return &report.FoldBack{Branch: pl.Branch, PR: pr.HTMLURL, Number: pr.Number, Done: report.FoldBackKept}, pr, nil
	case pl.Why != "":
		return &report.FoldBack{Done: report.FoldBackNone, Why: pl.Why}, github.Pull{}, nil
	}
	return nil, github.Pull{}, nil
}

// close closes a fold-back pull request with a note, and deletes its branch when the
// branch is still tfgate's own: a closed pull request whose branch still exists was closed
// by someone else (declined), not by tfgate.
func (o FoldBacks) close(ctx context.Context, p report.Project, pl FoldBackPlan, pr github.Pull) (*report.FoldBack, github.Pull, error) {
	fb := &report.FoldBack{Branch: pl.Branch, PR: pr.HTMLURL, Number: pr.Number, Done: report.FoldBackClosed, Why: pl.Why}
	if fb.Why == "" {
		fb.Why = render.FoldBackWhyGone
	}
	if _, err := o.API.CreateIssueComment(ctx, o.Repo, pr.Number, render.FoldBackCloseNote(report.Project{Status: p.Status, FoldBack: fb})); err != nil {
		return nil, github.Pull{}, err
	}
	closed := "closed"
	if _, err := o.API.EditPull(ctx, o.Repo, pr.Number, nil, nil, &closed); err != nil {
		return nil, github.Pull{}, err
	}
	c, err := o.API.GetCommit(ctx, o.Repo, pr.HeadSHA)
	if err != nil || !o.ours(c, p) {
		return fb, github.Pull{}, err
	}
	return fb, github.Pull{}, o.API.DeleteBranch(ctx, o.Repo, pl.Branch)
}

func (o FoldBacks) ours(c github.GitCommit, p report.Project) bool {
	return c.Tree != "" && strings.Contains(c.Message, "\n"+foldBackTreeTrailer+c.Tree+"\n"+foldBackTrailer+plainName(p.Name)+"\n")
}

// declined is the pull request someone closed without merging it while its branch was at
// tip: tfgate opens no other for the same commit.
func (o FoldBacks) declined(ctx context.Context, pl FoldBackPlan, tip string) (github.Pull, bool, error) {
	closed, err := o.API.ListClosedPulls(ctx, o.Repo, pl.Branch)
	for _, c := range closed {
		if !c.Merged && c.HeadSHA == tip && c.BaseRef == o.Base {
			return c, true, err
		}
	}
	return github.Pull{}, false, err
}

// openOrUpdate makes the branch carry the fold-back commit (a new one only when its tree or
// base differs) and the pull request exist.
func (o FoldBacks) openOrUpdate(ctx context.Context, p report.Project, pl FoldBackPlan, pr github.Pull, hasPR bool) (*report.FoldBack, github.Pull, error) {
	tip, found := pr.HeadSHA, hasPR
	if !hasPR {
		var err error
		if tip, found, err = o.API.GetBranch(ctx, o.Repo, pl.Branch); err != nil {
			return nil, github.Pull{}, err
		}
	}
	done := report.FoldBackKept
	if found {
		c, err := o.API.GetCommit(ctx, o.Repo, tip)
		if err != nil {
			return nil, github.Pull{}, err
		}
		if !o.ours(c, p) {
			return &report.FoldBack{Done: report.FoldBackNone, Why: render.FoldBackWhyNotOurs(pl.Branch)}, github.Pull{}, nil
		}
		if c.Tree != pl.Tree || len(c.Parents) != 1 || c.Parents[0] != o.Commit {
			if tip, err = o.commit(ctx, p, pl); err != nil {
				return nil, github.Pull{}, err
			}
			if err := o.API.MoveBranch(ctx, o.Repo, pl.Branch, tip); err != nil {
				return nil, github.Pull{}, err
			}
			done = report.FoldBackUpdated
		} else if !hasPR {
			if d, ok, err := o.declined(ctx, pl, tip); err != nil {
				return nil, github.Pull{}, err
			} else if ok {
				return &report.FoldBack{Done: report.FoldBackNone, Why: render.FoldBackWhyDeclined(d.Number)}, github.Pull{}, nil
			}
		}
	} else {
		sha, err := o.commit(ctx, p, pl)
		if err != nil {
			return nil, github.Pull{}, err
		}
		if err := o.API.CreateBranch(ctx, o.Repo, pl.Branch, sha); err != nil && !o.createdAnyway(ctx, pl.Branch, sha, err) {
			return nil, github.Pull{}, err
		}
	}
	if !hasPR {
		var err error
		pr, err = o.API.CreatePull(ctx, o.Repo, github.NewPull{Title: render.FoldBackTitle(p.Name), Head: pl.Branch, Base: o.Base,
			Body: o.body(p, pl, "")})
		if err != nil {
			return nil, github.Pull{}, err
		}
		done = report.FoldBackOpened
	}
	return &report.FoldBack{Branch: pl.Branch, PR: pr.HTMLURL, Number: pr.Number, Done: done}, pr, nil
}

// createdAnyway reports whether a branch creation that failed with "Reference already
// exists" did create it: an answer lost and the request sent again.
func (o FoldBacks) createdAnyway(ctx context.Context, branch, sha string, err error) bool {
	if !errors.Is(err, github.ErrRefExists) {
		return false
	}
	at, found, gerr := o.API.GetBranch(ctx, o.Repo, branch)
	return gerr == nil && found && at == sha
}

// commit writes the fold-back commit: the checked commit's tree with the edited files, on
// the checked commit.
func (o FoldBacks) commit(ctx context.Context, p report.Project, pl FoldBackPlan) (string, error) {
	tree, err := o.API.CreateTree(ctx, o.Repo, o.BaseTree, pl.Files)
	if err != nil {
		return "", err
	}
	if tree != pl.Tree {
		return "", fmt.Errorf("GitHub made tree %s of the edits, not %s as git does here: the commit checked is not the one on GitHub", tree, pl.Tree)
	}
	name := plainName(p.Name)
	return o.API.CreateCommit(ctx, o.Repo, render.FoldBackCommitMessage(name, foldBackTreeTrailer+tree, foldBackTrailer+name), tree, []string{o.Commit})
}

func (o FoldBacks) body(p report.Project, pl FoldBackPlan, issue string) string {
	return RecordMarker{Kind: FoldBackKind, Project: p.Name}.String() + "\n" +
		render.FoldBackBody(render.FoldBackBodyOptions{Project: p.Name, Branch: pl.Branch, Issue: issue, Edits: foldableLines(p), Version: o.Version})
}

// foldableLines are the project's suggestions that are edits (`file:line  attr = old → new`).
func foldableLines(p report.Project) []string {
	var out []string
	for _, s := range p.Suggestions {
		if f, _, ok := strings.Cut(s, "  "); ok && strings.Contains(f, ":") && !strings.Contains(f, " ") {
			out = append(out, s)
		}
	}
	return out
}

// LinkFoldBacks links each pull request it opened or kept to its project's drift issue,
// once published: the body is edited only when it differs (the first night, or when the
// issue changed).
func LinkFoldBacks(ctx context.Context, o FoldBacks, run report.Run, plans []FoldBackPlan, pulls map[int]github.Pull) error {
	var errs []string
	for _, pl := range plans {
		pr, ok := pulls[pl.Project]
		p := run.Projects[pl.Project]
		if !ok || p.Issue == "" {
			continue
		}
		body := o.body(p, pl, p.Issue)
		if sameText(pr.Body, body) {
			continue
		}
		if _, err := o.API.EditPull(ctx, o.Repo, pr.Number, nil, &body, nil); err != nil {
			errs = append(errs, fmt.Sprintf("%s: link the fold-back pull request: %v", p.Name, err))
		}
	}
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "; "))
	}
	return nil
}

func sameText(got, sent string) bool {
	return got == sent || strings.ReplaceAll(got, "\r\n", "\n") == strings.ReplaceAll(sent, "\r\n", "\n")
}

// plainName is a project name for a commit message: one line, no control characters.
func plainName(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
}
