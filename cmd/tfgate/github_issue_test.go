package main

import (
	"strconv"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/tfgate/tfgate/internal/github/githubtest"
)

// ghEditIssue is `github editissue N title|state VALUE` or `github editissue N body FILE`:
// someone changes issue N in the browser.
func ghEditIssue(ts *testscript.TestScript, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: github editissue N title|state VALUE | github editissue N body FILE")
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	field, value := args[1], args[2]
	if field == "body" {
		value = ts.ReadFile(value)
	}
	ok := ghServer(ts).EditIssueByHand(scriptRepo, n, func(is *githubtest.Issue) {
		switch field {
		case "title":
			is.Title = value
		case "body":
			is.Body = value
		case "state":
			is.State = value
		default:
			ts.Fatalf("github editissue: unknown field %q", field)
		}
	})
	if !ok {
		ts.Fatalf("github editissue: no issue #%d", n)
	}
}
