package git

import (
	"bytes"
	"os"
	"path/filepath"
)

// gitDiscoveryEnv are the variables that change how git finds a repository: when one is
// set, only git itself can say where the top level is. This is the one read of the
// environment outside ci and cli, and it reads no setting of tfgate's: it asks what the
// git processes this package starts inherit, and only whether to start one (it moved here
// from ci with the checkout, where it was).
var gitDiscoveryEnv = []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_CEILING_DIRECTORIES", "GIT_DISCOVERY_ACROSS_FILESYSTEM"}

// findTopLevel finds the top level of the working tree that contains dir the way git does
// for an ordinary checkout — the nearest directory holding a .git directory, or a .git
// file (a linked worktree, a submodule) — without starting git: every tfgate command asks,
// and a git process is a noticeable part of a small command. It answers only when it is
// sure git would answer the same; ok=false leaves the question to git: a discovery
// variable set, dir inside a .git directory or a bare repository, a filesystem boundary
// crossed, a repository owned by another user (git's safe.directory check), a
// core.worktree setting, or anything it cannot read.
func findTopLevel(dir string) (top string, ok bool) {
	for _, k := range gitDiscoveryEnv {
		if _, set := os.LookupEnv(k); set {
			return "", false
		}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", false
	}
	// git reports the physical path (symlinks resolved).
	if abs, err = filepath.EvalSymlinks(abs); err != nil {
		return "", false
	}
	start, err := os.Stat(abs)
	if err != nil || !start.IsDir() {
		return "", false
	}
	for d := abs; ; {
		if filepath.Base(d) == ".git" || looksLikeGitDir(d) {
			return "", false // inside a repository's own directory, or a bare repository
		}
		st, err := os.Stat(d)
		if err != nil || !sameDevice(st, start) {
			return "", false
		}
		switch fi, err := os.Lstat(filepath.Join(d, ".git")); {
		case err == nil && fi.IsDir():
			if !ownedByUs(st) || !ownedByUs(fi) || !plainConfig(filepath.Join(d, ".git", "config")) || !looksLikeGitDir(filepath.Join(d, ".git")) {
				return "", false
			}
			return d, true
		case err == nil && fi.Mode().IsRegular():
			if !ownedByUs(st) || !ownedByUs(fi) || !gitFile(filepath.Join(d, ".git")) {
				return "", false
			}
			return d, true
		case err == nil || !os.IsNotExist(err):
			return "", false // a symlink or something else: git's business
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", false // no repository: git says so, in its words
		}
		d = parent
	}
}

// looksLikeGitDir is git's own test of a repository directory: HEAD, objects and refs.
func looksLikeGitDir(d string) bool {
	for _, name := range []string{"HEAD", "objects", "refs"} {
		if _, err := os.Stat(filepath.Join(d, name)); err != nil {
			return false
		}
	}
	return true
}

// plainConfig reports that the repository's config does not move its working tree.
func plainConfig(path string) bool {
	data, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	return !bytes.Contains(bytes.ToLower(data), []byte("worktree"))
}

// gitFile reports a .git file that points at a repository directory (a linked worktree or
// a submodule) whose config does not move the working tree.
func gitFile(path string) bool {
	data, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	target, ok := bytes.CutPrefix(bytes.TrimSpace(data), []byte("gitdir: "))
	if !ok || len(target) == 0 || bytes.ContainsAny(target, "\n\r") {
		return false
	}
	gitdir := string(target)
	if !filepath.IsAbs(gitdir) {
		gitdir = filepath.Join(filepath.Dir(path), gitdir)
	}
	if gi, err := os.Stat(gitdir); err != nil || !ownedByUs(gi) {
		return false
	}
	common := gitdir
	switch {
	case looksLikeGitDir(gitdir): // a submodule's repository
	case linkedWorktreeDir(gitdir):
		c, err := os.ReadFile(filepath.Join(gitdir, "commondir"))
		if err != nil {
			return false
		}
		if common = string(bytes.TrimSpace(c)); !filepath.IsAbs(common) {
			common = filepath.Join(gitdir, common)
		}
	default:
		return false
	}
	return plainConfig(filepath.Join(common, "config")) && !fileExists(filepath.Join(gitdir, "config.worktree"))
}

// linkedWorktreeDir is a worktree's private directory (.git/worktrees/NAME): HEAD and a
// commondir file, the objects and refs being the main repository's.
func linkedWorktreeDir(d string) bool {
	return fileExists(filepath.Join(d, "HEAD")) && fileExists(filepath.Join(d, "commondir"))
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
