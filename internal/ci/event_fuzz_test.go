package ci

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzEvent holds ParseEvent to what Event promises, for any bytes under every event name:
// it never panics; what is not JSON is an error; an error comes with the zero Event; a
// parsed event carries what its kind must (a pull request's number and both SHAs, a push's
// commit and ref) and nothing its kind cannot have; SHAs are commit SHAs or empty; the
// repository is a whole owner/name or unknown; and a head from a repository that is not
// known to be the base's is a fork. (FuzzParseEvent, beside GitHub.Event, fuzzes the name.)
func FuzzEvent(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "events", "*.json"))
	if err != nil || len(files) == 0 {
		f.Fatalf("no seed payloads in testdata/events: %v", err)
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{``, `null`, `{}`, `[]`, `"x"`, `{"pull_request":null}`,
		`{"repository":{"full_name":"a/b/c"}}`,
		`{"ref":"refs/heads/main","before":"` + strings.Repeat("0", 40) + `","after":"` + strings.Repeat("c", 40) + `"}`,
		`{"merge_group":{"head_sha":"` + strings.Repeat("d", 40) + `","base_sha":"` + strings.Repeat("e", 40) + `","head_ref":"refs/heads/gh-readonly-queue/main/pr-99999999999999999999-` + strings.Repeat("d", 40) + `"}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		valid := json.Valid(data)
		parsed := map[string]Event{}
		for _, name := range Events {
			ev, err := ParseEvent(name, data)
			if err != nil {
				if ev != (Event{}) {
					t.Fatalf("%s: error %v with a non-zero event %+v", name, err, ev)
				}
				continue
			}
			if !valid {
				t.Fatalf("%s: %q is not JSON, yet parsed as %+v", name, data, ev)
			}
			checkEvent(t, name, ev)
			parsed[name] = ev
		}
		// pull_request_target is pull_request run from the base branch: same payload, same event.
		pr, okPR := parsed["pull_request"]
		target, okTarget := parsed["pull_request_target"]
		if okPR != okTarget {
			t.Fatalf("payload parses as pull_request: %v, as pull_request_target: %v", okPR, okTarget)
		}
		if target.Name = pr.Name; pr != target {
			t.Fatalf("pull_request %+v\npull_request_target %+v", pr, target)
		}
	})
}

func checkEvent(t *testing.T, name string, ev Event) {
	t.Helper()
	fail := func(what string) { t.Helper(); t.Fatalf("%s: %s: %+v (review %+v)", name, what, ev, ev.Review) }
	if ev.Name != name {
		fail("wrong name")
	}
	if ev.PRNumber < 0 {
		fail("negative pull request number")
	}
	for _, sha := range []string{ev.HeadSHA, ev.BaseSHA} {
		if sha != "" && !isSHA(sha) {
			fail("a SHA that is not a commit SHA")
		}
	}
	if ev.Owner != "" || ev.Repo != "" {
		if o, r := splitRepo(ev.Owner + "/" + ev.Repo); o != ev.Owner || r != ev.Repo {
			fail("half a repository, or a name with a slash")
		}
	}
	if (ev.Review != nil) != (name == "pull_request_review") {
		fail("a review on an event that has none, or none on a review")
	}
	switch name {
	case "pull_request", "pull_request_target", "pull_request_review":
		if ev.PRNumber == 0 || ev.HeadSHA == "" || ev.BaseSHA == "" {
			fail("a pull request without its number or SHAs")
		}
		// Not a fork means: the head is in a repository known to be the base's own.
		if o, _ := splitRepo(ev.HeadRepo); !ev.Fork && o == "" {
			fail("a head repository that is not owner/name taken for the base's")
		}
	case "push":
		if ev.HeadSHA == "" || ev.HeadRef == "" || ev.PRNumber != 0 {
			fail("a push without its commit or ref, or with a pull request")
		}
		if ev.BaseSHA != "" && strings.Trim(ev.BaseSHA, "0") == "" {
			fail("the all-zero SHA (a new branch) as the base")
		}
	case "merge_group":
		if ev.HeadSHA == "" || ev.BaseSHA == "" {
			fail("a merge group without its SHAs")
		}
	case "schedule", "workflow_dispatch":
		if ev.HeadSHA != "" || ev.BaseSHA != "" || ev.PRNumber != 0 {
			fail("commits or a pull request on an event whose payload has none")
		}
	}
	if name != "pull_request" && name != "pull_request_target" && name != "pull_request_review" && (ev.Fork || ev.HeadRepo != "") {
		fail("fork fields on an event without a pull request")
	}
}
