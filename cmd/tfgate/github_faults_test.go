package main

import (
	"strconv"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdGitHubFault sets up the faults beyond a plain error (see cmdGitHub): writefail N
// STATUS MATCH, stall|stallbody N DURATION MATCH, empty|truncate|html N MATCH.
func cmdGitHubFault(ts *testscript.TestScript, kind string, args []string) {
	want := 2
	if kind == "writefail" || kind == "stall" || kind == "stallbody" {
		want = 3
	}
	if len(args) != want {
		ts.Fatalf("usage: github writefail N STATUS MATCH | github stall|stallbody N DURATION MATCH | github empty|truncate|html N MATCH")
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	s, match := ghServer(ts), args[len(args)-1]
	switch kind {
	case "writefail":
		status, err := strconv.Atoi(args[1])
		ts.Check(err)
		s.WriteThenFailNext(n, status, match)
	case "stall", "stallbody":
		d, err := time.ParseDuration(args[1])
		ts.Check(err)
		if kind == "stall" {
			s.StallNext(n, d, match)
		} else {
			s.StallBodyNext(n, d, match)
		}
	case "empty":
		s.EmptyNext(n, match)
	case "truncate":
		s.TruncateNext(n, match)
	case "html":
		s.HTMLNext(n, match)
	}
}
