package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/tfgate/tfgate/internal/github/githubtest"
)

// The fake GitHub of the scripts: one githubtest server per script, started by
// `github start`, living in this test process while tfgate runs as a subprocess.
var (
	scriptsT  *testing.T
	ghServers sync.Map // work dir → *githubtest.Server
)

const scriptRepo = "acme/infra"

func ghServer(ts *testscript.TestScript) *githubtest.Server {
	s, ok := ghServers.Load(ts.Getenv("WORK"))
	if !ok {
		ts.Fatalf("github: run `github start` first")
	}
	return s.(*githubtest.Server)
}

// github SUBCOMMAND ARGS... drives and inspects the fake GitHub:
//
//	github start                        start it; set GITHUB_API_URL, GITHUB_TOKEN (an installation token) and the Actions env,
//	                                    and GITHUB_APP_TOKEN (a GitHub App's token granted members: read: it reads teams)
//	github pr N REPODIR [fork] [target] [testmerge]
//	                                    a pull request from REPODIR's HEAD onto origin/main; writes the event payload,
//	                                    sets GITHUB_EVENT_*, HEAD_SHA and BASE_SHA; testmerge checks out GitHub's test
//	                                    merge of it (detached), as actions/checkout does by default
//	github comment USER N FILE          USER (alice, bob, carol) comments FILE's content on pull request N
//	github comments N COUNT             pull request N has exactly COUNT comments; writes them to comment-N-I.md
//	github status SHA CONTEXT STATE [REGEXP]  the latest status CONTEXT on SHA has STATE (and a matching description)
//	github fail N STATUS MATCH          the next N requests matching MATCH get STATUS
//	github secondary N MATCH            the next N requests matching MATCH hit a secondary rate limit
//	github writefail N STATUS MATCH     the next N requests matching MATCH are served (the write happens), then answered STATUS
//	github stall N DURATION MATCH       the next N requests matching MATCH are held DURATION (or until tfgate gives up) before being served
//	github stallbody N DURATION MATCH   as stall, after sending the headers and half the body
//	github empty|truncate|html N MATCH  the next N requests matching MATCH are answered 200 with an empty body, half
//	                                    their body (malformed JSON), or an HTML page
//	github label N LABEL...             adds the labels to pull request N (a later github pr lists them in its event)
//	github calls MAX                    at most MAX requests since start (or reset); prints the counts
//	github reset                        resets the request counts
//	github issues COUNT                 the repository has exactly COUNT issues; writes issue-N.md (body), issue-N.title,
//	                                    issue-N.state and issue-N.labels (one per line) for each, and its comments to comment-N-I.md
//	github issue USER FILE [LABEL...]   USER opens an issue whose body is FILE's content
//	github review USER N STATE [SHA]    USER reviews pull request N (APPROVED, CHANGES_REQUESTED, COMMENTED, DISMISSED)
//	                                    on SHA (default $HEAD_SHA); also writes a pull_request_review event and sets GITHUB_EVENT_*
//	github perm USER PERMISSION         USER's permission on the repository (admin, maintain, write, triage, read, none)
//	github team ORG/SLUG USER...        a team with these members
//	github rebasemerge N REPODIR [unmapped]  as merge, with GitHub's "Rebase and merge": the commits replayed, no merge
//	                                    commit; unmapped: GitHub associates only the last with the pull request
//	github merge N REPODIR              merges pull request N's branch into main in REPODIR (a merge commit, pushed to
//	                                    origin), marks it merged, writes the push event; sets GITHUB_EVENT_*, GITHUB_SHA, MERGE_SHA
//	github queue N REPODIR [frombase]   the merge queue takes pull request N: its commit (N's head merged into the
//	                                    last entry of the queue, else origin/main) on the queue branch
//	                                    gh-readonly-queue/main/pr-N-<head>, checked out detached; writes the
//	                                    merge_group event (base_sha: the entry's parent commit, as GitHub; with
//	                                    frombase origin/main, the whole group in one event); sets GITHUB_EVENT_*,
//	                                    GITHUB_SHA and QUEUE_SHA
//	github unqueue N                    the queue drops N's branch (what a group built with it still holds)
//	github land N REPODIR               the queue merges its entries up to N's: main fast-forwards to N's entry
//	                                    (pushed), each pull request is merged as its own entry's commit, their
//	                                    branches deleted; writes the push event; sets GITHUB_SHA and MERGE_SHA
//	github push REPODIR                 pushes REPODIR's HEAD to origin's main directly (no pull request); writes the
//	                                    push event; sets GITHUB_EVENT_*, GITHUB_SHA and MERGE_SHA
//	github artifact NAME DIR [fork]     uploads DIR's files as the Actions artifact NAME (zip entries relative to DIR)
//	                                    from a run for $HEAD_SHA ($QUEUE_SHA on merge_group; in a fork: fork)
//	github artifact-zip NAME FILE       uploads the zip archive FILE as is as the artifact NAME
//	github expire NAME                  the artifacts called NAME expire (retention)
//	github statuses SHA FILE            writes every status on SHA, oldest first, one a line, to FILE
//	github setstatus USER SHA CONTEXT STATE  USER (not tfgate) sets the status CONTEXT on SHA
//	github outputs FILE DST             reads the $GITHUB_OUTPUT file FILE as the runner does; writes name=value lines to DST
//	github annotations FILE DST         writes the workflow commands that make annotations (::error …) in FILE to DST
func cmdGitHub(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: github SUBCOMMAND ARGS...")
	}
	switch sub, rest := args[0], args[1:]; sub {
	case "start":
		s := githubtest.New(scriptsT)
		ghServers.Store(ts.Getenv("WORK"), s)
		ts.Defer(func() {
			ghServers.Delete(ts.Getenv("WORK"))
			if v := s.TakeViolations(); len(v) > 0 {
				ts.Logf("githubtest contract violations:\n%s", strings.Join(v, "\n"))
				ts.Fatalf("tfgate sent requests GitHub's REST API does not allow")
			}
		})
		work := ts.Getenv("WORK")
		for k, v := range map[string]string{
			"GITHUB_ACTIONS": "true", "CI": "true", "GITHUB_API_URL": s.URL(), "GITHUB_SERVER_URL": "https://github.example",
			"GITHUB_REPOSITORY": scriptRepo, "GITHUB_TOKEN": githubtest.InstallationToken, "GITHUB_RUN_ID": "4242",
			"GITHUB_RUN_ATTEMPT": "1", "GITHUB_STEP_SUMMARY": filepath.Join(work, "summary.md"),
			"GITHUB_OUTPUT": filepath.Join(work, "output.txt"), "GITHUB_APP_TOKEN": githubtest.AppToken,
		} {
			ts.Setenv(k, v)
		}
	case "pr":
		if len(rest) < 2 {
			ts.Fatalf("usage: github pr N REPODIR [fork] [target]")
		}
		n, err := strconv.Atoi(rest[0])
		ts.Check(err)
		dir := ts.MkAbs(rest[1])
		fork, target, testMerge := false, false, false
		for _, o := range rest[2:] {
			fork, target, testMerge = fork || o == "fork", target || o == "target", testMerge || o == "testmerge"
		}
		head, base := gitRev(ts, dir, "HEAD"), gitRev(ts, dir, "origin/main")
		if testMerge {
			// What actions/checkout checks out on pull_request by default: GitHub's merge of
			// the head into the base (refs/pull/N/merge), detached.
			gitRun(ts, dir, "checkout", "-q", "--detach", base)
			gitRun(ts, dir, "merge", "-q", "--no-ff", "-m", "Merge "+head+" into "+base, head)
		}
		author := githubtest.Alice
		before := "" // a new push to an open pull request: its previous head, as GitHub's "synchronize" says
		if old, ok := ghServer(ts).PullState(scriptRepo, n); ok && old.HeadSHA != head && old.State != "closed" {
			before = old.HeadSHA
		}
		labels := ghServer(ts).PullLabels(scriptRepo, n) // a new push keeps the pull request's labels
		ghServer(ts).AddPull(scriptRepo, githubtest.Pull{Number: n, Title: "change", Author: author, HeadSHA: head, BaseSHA: base,
			HeadRef: "change", BaseRef: "main", Fork: fork})
		ghServer(ts).SetLabels(scriptRepo, n, labels)
		payloadLabels := []map[string]any{}
		for _, l := range labels {
			payloadLabels = append(payloadLabels, map[string]any{"name": l})
		}
		headRepo := scriptRepo
		if fork {
			headRepo = "mallory/infra"
		}
		event := map[string]any{
			"action": "synchronize", "number": n,
			"pull_request": map[string]any{
				"number": n, "title": "change", "user": map[string]any{"login": author.Login}, "labels": payloadLabels,
				"head": map[string]any{"sha": head, "ref": "change", "repo": map[string]any{"full_name": headRepo, "fork": fork}},
				"base": map[string]any{"sha": base, "ref": "main", "repo": map[string]any{"full_name": scriptRepo}},
			},
			"repository": map[string]any{"full_name": scriptRepo, "name": "infra", "owner": map[string]any{"login": "acme"}},
			"sender":     map[string]any{"login": author.Login},
		}
		if before != "" {
			event["before"], event["after"] = before, head
		}
		data, _ := json.MarshalIndent(event, "", "  ")
		path := filepath.Join(ts.Getenv("WORK"), fmt.Sprintf("event-%d.json", n))
		ts.Check(os.WriteFile(path, data, 0o644))
		name := "pull_request"
		if target {
			name = "pull_request_target"
		}
		ts.Setenv("GITHUB_EVENT_NAME", name)
		ts.Setenv("GITHUB_EVENT_PATH", path)
		ts.Setenv("GITHUB_SHA", gitRev(ts, dir, "HEAD"))
		ts.Setenv("HEAD_SHA", head)
		ts.Setenv("BASE_SHA", base)
		if fork {
			ts.Setenv("GITHUB_TOKEN", githubtest.ForkToken)
		}
	case "comment":
		if len(rest) != 3 {
			ts.Fatalf("usage: github comment USER N FILE")
		}
		// (tfgate: a comment as tfgate's identity, as an older version wrote it.)
		users := map[string]githubtest.User{"alice": githubtest.Alice, "bob": githubtest.Bob, "carol": githubtest.Carol, "tfgate": githubtest.Bot}
		u, ok := users[rest[0]]
		if !ok {
			ts.Fatalf("github comment: unknown user %q", rest[0])
		}
		n, err := strconv.Atoi(rest[1])
		ts.Check(err)
		ghServer(ts).AddComment(scriptRepo, n, u, ts.ReadFile(rest[2]))
	case "comments":
		if len(rest) != 2 {
			ts.Fatalf("usage: github comments N COUNT")
		}
		n, err := strconv.Atoi(rest[0])
		ts.Check(err)
		want, err := strconv.Atoi(rest[1])
		ts.Check(err)
		cs := ghServer(ts).Comments(scriptRepo, n)
		for i, c := range cs {
			name := fmt.Sprintf("comment-%d-%d.md", n, i+1)
			ts.Check(os.WriteFile(ts.MkAbs(name), []byte(c.Body), 0o644))
			ts.Logf("%s by %s, %d characters, edited %d times", name, c.Author.Login, len([]rune(c.Body)), c.Edits)
		}
		if len(cs) != want {
			ts.Fatalf("pull request %d has %d comments, want %d", n, len(cs), want)
		}
	case "status":
		if len(rest) < 3 {
			ts.Fatalf("usage: github status SHA CONTEXT STATE [REGEXP]")
		}
		var latest *githubtest.Status
		for _, s := range ghServer(ts).Statuses(scriptRepo, rest[0]) {
			if s.Context == rest[1] {
				latest = &s
			}
		}
		if latest == nil {
			ts.Fatalf("no status %s on %s", rest[1], rest[0])
		}
		ts.Logf("status %s: %s %q %s", latest.Context, latest.State, latest.Description, latest.TargetURL)
		if latest.State != rest[2] {
			ts.Fatalf("status %s is %s, want %s", rest[1], latest.State, rest[2])
		}
		if len(rest) > 3 && !regexp.MustCompile(rest[3]).MatchString(latest.Description) {
			ts.Fatalf("status description %q does not match %s", latest.Description, rest[3])
		}
	case "fail", "secondary":
		if (sub == "fail" && len(rest) != 3) || (sub == "secondary" && len(rest) != 2) {
			ts.Fatalf("usage: github fail N STATUS MATCH | github secondary N MATCH")
		}
		n, err := strconv.Atoi(rest[0])
		ts.Check(err)
		if sub == "secondary" {
			ghServer(ts).SecondaryRateLimitNext(n, time.Second, rest[1])
			return
		}
		status, err := strconv.Atoi(rest[1])
		ts.Check(err)
		ghServer(ts).FailNext(n, status, rest[2])
	case "writefail", "stall", "stallbody", "empty", "truncate", "html":
		cmdGitHubFault(ts, sub, rest)
	case "label":
		if len(rest) < 2 {
			ts.Fatalf("usage: github label N LABEL...")
		}
		n, err := strconv.Atoi(rest[0])
		ts.Check(err)
		s := ghServer(ts)
		s.SetLabels(scriptRepo, n, append(s.PullLabels(scriptRepo, n), rest[1:]...))
	case "calls":
		if len(rest) != 1 {
			ts.Fatalf("usage: github calls MAX")
		}
		limit, err := strconv.Atoi(rest[0])
		ts.Check(err)
		s := ghServer(ts)
		counts := s.Counts()
		keys := make([]string, 0, len(counts))
		for k := range counts {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			ts.Logf("%4d %s", counts[k], k)
		}
		if got := s.Requests(); got > limit {
			ts.Fatalf("%d API requests, want at most %d", got, limit)
		}
	case "reset":
		ghServer(ts).ResetCounts()
	case "issues":
		if len(rest) != 1 {
			ts.Fatalf("usage: github issues COUNT")
		}
		want, err := strconv.Atoi(rest[0])
		ts.Check(err)
		s := ghServer(ts)
		issues := s.Issues(scriptRepo)
		for _, is := range issues {
			base := fmt.Sprintf("issue-%d", is.Number)
			for ext, content := range map[string]string{".md": is.Body, ".title": is.Title + "\n", ".state": is.State + "\n",
				".labels": strings.Join(is.Labels, "\n") + "\n"} {
				ts.Check(os.WriteFile(ts.MkAbs(base+ext), []byte(content), 0o644))
			}
			cs := s.Comments(scriptRepo, is.Number)
			for i, c := range cs {
				ts.Check(os.WriteFile(ts.MkAbs(fmt.Sprintf("comment-%d-%d.md", is.Number, i+1)), []byte(c.Body), 0o644))
			}
			ts.Logf("issue #%d %s by %s, labels %v, %d comments: %s", is.Number, is.State, is.Author.Login, is.Labels, len(cs), is.Title)
		}
		if len(issues) != want {
			ts.Fatalf("%d issues, want %d", len(issues), want)
		}
	case "issue":
		if len(rest) < 2 {
			ts.Fatalf("usage: github issue USER FILE [LABEL...]")
		}
		// (tfgate: a comment as tfgate's identity, as an older version wrote it.)
		users := map[string]githubtest.User{"alice": githubtest.Alice, "bob": githubtest.Bob, "carol": githubtest.Carol, "tfgate": githubtest.Bot}
		u, ok := users[rest[0]]
		if !ok {
			ts.Fatalf("github issue: unknown user %q", rest[0])
		}
		n := ghServer(ts).AddIssue(scriptRepo, githubtest.Issue{Title: "issue by " + rest[0], Body: ts.ReadFile(rest[1]), Author: u, Labels: rest[2:]})
		ts.Logf("issue #%d by %s", n, u.Login)
	case "editissue":
		ghEditIssue(ts, rest)
	case "review":
		ghReview(ts, rest)
	case "perm":
		if len(rest) != 2 {
			ts.Fatalf("usage: github perm USER PERMISSION")
		}
		ghServer(ts).SetPermission(scriptRepo, rest[0], rest[1])
	case "team":
		if len(rest) < 1 {
			ts.Fatalf("usage: github team ORG/SLUG USER...")
		}
		org, slug, ok := strings.Cut(rest[0], "/")
		if !ok {
			ts.Fatalf("github team: want ORG/SLUG, got %q", rest[0])
		}
		ghServer(ts).AddTeam(org, slug, rest[1:]...)
	case "merge", "rebasemerge":
		ghMerge(ts, rest, sub == "rebasemerge")
	case "queue":
		ghQueue(ts, rest)
	case "unqueue":
		if len(rest) != 1 {
			ts.Fatalf("usage: github unqueue N")
		}
		n, err := strconv.Atoi(rest[0])
		ts.Check(err)
		ref, _, ok := queueEntry(ts, n)
		if !ok {
			ts.Fatalf("github unqueue: pull request %d is not in the merge queue", n)
		}
		ghServer(ts).DeleteRef(scriptRepo, ref)
	case "land":
		ghLand(ts, rest)
	case "push":
		if len(rest) != 1 {
			ts.Fatalf("usage: github push REPODIR")
		}
		dir := ts.MkAbs(rest[0])
		before := gitRev(ts, dir, "origin/main")
		gitRun(ts, dir, "push", "-q", "origin", "HEAD:main")
		after := gitRev(ts, dir, "HEAD")
		writePush(ts, "push-direct.json", before, after)
	case "artifact":
		if len(rest) != 2 && (len(rest) != 3 || rest[2] != "fork") {
			ts.Fatalf("usage: github artifact NAME DIR [fork]")
		}
		root := ts.MkAbs(rest[1])
		files := map[string]string{}
		ts.Check(filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := os.ReadFile(path)
			rel, _ := filepath.Rel(root, path)
			files[filepath.ToSlash(rel)] = string(data)
			return err
		}))
		id := ghServer(ts).AddArtifact(scriptRepo, 4242, rest[0], files)
		ghServer(ts).SetArtifactOrigin(scriptRepo, id, runHeadSHA(ts), len(rest) == 3)
		ts.Logf("artifact %d %s: %d files", id, rest[0], len(files))
	case "artifact-zip":
		if len(rest) != 2 {
			ts.Fatalf("usage: github artifact-zip NAME FILE")
		}
		data, err := os.ReadFile(ts.MkAbs(rest[1]))
		ts.Check(err)
		id := ghServer(ts).AddArtifactZip(scriptRepo, 4242, rest[0], data)
		ghServer(ts).SetArtifactOrigin(scriptRepo, id, runHeadSHA(ts), false)
	case "expire":
		if len(rest) != 1 {
			ts.Fatalf("usage: github expire NAME")
		}
		ghServer(ts).ExpireArtifacts(scriptRepo, rest[0])
	case "statuses":
		if len(rest) != 2 {
			ts.Fatalf("usage: github statuses SHA FILE")
		}
		var b strings.Builder
		for _, st := range ghServer(ts).Statuses(scriptRepo, rest[0]) {
			fmt.Fprintf(&b, "%s %s %q %s by %s\n", st.Context, st.State, st.Description, st.TargetURL, st.Creator.Login)
		}
		ts.Check(os.WriteFile(ts.MkAbs(rest[1]), []byte(b.String()), 0o644))
	case "outputs":
		if len(rest) != 2 {
			ts.Fatalf("usage: github outputs FILE DST")
		}
		ts.Check(os.WriteFile(ts.MkAbs(rest[1]), []byte(stepOutputs(ts, ts.ReadFile(rest[0]))), 0o644))
	case "annotations":
		if len(rest) != 2 {
			ts.Fatalf("usage: github annotations FILE DST")
		}
		var b strings.Builder
		for _, l := range strings.SplitAfter(ts.ReadFile(rest[0]), "\n") {
			if regexp.MustCompile(`^::(error|warning|notice)[ :]`).MatchString(l) {
				b.WriteString(l)
			}
		}
		ts.Check(os.WriteFile(ts.MkAbs(rest[1]), []byte(b.String()), 0o644))
	case "setstatus":
		if len(rest) != 4 {
			ts.Fatalf("usage: github setstatus USER SHA CONTEXT STATE")
		}
		u, ok := scriptUsers[rest[0]]
		if !ok {
			ts.Fatalf("github setstatus: unknown user %q", rest[0])
		}
		ghServer(ts).AddStatus(scriptRepo, rest[1], u, rest[3], rest[2], "set by "+u.Login)
	case "ruleset", "protect", "secret", "hang":
		ghSetup(ts, sub, rest)
	case "workflow", "dispatched", "labels", "token", "run", "forge":
		ghStale(ts, sub, rest)
	case "gitpush", "gitfetch", "pulls", "closepull", "branches":
		ghGit(ts, sub, rest) // github_git_test.go
	default:
		ts.Fatalf("github: unknown subcommand %q", sub)
	}
}

