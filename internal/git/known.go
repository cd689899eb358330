package git

import (
	"os"
	"path/filepath"
	"sync"
)

// What a run asks git more than once, and whose answer cannot change while tfgate runs,
// is answered from memory: each git process is some milliseconds of a small plan's ninety
// (issue 32, row (a)). Only answers are kept, never failures, and never what names a
// movable ref (HEAD, a branch): a commit SHA names the same commit for ever, a working
// tree's root and its git directory do not move.

// plainGitDirs: top level → its git directory, for the top levels findTopLevel found by a
// .git directory of their own (not a .git file: a linked worktree or a submodule), whose
// git directory and common directory are both that .git (what GitDirs asks git).
var plainGitDirs sync.Map

// commits: Dir + "\x00" + full SHA → the commit it resolved to.
var commits sync.Map

// rememberTop records what findTopLevel learnt of top beside the top level itself.
func rememberTop(top string) {
	gitDir := filepath.Join(top, ".git")
	if fi, err := os.Lstat(gitDir); err == nil && fi.IsDir() {
		plainGitDirs.Store(top, gitDir)
	}
}

// knownPrefix is Prefix's answer when g.Dir is a top level TopLevel found: "".
func (g Git) knownPrefix() bool {
	top, ok := topLevels.Load(g.Dir)
	return ok && top.(string) == g.Dir
}

// knownGitDirs is GitDirs' answer when g.Dir is a top level with a .git directory of its
// own.
func (g Git) knownGitDirs() ([]string, bool) {
	d, ok := plainGitDirs.Load(g.Dir)
	if !ok {
		return nil, false
	}
	return []string{d.(string)}, true
}

// isFullSHA reports a full SHA-1 or SHA-256 object name in lower-case hex (what git prints).
func isFullSHA(rev string) bool {
	if len(rev) != 40 && len(rev) != 64 {
		return false
	}
	for _, c := range rev {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
