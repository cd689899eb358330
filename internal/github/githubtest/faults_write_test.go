package githubtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestWriteThenFail(t *testing.T) {
	s := New(t)
	n := s.AddPull(repoName, Pull{})
	s.WriteThenFailNext(1, 502, "POST /repos/{owner}/{repo}/issues/{issue_number}/comments")
	path := fmt.Sprintf("/repos/%s/issues/%d/comments", repoName, n)
	want(t, call(t, s, InstallationToken, "POST", path, map[string]string{"body": "once"}), 502)
	if cs := s.Comments(repoName, n); len(cs) != 1 || cs[0].Body != "once" {
		t.Fatalf("the write did not happen: %+v", cs)
	}
	want(t, call(t, s, InstallationToken, "POST", path, map[string]string{"body": "twice"}), 201)
}

func TestStall(t *testing.T) {
	s := New(t)
	s.StallNext(1, time.Hour, "GET /user")
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", s.URL()+"/user", nil)
	req.Header.Set("Authorization", "Bearer "+AliceToken)
	start := time.Now()
	_, err := http.DefaultClient.Do(req)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
		t.Fatalf("stalled request: %v after %s", err, time.Since(start))
	}
	// A short stall is a slow answer.
	s.StallNext(1, 100*time.Millisecond, "GET /user")
	start = time.Now()
	want(t, call(t, s, AliceToken, "GET", "/user", nil), 200)
	if d := time.Since(start); d < 100*time.Millisecond {
		t.Errorf("answered after %s, before the stall ended", d)
	}
	if s.Count("GET /user") != 2 {
		t.Errorf("counts %v", s.Counts())
	}
}

func TestStallBody(t *testing.T) {
	s := New(t)
	s.StallBodyNext(1, time.Hour, "GET /user")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", s.URL()+"/user", nil)
	req.Header.Set("Authorization", "Bearer "+AliceToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !errors.Is(err, context.DeadlineExceeded) || len(b) == 0 {
		t.Fatalf("status %d, %d bytes, %v", resp.StatusCode, len(b), err)
	}
}

func TestEmptyTruncatedAndHTMLPages(t *testing.T) {
	s := New(t)
	n := s.AddPull(repoName, Pull{})
	path := fmt.Sprintf("/repos/%s/issues/%d/comments", repoName, n)
	want(t, call(t, s, InstallationToken, "POST", path, map[string]string{"body": strings.Repeat("x", 100)}), 201)
	list := "GET /repos/{owner}/{repo}/issues/{issue_number}/comments"

	s.EmptyNext(1, list)
	r := call(t, s, InstallationToken, "GET", path, nil)
	want(t, r, 200)
	if len(r.body) != 0 {
		t.Errorf("empty page has %q", r.body)
	}
	s.TruncateNext(1, list)
	r = call(t, s, InstallationToken, "GET", path, nil)
	want(t, r, 200)
	if len(r.body) == 0 || json.Valid(r.body) || !strings.HasPrefix(string(r.body), "[") {
		t.Errorf("truncated page %q", r.body)
	}
	s.HTMLNext(1, list)
	r = call(t, s, InstallationToken, "GET", path, nil)
	want(t, r, 200)
	if json.Valid(r.body) || !strings.HasPrefix(r.header.Get("Content-Type"), "text/html") {
		t.Errorf("html page %q", r.body)
	}
	var cs []map[string]any
	call(t, s, InstallationToken, "GET", path, nil).json(t, &cs)
	if len(cs) != 1 {
		t.Errorf("after the faults: %d comments", len(cs))
	}
	if v := s.TakeViolations(); len(v) > 0 {
		t.Errorf("faults are not contract violations: %q", v)
	}
}