// ghSetup seeds what `tfgate doctor` reads of a repository's settings:
//
//	github ruleset NAME [evaluate] [merge_queue] [include=REFPATTERN] [CHECK...]
//	                                    an active (or evaluate-only) branch ruleset on the default branch (or
//	                                    REFPATTERN, e.g. refs/heads/release/*) requiring the status checks CHECK...
//	github protect BRANCH [CHECK...]    classic branch protection of BRANCH requiring CHECK...
//	github secret NAME                  the repository's Actions secret NAME is set
//	github hang N SECONDS MATCH         the next N requests matching MATCH wait SECONDS, then get 504
func ghSetup(ts *testscript.TestScript, sub string, rest []string) {
	s := ghServer(ts)
	switch sub {
	case "ruleset":
		if len(rest) < 1 {
			ts.Fatalf("usage: github ruleset NAME [evaluate] [merge_queue] [include=REFPATTERN] [CHECK...]")
		}
		rs := githubtest.Ruleset{Name: rest[0]}
		for _, a := range rest[1:] {
			switch {
			case a == "evaluate":
				rs.Enforcement = "evaluate"
			case a == "merge_queue":
				rs.MergeQueue = true
			case strings.HasPrefix(a, "include="):
				rs.Include = append(rs.Include, strings.TrimPrefix(a, "include="))
			default:
				rs.RequiredChecks = append(rs.RequiredChecks, a)
			}
		}
		ts.Logf("ruleset %d %s", s.AddRuleset(scriptRepo, rs), rs.Name)
	case "protect":
		if len(rest) < 1 {
			ts.Fatalf("usage: github protect BRANCH [CHECK...]")
		}
		s.ProtectBranch(scriptRepo, rest[0], rest[1:]...)
	case "secret":
		if len(rest) != 1 {
			ts.Fatalf("usage: github secret NAME")
		}
		s.SetSecret(scriptRepo, rest[0])
	case "hang":
		if len(rest) != 3 {
			ts.Fatalf("usage: github hang N SECONDS MATCH")
		}
		n, err := strconv.Atoi(rest[0])
		ts.Check(err)
		secs, err := strconv.Atoi(rest[1])
		ts.Check(err)
		s.HangNext(n, time.Duration(secs)*time.Second, rest[2])
	}
}

