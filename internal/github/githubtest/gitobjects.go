package githubtest

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
)

// Git objects: the fake keeps a repository's blobs, trees and commits in git's own format,
// named by git's SHA-1 of them, so that what the Git data API writes is what git would
// write (a test fetches it into a checkout: `github gitfetch`).

type gitObject struct {
	typ  string // blob, tree or commit
	data []byte
}

// gitHash is git's object name: the SHA-1 of "<type> <size>\0<data>".
func gitHash(typ string, data []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "%s %d\x00", typ, len(data))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// putObjectLocked stores an object and returns its name. The caller holds s.mu.
func (r *repo) putObjectLocked(typ string, data []byte) string {
	if r.objects == nil {
		r.objects = map[string]gitObject{}
	}
	sha := gitHash(typ, data)
	r.objects[sha] = gitObject{typ, slices.Clone(data)}
	return sha
}

// SetObject stores a git object (type blob, tree or commit, data in git's format) in
// "owner/name" and returns its name: how a test pushes a checkout's objects.
func (s *Server) SetObject(fullName, typ string, data []byte) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.repoLocked(splitRepo(fullName)).putObjectLocked(typ, data)
}

// Object is the git object sha of "owner/name": its type and data.
func (s *Server) Object(fullName, sha string) (typ string, data []byte, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o, ok := s.repoLocked(splitRepo(fullName)).objects[sha]
	return o.typ, slices.Clone(o.data), ok
}

// treeEntry is one entry of a tree object.
type treeEntry struct {
	mode, name, sha string
}

func (e treeEntry) isTree() bool { return e.mode == "40000" || e.mode == "040000" }

func (e treeEntry) typ() string {
	switch {
	case e.isTree():
		return "tree"
	case e.mode == "160000":
		return "commit"
	}
	return "blob"
}

// parseTree reads a tree object: "<mode> <name>\0<20-byte sha>" repeated.
func parseTree(data []byte) ([]treeEntry, error) {
	var out []treeEntry
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		nul := bytes.IndexByte(data, 0)
		if sp < 0 || nul < sp || len(data) < nul+21 {
			return nil, fmt.Errorf("malformed tree")
		}
		out = append(out, treeEntry{mode: string(data[:sp]), name: string(data[sp+1 : nul]), sha: hex.EncodeToString(data[nul+1 : nul+21])})
		data = data[nul+21:]
	}
	return out, nil
}

// formatTree writes a tree object in git's order: by name, a subtree's name compared as if
// it ended in "/".
func formatTree(entries []treeEntry) []byte {
	key := func(e treeEntry) string {
		if e.isTree() {
			return e.name + "/"
		}
		return e.name
	}
	slices.SortFunc(entries, func(a, b treeEntry) int { return strings.Compare(key(a), key(b)) })
	var b bytes.Buffer
	for _, e := range entries {
		mode := e.mode
		if e.isTree() {
			mode = "40000" // git writes no leading zero
		}
		raw, _ := hex.DecodeString(e.sha)
		fmt.Fprintf(&b, "%s %s\x00", mode, e.name)
		b.Write(raw)
	}
	return b.Bytes()
}

// gitCommit is a parsed commit object.
type gitCommit struct {
	tree              string
	parents           []string
	author, committer string // "Name <email> 1700000000 +0000"
	message           string
}

func parseCommit(data []byte) (gitCommit, error) {
	head, msg, ok := strings.Cut(string(data), "\n\n")
	if !ok {
		return gitCommit{}, fmt.Errorf("malformed commit")
	}
	c := gitCommit{message: msg}
	for _, line := range strings.Split(head, "\n") {
		k, v, _ := strings.Cut(line, " ")
		switch k {
		case "tree":
			c.tree = v
		case "parent":
			c.parents = append(c.parents, v)
		case "author":
			c.author = v
		case "committer":
			c.committer = v
		}
	}
	if c.tree == "" {
		return gitCommit{}, fmt.Errorf("commit without a tree")
	}
	return c, nil
}

func formatCommit(c gitCommit) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "tree %s\n", c.tree)
	for _, p := range c.parents {
		fmt.Fprintf(&b, "parent %s\n", p)
	}
	fmt.Fprintf(&b, "author %s\ncommitter %s\n\n%s", c.author, c.committer, c.message)
	return []byte(b.String())
}

// objectLocked is the object sha of type typ, or false. The caller holds s.mu.
func (r *repo) objectLocked(sha, typ string) (gitObject, bool) {
	o, ok := r.objects[sha]
	return o, ok && o.typ == typ
}

// writePathLocked returns the tree made of tree (its name; "" for an empty tree) with the
// entry at path (slash-separated) set to e (deleted when e.sha is ""), writing every tree
// on the way. The caller holds s.mu.
func (r *repo) writePathLocked(tree string, path []string, e treeEntry) (string, error) {
	var entries []treeEntry
	if tree != "" {
		o, ok := r.objectLocked(tree, "tree")
		if !ok {
			return "", fmt.Errorf("tree %s does not exist", tree)
		}
		var err error
		if entries, err = parseTree(o.data); err != nil {
			return "", err
		}
	}
	i := slices.IndexFunc(entries, func(x treeEntry) bool { return x.name == path[0] })
	next := e
	next.name = path[0]
	if len(path) > 1 {
		sub := ""
		if i >= 0 && entries[i].isTree() {
			sub = entries[i].sha
		}
		sha, err := r.writePathLocked(sub, path[1:], e)
		if err != nil {
			return "", err
		}
		next = treeEntry{mode: "40000", name: path[0], sha: sha}
	}
	if i >= 0 {
		entries = slices.Delete(entries, i, i+1)
	}
	if next.sha != "" {
		if o, ok := r.objectLocked(next.sha, "tree"); !ok || len(o.data) > 0 {
			entries = append(entries, next) // an empty subtree is left out, as git does
		}
	}
	return r.putObjectLocked("tree", formatTree(entries)), nil
}

// isAncestorLocked reports whether commit a is b or one of b's ancestors. The caller holds s.mu.
func (r *repo) isAncestorLocked(a, b string) bool {
	seen := map[string]bool{}
	todo := []string{b}
	for len(todo) > 0 {
		c := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if c == a {
			return true
		}
		if seen[c] {
			continue
		}
		seen[c] = true
		if o, ok := r.objectLocked(c, "commit"); ok {
			if pc, err := parseCommit(o.data); err == nil {
				todo = append(todo, pc.parents...)
			}
		}
	}
	return false
}

// flattenLocked lists the blobs under tree, path → sha. The caller holds s.mu.
func (r *repo) flattenLocked(tree, prefix string, out map[string]string) {
	o, ok := r.objectLocked(tree, "tree")
	if !ok {
		return
	}
	entries, _ := parseTree(o.data)
	for _, e := range entries {
		if e.isTree() {
			r.flattenLocked(e.sha, prefix+e.name+"/", out)
		} else {
			out[prefix+e.name] = e.sha
		}
	}
}
