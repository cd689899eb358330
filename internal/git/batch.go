package git

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// Several questions of the same kind asked of one `git cat-file --batch` process rather than
// one process each (issue 32, row (a)). cat-file resolves a name with the same function as
// `rev-parse --verify` and `cat-file blob`, but says less when something is odd: its answers
// are taken only for names it cannot read otherwise (plainRev, plainPath), and only from a
// session that ended cleanly with nothing on stderr — anything else (a warning, an
// ambiguous name, a fatal error) is asked again the old way, one process per question, so
// every answer and every error is the old one.

// catFile is one `git cat-file --batch` (or --batch-check) session: each question is
// answered before the next is written, since a question may depend on an earlier answer.
type catFile struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr bytes.Buffer
	check  bool // --batch-check: headers only
	failed bool // an answer could not be read: nothing of the session is trusted
}

// object is cat-file's answer to one name: found, its name, type and (with --batch) content.
type object struct {
	found bool // false: "missing", "ambiguous" or anything else cat-file said
	// missing: cat-file said "<name> missing" — what `rev-parse --verify --quiet` says by
	// exiting 1 with nothing on stderr, and `cat-file blob` by failing.
	missing   bool
	oid, kind string
	data      []byte
}

func (g Git) catFile(ctx context.Context, check bool) (*catFile, error) {
	mode := "--batch"
	if check {
		mode = "--batch-check"
	}
	c := &catFile{cmd: command(ctx, g.Dir, nil, "cat-file", mode), check: check}
	c.cmd.Stderr = &c.stderr
	in, err := c.cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := c.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := c.cmd.Start(); err != nil {
		return nil, err
	}
	c.in, c.out = in, bufio.NewReader(out)
	return c, nil
}

// get asks for name (a line of cat-file's input: plainRev or a plainPath after a colon).
func (c *catFile) get(name string) object {
	if c.failed {
		return object{}
	}
	if _, err := io.WriteString(c.in, name+"\n"); err != nil {
		c.failed = true
		return object{}
	}
	line, err := c.out.ReadString('\n')
	if err != nil {
		c.failed = true
		return object{}
	}
	if line == name+" missing\n" {
		return object{missing: true}
	}
	f := strings.Fields(strings.TrimSuffix(line, "\n"))
	if len(f) != 3 || !isFullSHA(f[0]) {
		// "<name> ambiguous" and anything else: an answer only the old way words.
		c.failed = true
		return object{}
	}
	size, err := strconv.Atoi(f[2])
	if err != nil || size < 0 {
		c.failed = true
		return object{}
	}
	obj := object{found: true, oid: f[0], kind: f[1]}
	if !c.check {
		obj.data = make([]byte, size+1) // the content and a newline
		if _, err := io.ReadFull(c.out, obj.data); err != nil || obj.data[size] != '\n' {
			c.failed = true
			return object{}
		}
		obj.data = obj.data[:size]
	}
	return obj
}

// close ends the session; ok is false when any of it is not to be trusted (git failed,
// said anything on stderr, or answered what could not be read).
func (c *catFile) close() (ok bool) {
	c.in.Close()
	// What was not read (a session cut short) must not keep git writing into a full pipe.
	if n, err := io.Copy(io.Discard, c.out); n > 0 || err != nil {
		c.failed = true // an answer no question asked for
	}
	err := c.cmd.Wait()
	return err == nil && !c.failed && c.stderr.Len() == 0
}