// stepOutputs reads a $GITHUB_OUTPUT file as the runner does (name=value, or
// name<<DELIMITER, the value's lines, DELIMITER) and lists the outputs as name=value lines,
// a multi-line value indented: the delimiters are random, the outputs are not.
func stepOutputs(ts *testscript.TestScript, content string) string {
	var b strings.Builder
	lines := strings.Split(strings.TrimSuffix(content, "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		if name, delim, ok := strings.Cut(lines[i], "<<"); ok {
			var value []string
			for i++; i < len(lines) && lines[i] != delim; i++ {
				value = append(value, lines[i])
			}
			if i == len(lines) {
				ts.Fatalf("step output %s: no closing delimiter %s", name, delim)
			}
			fmt.Fprintf(&b, "%s=%s\n", name, strings.Join(value, "\n  "))
			continue
		}
		b.WriteString(lines[i] + "\n")
	}
	return b.String()
}

var scriptUsers = map[string]githubtest.User{"alice": githubtest.Alice, "bob": githubtest.Bob, "carol": githubtest.Carol,
	"mallory": {Login: "mallory", ID: 1666, Type: "User"}} // a stranger to the repository

// ghReview adds a review and writes the pull_request_review event it would trigger.
func ghReview(ts *testscript.TestScript, rest []string) {
	if len(rest) < 3 {
		ts.Fatalf("usage: github review USER N STATE [SHA]")
	}
	u, ok := scriptUsers[rest[0]]
	if !ok {
		ts.Fatalf("github review: unknown user %q", rest[0])
	}
	n, err := strconv.Atoi(rest[1])
	ts.Check(err)
	sha := ts.Getenv("HEAD_SHA")
	if len(rest) > 3 {
		sha = rest[3]
	}
	ghServer(ts).AddReview(scriptRepo, n, githubtest.Review{User: u, State: rest[2], CommitID: sha})
	event := map[string]any{
		"action": "submitted",
		"review": map[string]any{"state": strings.ToLower(rest[2]), "user": map[string]any{"login": u.Login}, "commit_id": sha},
		"pull_request": map[string]any{
			"number": n, "title": "change", "user": map[string]any{"login": githubtest.Alice.Login},
			"head": map[string]any{"sha": ts.Getenv("HEAD_SHA"), "ref": "change", "repo": map[string]any{"full_name": scriptRepo, "fork": false}},
			"base": map[string]any{"sha": ts.Getenv("BASE_SHA"), "ref": "main", "repo": map[string]any{"full_name": scriptRepo}},
		},
		"repository": map[string]any{"full_name": scriptRepo, "name": "infra", "owner": map[string]any{"login": "acme"}},
		"sender":     map[string]any{"login": u.Login},
	}
	writeEvent(ts, "pull_request_review", fmt.Sprintf("review-%d.json", n), event)
}

