package git

import (
	"bytes"
	"context"
	"encoding/hex"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"testing/fstest"
)

// CommitTreeFS is, in one git process, CommitFile(rev, file) and then TreeFS of that
// commit under the dirs that pick names from file's content (data, or the error CommitFile
// would return with a sha: fs.ErrNotExist). pick's error ends it. The answers and errors are
// those of the calls one after another, which is how it asks whenever the one process
// cannot answer cleanly.
func (g Git) CommitTreeFS(ctx context.Context, rev, file string, pick func(sha string, data []byte, err error) ([]string, error)) (string, fs.FS, error) {
	if sha, tree, ok, err := g.commitTreeFS(ctx, rev, file, pick); ok {
		return sha, tree, err
	}
	sha, data, err := g.CommitFile(ctx, rev, file)
	if sha == "" {
		return "", nil, err
	}
	dirs, err := pick(sha, data, err)
	if err != nil {
		return sha, nil, err
	}
	tree, err := g.TreeFS(ctx, sha, dirs)
	return sha, tree, err
}

// commitTreeFS is CommitTreeFS's one process; ok is false when it cannot tell.
func (g Git) commitTreeFS(ctx context.Context, rev, file string, pick func(string, []byte, error) ([]string, error)) (sha string, tree fs.FS, ok bool, err error) {
	p := cleanPath(file)
	if !plainRev(rev) || !plainPath(p) || !g.knownPrefix() {
		return "", nil, false, nil
	}
	c, cerr := g.catFile(ctx, false)
	if cerr != nil {
		return "", nil, false, nil
	}
	defer func() {
		if !c.close() {
			ok = false
		} else {
			g.remember(rev, sha)
		}
	}()
	commit := c.get(rev + "^{commit}")
	if !commit.found || commit.kind != "commit" {
		return "", nil, false, nil
	}
	sha = commit.oid
	blob := c.get(sha + ":" + p)
	var data []byte
	var ferr error
	if blob.found && blob.kind == "blob" {
		data = blob.data
	} else {
		ferr = notExist(file, sha)
	}
	dirs, err := pick(sha, data, ferr)
	if err != nil {
		return sha, nil, true, err
	}
	m, ok := treeWalk{c: c, root: sha + "^{tree}"}.files(dirs)
	if !ok {
		return "", nil, false, nil
	}
	return sha, m, true, nil
}

// files is what TreeFS reads under dirs at the top level, or ok=false when a dir or a
// file is one it must ask the old way.
func (w treeWalk) files(dirs []string) (fstest.MapFS, bool) {
	m := fstest.MapFS{}
	for _, dir := range dirs {
		d := path.Clean(strings.TrimPrefix(dir, "./"))
		if d == "." {
			d = ""
		}
		if d != "" && (!plainPath(d) || d[0] == ':') { // ":/x", ":(top)x": ls-tree's pathspec magic
			return nil, false
		}
		files, ok := w.list(d)
		if !ok {
			return nil, false
		}
		for _, f := range files {
			if f.kind != "blob" {
				return nil, false // a submodule: ReadFile's error, asked the old way
			}
			obj := w.c.get(f.oid)
			if !obj.found || obj.kind != "blob" {
				return nil, false
			}
			m[f.name] = &fstest.MapFile{Data: obj.data, Mode: 0o644}
		}
	}
	return m, true
}

// treeEntry is one entry of a tree object: its path from the root, object and kind.
type treeEntry struct {
	name, oid, kind string // kind: blob, tree or commit (a submodule)
}

// treeWalk lists what `ls-tree -r --full-tree <commit> -- dir/` lists (every blob and
// submodule under dir, dir itself when it is a submodule) by reading tree objects.
type treeWalk struct {
	c    *catFile
	root string
}

// list walks to dir ("" for the root) and lists the files under it, sorted; ok is false
// when a tree could not be read.
func (w treeWalk) list(dir string) ([]treeEntry, bool) {
	oid := w.root
	if dir != "" {
		parent, name := path.Split(dir)
		entries, ok := w.dirEntries(strings.TrimSuffix(parent, "/"))
		if !ok {
			return nil, false
		}
		var found *treeEntry
		for i := range entries {
			if path.Base(entries[i].name) == name {
				found = &entries[i]
			}
		}
		switch {
		case found == nil:
			return nil, true
		case found.kind == "commit":
			return []treeEntry{*found}, true // "sub/" names a submodule too
		case found.kind != "tree":
			return nil, true // a file: "dir/" names nothing
		}
		oid = found.oid
	}
	var files []treeEntry
	if !w.walk(oid, dir, &files) {
		return nil, false
	}
	sort.Slice(files, func(i, j int) bool { return files[i].name < files[j].name })
	return files, true
}

// dirEntries are the entries of the tree at dir, found from the root ("" is the root);
// a dir that is not a tree has none.
func (w treeWalk) dirEntries(dir string) ([]treeEntry, bool) {
	oid, at := w.root, ""
	for _, part := range strings.Split(dir, "/") {
		if part == "" {
			continue
		}
		entries, ok := w.read(oid, at)
		if !ok {
			return nil, false
		}
		at, oid = path.Join(at, part), ""
		for _, e := range entries {
			if e.name == at && e.kind == "tree" {
				oid = e.oid
			}
		}
		if oid == "" {
			return nil, true
		}
	}
	return w.read(oid, at)
}

// walk appends every blob and submodule of the tree oid (at path at) to files.
func (w treeWalk) walk(oid, at string, files *[]treeEntry) bool {
	entries, ok := w.read(oid, at)
	if !ok {
		return false
	}
	for _, e := range entries {
		if e.kind == "tree" {
			if !w.walk(e.oid, e.name, files) {
				return false
			}
			continue
		}
		*files = append(*files, e)
	}
	return true
}

// read parses the tree object oid, whose entries are named below at.
func (w treeWalk) read(oid, at string) ([]treeEntry, bool) {
	obj := w.c.get(oid)
	if !obj.found || obj.kind != "tree" {
		return nil, false
	}
	size := len(obj.oid) / 2 // an object name's bytes: 20 (SHA-1) or 32 (SHA-256)
	var entries []treeEntry
	for data := obj.data; len(data) > 0; {
		sp := bytes.IndexByte(data, ' ')
		nul := bytes.IndexByte(data, 0)
		if sp < 0 || nul < sp || len(data) < nul+1+size {
			return nil, false
		}
		mode, err := strconv.ParseUint(string(data[:sp]), 8, 32)
		if err != nil {
			return nil, false
		}
		e := treeEntry{name: path.Join(at, string(data[sp+1:nul])), oid: hex.EncodeToString(data[nul+1 : nul+1+size]), kind: "blob"}
		switch mode & 0o170000 {
		case 0o040000:
			e.kind = "tree"
		case 0o160000:
			e.kind = "commit"
		}
		entries = append(entries, e)
		data = data[nul+1+size:]
	}
	return entries, true
}