// plainRev reports a rev that is a ref name, HEAD or an object name in the characters of
// ordinary ref names only: no rev-parse syntax (a..b, ^x, x^@, x@{1}, x:path, an option),
// nothing cat-file would read otherwise than `rev-parse --verify --end-of-options` does.
func plainRev(rev string) bool {
	if rev == "" || rev[0] == '-' || rev[0] == '.' || strings.Contains(rev, "..") {
		return false
	}
	for _, c := range rev {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '/' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// plainPath reports a clean root-relative path that one line of cat-file's input carries
// as it is (no control character, no leading or trailing space, nothing git reads as
// relative to its working directory).
func plainPath(p string) bool {
	if p == "" || p == "." || strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../") || p == ".." || strings.TrimSpace(p) != p {
		return false
	}
	for _, c := range p {
		if c < 0x20 || c == 0x7f {
			return false
		}
	}
	return true
}

// resolveAll is resolve of each of revs in one process. ok is false, and nothing is
// remembered, when a rev is not plainRev or the session is not to be trusted: the caller
// then resolves them one by one.
func (g Git) resolveAll(ctx context.Context, revs []string) (shas []string, found []bool, ok bool) {
	for _, rev := range revs {
		if !plainRev(rev) {
			return nil, nil, false
		}
	}
	c, err := g.catFile(ctx, true)
	if err != nil {
		return nil, nil, false
	}
	shas, found = make([]string, len(revs)), make([]bool, len(revs))
	for i, rev := range revs {
		obj := c.get(rev + "^{commit}")
		switch {
		case obj.found && obj.kind == "commit":
			shas[i], found[i] = obj.oid, true
		case !obj.missing:
			c.failed = true
		}
	}
	if !c.close() {
		return nil, nil, false
	}
	for i, rev := range revs {
		if found[i] {
			g.remember(rev, shas[i])
		}
	}
	return shas, found, true
}

// remember keeps what resolve keeps of rev resolved to the commit sha.
func (g Git) remember(rev, sha string) {
	if !isFullSHA(sha) {
		return // nothing resolved: nothing to remember
	}
	if isFullSHA(rev) {
		commits.Store(g.Dir+"\x00"+rev, sha)
	}
	commits.Store(g.Dir+"\x00"+sha, sha) // a commit's own SHA names it, whatever rev was
}

// CommitFile is Commit(rev), then ReadFile of file at that commit, in one process: the
// same answers and errors.
func (g Git) CommitFile(ctx context.Context, rev, file string) (sha string, data []byte, err error) {
	if sha, data, ok := g.commitFile(ctx, rev, file); ok {
		return sha, data, nil
	} else if sha != "" {
		return sha, nil, notExist(file, sha)
	}
	if sha, err = g.Commit(ctx, rev); err != nil {
		return "", nil, err
	}
	data, err = g.ReadFile(ctx, sha, file)
	return sha, data, err
}

// commitFile is CommitFile's one process: ok with the content; sha alone when file is not a
// file of the commit (ReadFile's fs.ErrNotExist); neither when it cannot tell.
func (g Git) commitFile(ctx context.Context, rev, file string) (sha string, data []byte, ok bool) {
	p := cleanPath(file)
	if !plainRev(rev) || !plainPath(p) {
		return "", nil, false
	}
	c, err := g.catFile(ctx, false)
	if err != nil {
		return "", nil, false
	}
	commit := c.get(rev + "^{commit}")
	var blob object
	if commit.found && commit.kind == "commit" {
		blob = c.get(commit.oid + ":" + p)
	} else {
		c.failed = true
	}
	if !c.close() {
		return "", nil, false
	}
	g.remember(rev, commit.oid)
	if blob.found && blob.kind == "blob" {
		return commit.oid, blob.data, true
	}
	// Not there, or not a file (a tree, a submodule's commit): what `cat-file blob` refuses.
	return commit.oid, nil, false
}

// notExist is ReadFile's error for a file that rev does not hold.
func notExist(file, rev string) error {
	return fmt.Errorf("read %s at %s: %w", file, rev, fs.ErrNotExist)
}

// cleanPath is how ReadFile names file after the colon: root-relative, slash-separated.
func cleanPath(file string) string {
	return path.Clean(strings.TrimPrefix(filepath.ToSlash(file), "/"))
}

// readFiles is ReadFile of each of files at rev, in order, the first error returned: what
// one cat-file process reads as a file is taken, the rest (and everything, when the
// session is not to be trusted) is read the old way.
func (g Git) readFiles(ctx context.Context, rev string, files []string) ([][]byte, error) {
	datas := make([][]byte, len(files))
	read := make([]bool, len(files))
	if len(files) > 0 && plainRev(rev) {
		if c, err := g.catFile(ctx, false); err == nil {
			for i, f := range files {
				if p := cleanPath(f); plainPath(p) {
					obj := c.get(rev + ":" + p)
					datas[i], read[i] = obj.data, obj.found && obj.kind == "blob"
				}
			}
			if !c.close() {
				clear(read)
			}
		}
	}
	for i, f := range files {
		if !read[i] {
			data, err := g.ReadFile(ctx, rev, f)
			if err != nil {
				return nil, err
			}
			datas[i] = data
		}
	}
	return datas, nil
}