// ghMerge merges the pull request's branch with a merge commit, as GitHub's merge button.
func ghMerge(ts *testscript.TestScript, rest []string, rebase bool) {
	unmapped := rebase && len(rest) == 3 && rest[2] == "unmapped"
	if unmapped {
		rest = rest[:2]
	}
	if len(rest) != 2 {
		ts.Fatalf("usage: github merge N REPODIR | github rebasemerge N REPODIR [unmapped]")
	}
	n, err := strconv.Atoi(rest[0])
	ts.Check(err)
	dir := ts.MkAbs(rest[1])
	head := ts.Getenv("HEAD_SHA") // the pull request's head, as `github pr` last set it
	before := gitRev(ts, dir, "origin/main")
	gitRun(ts, dir, "checkout", "-q", "-f", "main")
	if rebase { // "Rebase and merge": the pull request's commits replayed onto main, no merge commit
		from := strings.TrimSpace(gitRun(ts, dir, "merge-base", "main", head))
		gitRun(ts, dir, "cherry-pick", "--allow-empty", from+".."+head)
	} else {
		gitRun(ts, dir, "merge", "-q", "--no-ff", "-m", fmt.Sprintf("Merge pull request #%d from acme/change", n), head)
	}
	gitRun(ts, dir, "push", "-q", "origin", "main")
	merge := gitRev(ts, dir, "HEAD")
	var replayed []string // GitHub associates a rebase merge's every commit with the pull request
	if rebase && !unmapped {
		replayed = strings.Fields(gitRun(ts, dir, "rev-list", before+".."+merge+"^"))
	}
	ghServer(ts).MergePullCommits(scriptRepo, n, merge, replayed)
	writePush(ts, fmt.Sprintf("push-%d.json", n), before, merge)
}

