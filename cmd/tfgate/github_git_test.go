package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// ghGit moves git objects between a checkout and the fake GitHub, and inspects pull requests:
//
//	github gitpush REPODIR           every object of REPODIR and its branches (refs/heads/…) to the fake
//	github gitfetch REPODIR BRANCH   the fake's branch BRANCH and every object it reaches into REPODIR (as
//	                                 refs/heads/BRANCH); fails unless git names each object as the fake does
//	github pulls COUNT               the repository has exactly COUNT pull requests; writes pull-N.md (body),
//	                                 pull-N.title, pull-N.state and pull-N.head (branch and commit) for each
//	github closepull N               someone closes pull request N without merging it
//	github branches FILE             writes the fake's branches (refs/heads/…), one a line, to FILE
func ghGit(ts *testscript.TestScript, sub string, rest []string) {
	s := ghServer(ts)
	switch sub {
	case "gitpush":
		if len(rest) != 1 {
			ts.Fatalf("usage: github gitpush REPODIR")
		}
		dir := ts.MkAbs(rest[0])
		cmd := exec.Command("git", "-C", dir, "cat-file", "--batch-all-objects", "--batch")
		out, err := cmd.Output()
		ts.Check(err)
		r := bufio.NewReader(bytes.NewReader(out))
		n := 0
		for {
			header, err := r.ReadString('\n')
			if err == io.EOF {
				break
			}
			ts.Check(err)
			f := strings.Fields(header)
			size, err := strconv.Atoi(f[2])
			ts.Check(err)
			data := make([]byte, size+1)
			_, err = io.ReadFull(r, data)
			ts.Check(err)
			if got := s.SetObject(scriptRepo, f[1], data[:size]); got != f[0] {
				ts.Fatalf("the fake names %s %s %s", f[1], f[0], got)
			}
			n++
		}
		for _, line := range strings.Split(strings.TrimSpace(gitRun(ts, dir, "for-each-ref", "--format=%(refname) %(objectname)", "refs/heads")), "\n") {
			ref, sha, _ := strings.Cut(line, " ")
			s.SetRef(scriptRepo, ref, sha)
		}
		ts.Logf("pushed %d objects", n)
	case "gitfetch":
		if len(rest) != 2 {
			ts.Fatalf("usage: github gitfetch REPODIR BRANCH")
		}
		dir := ts.MkAbs(rest[0])
		tip, ok := s.Refs(scriptRepo, "refs/heads/"+rest[1])["refs/heads/"+rest[1]]
		if !ok {
			ts.Fatalf("no branch %s on the fake GitHub", rest[1])
		}
		fetchObject(ts, dir, tip, map[string]bool{})
		gitRun(ts, dir, "update-ref", "refs/heads/"+rest[1], tip)
	case "pulls":
		ghPulls(ts, rest)
	case "closepull":
		if len(rest) != 1 {
			ts.Fatalf("usage: github closepull N")
		}
		n, err := strconv.Atoi(rest[0])
		ts.Check(err)
		s.ClosePull(scriptRepo, n)
	case "branches":
		if len(rest) != 1 {
			ts.Fatalf("usage: github branches FILE")
		}
		var lines []string
		for ref := range s.Refs(scriptRepo, "refs/heads/") {
			lines = append(lines, ref+"\n")
		}
		sort.Strings(lines)
		ts.Check(os.WriteFile(ts.MkAbs(rest[0]), []byte(strings.Join(lines, "")), 0o644))
	}
}

// fetchObject writes object sha and everything it reaches (a commit's tree and parents
// the checkout lacks, a tree's entries) into the checkout dir.
func fetchObject(ts *testscript.TestScript, dir, sha string, seen map[string]bool) {
	if seen[sha] || exec.Command("git", "-C", dir, "cat-file", "-e", sha).Run() == nil {
		return
	}
	seen[sha] = true
	typ, data, ok := ghServer(ts).Object(scriptRepo, sha)
	if !ok {
		ts.Fatalf("the fake GitHub has no object %s", sha)
	}
	switch typ {
	case "commit":
		for _, line := range strings.Split(string(data), "\n") {
			if k, v, _ := strings.Cut(line, " "); k == "tree" || k == "parent" {
				fetchObject(ts, dir, v, seen)
			} else if line == "" {
				break
			}
		}
	case "tree":
		for rest := data; len(rest) > 0; {
			nul := bytes.IndexByte(rest, 0)
			fetchObject(ts, dir, fmt.Sprintf("%x", rest[nul+1:nul+21]), seen)
			rest = rest[nul+21:]
		}
	}
	cmd := exec.Command("git", "-C", dir, "hash-object", "-w", "-t", typ, "--stdin")
	cmd.Stdin = bytes.NewReader(data)
	out, err := cmd.Output()
	ts.Check(err)
	if got := strings.TrimSpace(string(out)); got != sha {
		ts.Fatalf("git names the fake's %s %s as %s", typ, sha, got)
	}
}

func ghPulls(ts *testscript.TestScript, rest []string) {
	if len(rest) != 1 {
		ts.Fatalf("usage: github pulls COUNT")
	}
	want, err := strconv.Atoi(rest[0])
	ts.Check(err)
	pulls := ghServer(ts).Pulls(scriptRepo)
	for _, p := range pulls {
		base := fmt.Sprintf("pull-%d", p.Number)
		for ext, content := range map[string]string{".md": p.Body, ".title": p.Title + "\n", ".state": p.State + "\n",
			".head": p.HeadRef + " " + p.HeadSHA + "\n"} {
			ts.Check(os.WriteFile(ts.MkAbs(base+ext), []byte(content), 0o644))
		}
		ts.Logf("pull #%d %s by %s from %s (%s) into %s: %s", p.Number, p.State, p.Author.Login, p.HeadRef, p.HeadSHA, p.BaseRef, p.Title)
	}
	if len(pulls) != want {
		ts.Fatalf("%d pull requests, want %d", len(pulls), want)
	}
}