// writePush writes the push event of main moving from before to after (a merge, a merge
// queue landing, a direct push) and sets GITHUB_SHA and MERGE_SHA to after.
func writePush(ts *testscript.TestScript, file, before, after string) {
	writeEvent(ts, "push", file, map[string]any{
		"ref": "refs/heads/main", "before": before, "after": after,
		"repository": map[string]any{"full_name": scriptRepo, "name": "infra", "owner": map[string]any{"login": "acme"}, "default_branch": "main"},
		"sender":     map[string]any{"login": githubtest.Bob.Login},
	})
	ts.Setenv("GITHUB_SHA", after)
	ts.Setenv("MERGE_SHA", after)
}

func writeEvent(ts *testscript.TestScript, name, file string, event map[string]any) {
	data, _ := json.MarshalIndent(event, "", "  ")
	path := filepath.Join(ts.Getenv("WORK"), file)
	ts.Check(os.WriteFile(path, data, 0o644))
	ts.Setenv("GITHUB_EVENT_NAME", name)
	ts.Setenv("GITHUB_EVENT_PATH", path)
}

// gitRun runs git in dir with the script's identity and returns its output.
func gitRun(ts *testscript.TestScript, dir string, args ...string) string {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = os.Environ()
	for _, k := range []string{"HOME", "GIT_CONFIG_NOSYSTEM", "GIT_CONFIG_GLOBAL", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"} {
		cmd.Env = append(cmd.Env, k+"="+ts.Getenv(k))
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		ts.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func gitRev(ts *testscript.TestScript, dir, rev string) string {
	out, err := exec.Command("git", "-C", dir, "rev-parse", rev).Output()
	if err != nil {
		ts.Fatalf("git rev-parse %s in %s: %v", rev, dir, err)
	}
	return strings.TrimSpace(string(out))
}

// ghQueue builds the merge queue's commit for a pull request, as GitHub does: its head
// merged into the entry ahead of it (or the base branch), on a gh-readonly-queue branch, and
// writes the merge_group event.
func ghQueue(ts *testscript.TestScript, rest []string) {
	if len(rest) != 2 && (len(rest) != 3 || rest[2] != "frombase") {
		ts.Fatalf("usage: github queue N REPODIR [frombase]")
	}
	n, err := strconv.Atoi(rest[0])
	ts.Check(err)
	dir := ts.MkAbs(rest[1])
	pr, ok := ghServer(ts).PullState(scriptRepo, n)
	if !ok {
		ts.Fatalf("github queue: no pull request %d", n)
	}
	head, main := pr.HeadSHA, gitRev(ts, dir, "origin/main")
	parent := main
	if len(ghServer(ts).Refs(scriptRepo, queueRefPrefix)) > 0 && ts.Getenv("QUEUE_SHA") != "" {
		parent = ts.Getenv("QUEUE_SHA") // the last entry: the queue builds on the ones ahead
	}
	gitRun(ts, dir, "checkout", "-q", "-f", "--detach", parent)
	gitRun(ts, dir, "merge", "-q", "--no-ff", "-m", fmt.Sprintf("Merge pull request #%d from acme/change (merge queue)", n), head)
	group := gitRev(ts, dir, "HEAD")
	ref := fmt.Sprintf("%spr-%d-%s", queueRefPrefix, n, head)
	ghServer(ts).SetRef(scriptRepo, ref, group)
	base := parent
	if len(rest) == 3 {
		base = main
	}
	writeEvent(ts, "merge_group", fmt.Sprintf("queue-%d.json", n), map[string]any{
		"action":      "checks_requested",
		"merge_group": map[string]any{"head_sha": group, "head_ref": ref, "base_sha": base, "base_ref": "refs/heads/main"},
		"repository":  map[string]any{"full_name": scriptRepo, "name": "infra", "owner": map[string]any{"login": "acme"}, "default_branch": "main"},
		"sender":      map[string]any{"login": githubtest.Bob.Login},
	})
	ts.Setenv("GITHUB_SHA", group)
	ts.Setenv("QUEUE_SHA", group)
}

const queueRefPrefix = "refs/heads/gh-readonly-queue/main/"

// queueEntry is pull request n's merge queue branch and its commit.
func queueEntry(ts *testscript.TestScript, n int) (ref, sha string, ok bool) {
	for name, sha := range ghServer(ts).Refs(scriptRepo, queueRefPrefix) {
		if strings.HasPrefix(name, fmt.Sprintf("%spr-%d-", queueRefPrefix, n)) {
			return name, sha, true
		}
	}
	return "", "", false
}

// ghLand merges the queue's entries up to pull request N's as GitHub does: the base branch
// fast-forwards to N's entry, each pull request of an entry at or below it is merged with
// its own entry's commit as its merge commit, and their branches are deleted.
func ghLand(ts *testscript.TestScript, rest []string) {
	if len(rest) != 2 {
		ts.Fatalf("usage: github land N REPODIR")
	}
	n, err := strconv.Atoi(rest[0])
	ts.Check(err)
	dir := ts.MkAbs(rest[1])
	_, group, ok := queueEntry(ts, n)
	if !ok {
		ts.Fatalf("github land: pull request %d is not in the merge queue", n)
	}
	before := gitRev(ts, dir, "origin/main")
	gitRun(ts, dir, "checkout", "-q", "-f", "main")
	gitRun(ts, dir, "merge", "-q", "--ff-only", group)
	gitRun(ts, dir, "push", "-q", "origin", "main")
	for name, sha := range ghServer(ts).Refs(scriptRepo, queueRefPrefix) {
		if exec.Command("git", "-C", dir, "merge-base", "--is-ancestor", sha, group).Run() != nil {
			continue // behind N in the queue: still queued
		}
		var pr int
		var head string
		if _, err := fmt.Sscanf(strings.TrimPrefix(name, queueRefPrefix), "pr-%d-%s", &pr, &head); err != nil {
			ts.Fatalf("github land: queue branch %s: %v", name, err)
		}
		ghServer(ts).MergePull(scriptRepo, pr, sha)
		ghServer(ts).DeleteRef(scriptRepo, name)
	}
	writePush(ts, fmt.Sprintf("push-%d.json", n), before, group)
}

// runHeadSHA is the head_sha GitHub gives the workflow run of the current event: the pull
// request's head, or the merge queue's commit.
func runHeadSHA(ts *testscript.TestScript) string {
	if ts.Getenv("GITHUB_EVENT_NAME") == "merge_group" {
		return ts.Getenv("QUEUE_SHA")
	}
	return ts.Getenv("HEAD_SHA")
}
