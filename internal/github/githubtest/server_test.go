package githubtest

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tfgate/tfgate/internal/testenv"
)

const repoName = "acme/infra"

type reply struct {
	status int
	header http.Header
	body   []byte
}

func (r reply) json(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("decode %s: %v", r.body, err)
	}
}

func call(t *testing.T, s *Server, token, method, path string, body any) reply {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	url := path
	if !strings.HasPrefix(path, "http") {
		url = s.URL() + path
	}
	req, _ := http.NewRequest(method, url, rd)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return reply{resp.StatusCode, resp.Header, b}
}

func want(t *testing.T, r reply, status int) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d: %s", r.status, status, r.body)
	}
}

func TestAuthentication(t *testing.T) {
	s := New(t)
	want(t, call(t, s, "", "GET", "/user", nil), 401)
	want(t, call(t, s, "ghp_unknown", "GET", "/user", nil), 401)
	r := call(t, s, InstallationToken, "GET", "/user", nil)
	want(t, r, 403)
	if !strings.Contains(string(r.body), "Resource not accessible by integration") {
		t.Errorf("installation GET /user: %s", r.body)
	}
	var u struct{ Login, Type string }
	r = call(t, s, AliceToken, "GET", "/user", nil)
	want(t, r, 200)
	r.json(t, &u)
	if u.Login != "alice" || u.Type != "User" {
		t.Errorf("GET /user = %+v", u)
	}
}

func TestCommentsPaginateWithLinkHeaders(t *testing.T) {
	s := New(t)
	n := s.AddPull(repoName, Pull{HeadSHA: "abc"})
	for i := range 250 {
		s.AddComment(repoName, n, Bob, fmt.Sprint("comment ", i))
	}
	next := fmt.Sprintf("/repos/%s/issues/%d/comments?per_page=100", repoName, n)
	var got []struct{ Body string }
	pages := 0
	for next != "" {
		r := call(t, s, InstallationToken, "GET", next, nil)
		want(t, r, 200)
		var pageItems []struct{ Body string }
		r.json(t, &pageItems)
		got = append(got, pageItems...)
		pages++
		link := r.header.Get("Link")
		if pages == 1 && !strings.Contains(link, `page=3&per_page=100>; rel="last"`) {
			t.Errorf("first page Link %q lacks rel=last page 3", link)
		}
		next = ""
		for _, part := range strings.Split(link, ",") {
			if strings.Contains(part, `rel="next"`) {
				next = strings.Trim(strings.TrimSpace(strings.Split(part, ";")[0]), "<>")
			}
		}
	}
	if pages != 3 || len(got) != 250 || got[249].Body != "comment 249" {
		t.Errorf("pages %d, comments %d", pages, len(got))
	}
	r := call(t, s, InstallationToken, "GET", fmt.Sprintf("/repos/%s/issues/%d/comments", repoName, n), nil)
	var def []any
	r.json(t, &def)
	if len(def) != 30 {
		t.Errorf("default page size %d, want 30", len(def))
	}
}

func TestCommentRules(t *testing.T) {
	s := New(t)
	n := s.AddPull(repoName, Pull{})
	path := fmt.Sprintf("/repos/%s/issues/%d/comments", repoName, n)

	r := call(t, s, InstallationToken, "POST", path, map[string]string{"body": strings.Repeat("é", MaxBodyChars+1)})
	want(t, r, 422)
	if !strings.Contains(string(r.body), `"resource":"IssueComment","code":"custom","field":"body","message":"body is too long (maximum is 65536 characters)"`) {
		t.Errorf("too long: %s", r.body)
	}
	want(t, call(t, s, InstallationToken, "POST", path, map[string]string{"body": strings.Repeat("é", MaxBodyChars)}), 201)

	var c struct{ ID int64 }
	r = call(t, s, BobToken, "POST", path, map[string]string{"body": "bob's"})
	want(t, r, 201)
	r.json(t, &c)
	one := fmt.Sprintf("/repos/%s/issues/comments/%d", repoName, c.ID)
	want(t, call(t, s, AliceToken, "PATCH", one, map[string]string{"body": "alice edits"}), 403)
	want(t, call(t, s, AliceToken, "DELETE", one, nil), 403)
	want(t, call(t, s, ForkToken, "PATCH", one, map[string]string{"body": "fork"}), 403)
	want(t, call(t, s, ForkToken, "POST", path, map[string]string{"body": "fork"}), 403)
	want(t, call(t, s, BobToken, "PATCH", one, map[string]string{"body": "bob edits"}), 200)
	s.SetPermission(repoName, "alice", "write")
	want(t, call(t, s, AliceToken, "PATCH", one, map[string]string{"body": "writer edits"}), 200)
	want(t, call(t, s, AliceToken, "DELETE", one, nil), 204)
	want(t, call(t, s, AliceToken, "GET", one, nil), 404)
	if got := len(s.Comments(repoName, n)); got != 1 {
		t.Errorf("%d comments left, want 1", got)
	}
}

func TestStatusesIssuesLabels(t *testing.T) {
	s := New(t)
	st := fmt.Sprintf("/repos/%s/statuses/abc123", repoName)
	want(t, call(t, s, InstallationToken, "POST", st, map[string]string{"state": "pending", "context": "tfgate/plan",
		"description": strings.Repeat("x", MaxStatusDescChars+1)}), 422)
	want(t, call(t, s, InstallationToken, "POST", st, map[string]string{"state": "pending", "context": "tfgate/plan"}), 201)
	want(t, call(t, s, InstallationToken, "POST", st, map[string]string{"state": "success", "context": "tfgate/plan",
		"description": "3 projects: +4 ~1 -0"}), 201)
	want(t, call(t, s, BobToken, "POST", st, map[string]string{"state": "success", "context": "x"}), 403)
	var comb struct {
		State    string
		Statuses []struct{ State, Context string }
	}
	call(t, s, BobToken, "GET", fmt.Sprintf("/repos/%s/commits/abc123/status", repoName), nil).json(t, &comb)
	if comb.State != "success" || len(comb.Statuses) != 1 {
		t.Errorf("combined %+v", comb)
	}
	if got := s.Statuses(repoName, "abc123"); len(got) != 2 || got[1].Creator != Bot {
		t.Errorf("statuses %+v", got)
	}

	iss := fmt.Sprintf("/repos/%s/issues", repoName)
	want(t, call(t, s, InstallationToken, "POST", iss, map[string]any{"title": strings.Repeat("t", 257)}), 422)
	want(t, call(t, s, InstallationToken, "POST", iss, map[string]any{"title": "t", "labels": []string{strings.Repeat("l", 51)}}), 422)
	want(t, call(t, s, InstallationToken, "POST", fmt.Sprintf("/repos/%s/labels", repoName), map[string]any{"name": strings.Repeat("l", 51)}), 422)
	want(t, call(t, s, InstallationToken, "POST", fmt.Sprintf("/repos/%s/labels", repoName), map[string]any{"name": "drift", "color": "d73a4a"}), 201)
	want(t, call(t, s, InstallationToken, "POST", iss, map[string]any{"title": "drift: prod", "labels": []string{"drift", "prod"}}), 201)
	want(t, call(t, s, InstallationToken, "POST", iss, map[string]any{"title": "other"}), 201)
	var list []struct{ Title string }
	call(t, s, InstallationToken, "GET", iss+"?labels=drift&state=open", nil).json(t, &list)
	if len(list) != 1 || list[0].Title != "drift: prod" {
		t.Errorf("labels filter: %+v", list)
	}
	want(t, call(t, s, InstallationToken, "PATCH", iss+"/1", map[string]any{"state": "closed"}), 200)
	call(t, s, InstallationToken, "GET", iss+"?labels=drift", nil).json(t, &list)
	if len(list) != 0 {
		t.Errorf("closed issue listed as open: %+v", list)
	}
	if got := s.Labels(repoName); len(got) != 2 {
		t.Errorf("labels %+v", got)
	}
}

func TestArtifactDownloadRedirects(t *testing.T) {
	s := New(t)
	id := s.AddArtifact(repoName, 77, "tfgate-plans", map[string]string{"manifest.json": "{}"})
	s.AddArtifact(repoName, 78, "other", map[string]string{"x": "y"})
	var list struct {
		TotalCount int `json:"total_count"`
		Artifacts  []struct{ ID int64 }
	}
	call(t, s, InstallationToken, "GET", fmt.Sprintf("/repos/%s/actions/runs/77/artifacts?name=tfgate-plans", repoName), nil).json(t, &list)
	if list.TotalCount != 1 || list.Artifacts[0].ID != id {
		t.Fatalf("list %+v", list)
	}
	r := call(t, s, InstallationToken, "GET", fmt.Sprintf("/repos/%s/actions/artifacts/%d/zip", repoName, id), nil)
	want(t, r, 302)
	z := call(t, s, "", "GET", r.header.Get("Location"), nil)
	want(t, z, 200)
	zr, err := zip.NewReader(bytes.NewReader(z.body), int64(len(z.body)))
	if err != nil || len(zr.File) != 1 || zr.File[0].Name != "manifest.json" {
		t.Errorf("zip: %v %v", err, zr)
	}
}

func TestFaultsAndCounts(t *testing.T) {
	s := New(t)
	s.FailNext(1, 502, "GET /user")
	want(t, call(t, s, AliceToken, "GET", "/user", nil), 502)
	want(t, call(t, s, AliceToken, "GET", "/user", nil), 200)

	s.SecondaryRateLimitNext(1, 2*time.Second, "")
	r := call(t, s, AliceToken, "GET", "/user", nil)
	want(t, r, 403)
	if r.header.Get("Retry-After") != "2" || !strings.Contains(string(r.body), "You have exceeded a secondary rate limit") {
		t.Errorf("secondary: %v %s", r.header, r.body)
	}
	reset := time.Now().Add(time.Hour).Truncate(time.Second)
	s.PrimaryRateLimitNext(1, 429, reset, "")
	r = call(t, s, AliceToken, "GET", "/user", nil)
	want(t, r, 429)
	if r.header.Get("X-RateLimit-Remaining") != "0" || r.header.Get("X-RateLimit-Reset") != fmt.Sprint(reset.Unix()) {
		t.Errorf("primary: %v", r.header)
	}
	if s.Count("GET /user") != 4 || s.Requests() != 4 {
		t.Errorf("counts %v", s.Counts())
	}
}

func TestContractViolationIsRecorded(t *testing.T) {
	testenv.OpenAPI(t) // what is tested is the contract: it does not run without it
	s := New(t)
	n := s.AddPull(repoName, Pull{})
	r := call(t, s, InstallationToken, "POST", fmt.Sprintf("/repos/%s/issues/%d/comments", repoName, n), map[string]string{"text": "x"})
	want(t, r, 422)
	want(t, call(t, s, InstallationToken, "GET", "/repos/acme/infra/no/such/thing", nil), 400)
	v := s.TakeViolations()
	if len(v) != 2 || !strings.Contains(v[0], `property "body" is missing`) {
		t.Errorf("violations %q", v)
	}
}

// A response GitHub would never send is recorded too, and still delivered.
func TestResponseViolationIsRecorded(t *testing.T) {
	testenv.OpenAPI(t)
	s := New(t)
	s.handlers["GET /user"] = func(w http.ResponseWriter, r *request) { // before any request
		writeJSON(w, http.StatusOK, map[string]any{"login": "alice"})
	}
	want(t, call(t, s, AliceToken, "GET", "/user", nil), 200)
	v := s.TakeViolations()
	if len(v) != 1 || !strings.Contains(v[0], "response 200 to GET /user (users/get-authenticated) breaks GitHub's REST API description") {
		t.Errorf("response violations %q", v)
	}
}

// Without GitHub's description (a fresh clone's go test) the server still serves, routing by
// its handlers' patterns, and holds nothing to the contract: what the contract refuses
// (TestContractViolationIsRecorded) reaches the handlers, and no violation is recorded.
func TestServesWithoutContract(t *testing.T) {
	t.Setenv(testenv.OpenAPIEnv, filepath.Join(t.TempDir(), "absent.json"))
	t.Setenv(testenv.StrictEnv, "")
	s := New(t)
	if s.contract != nil {
		t.Fatal("a contract was loaded from a missing description")
	}
	n := s.AddPull(repoName, Pull{})
	path := fmt.Sprintf("/repos/%s/issues/%d/comments", repoName, n)
	var c struct{ ID int64 }
	r := call(t, s, BobToken, "POST", path, map[string]string{"body": "hi"})
	want(t, r, 201)
	r.json(t, &c)
	// issues/comments/{comment_id}, not issues/{issue_number}/…: the literal segment wins.
	want(t, call(t, s, BobToken, "GET", fmt.Sprintf("/repos/%s/issues/comments/%d", repoName, c.ID), nil), 200)
	r = call(t, s, InstallationToken, "POST", path, map[string]string{"text": "x"})
	want(t, r, 422)
	if !strings.Contains(string(r.body), "body wasn't supplied") {
		t.Errorf("the handler did not answer: %s", r.body)
	}
	r = call(t, s, InstallationToken, "GET", "/repos/acme/infra/no/such/thing", nil)
	want(t, r, 404)
	if !strings.Contains(string(r.body), "githubtest does not implement GET /repos/acme/infra/no/such/thing") {
		t.Errorf("unknown path: %s", r.body)
	}
	if v := s.TakeViolations(); len(v) != 0 {
		t.Errorf("violations without a contract: %q", v)
	}
	if s.Count("POST /repos/{owner}/{repo}/issues/{issue_number}/comments") != 2 {
		t.Errorf("counts %v", s.Counts())
	}
}

// GitHub takes a ref's slashes plain (go-github's form) or escaped, with GitHub's
// description enforced or not: both reach the same handler, which gets the escaped form.
func TestRefSlashesPlainOrEscaped(t *testing.T) {
	for _, withContract := range []bool{true, false} {
		t.Run(fmt.Sprintf("contract=%v", withContract), func(t *testing.T) {
			if !withContract {
				t.Setenv(testenv.OpenAPIEnv, filepath.Join(t.TempDir(), "absent.json"))
				t.Setenv(testenv.StrictEnv, "")
			}
			s := New(t)
			if withContract && s.contract == nil {
				t.Skip("no GitHub OpenAPI description (make openapi): the contract's half is make test's")
			}
			sha := strings.Repeat("a", 40)
			s.SetRef(repoName, "refs/heads/gh-readonly-queue/main/pr-1-"+sha, sha)
			s.SetRef(repoName, "refs/heads/other", sha)
			for _, ref := range []string{"heads/gh-readonly-queue/main", "heads%2Fgh-readonly-queue%2Fmain"} {
				r := call(t, s, InstallationToken, "GET", "/repos/"+repoName+"/git/matching-refs/"+ref, nil)
				want(t, r, 200)
				var refs []struct{ Ref string }
				r.json(t, &refs)
				if len(refs) != 1 || refs[0].Ref != "refs/heads/gh-readonly-queue/main/pr-1-"+sha {
					t.Errorf("%s: got %+v, want the queue's one branch", ref, refs)
				}
			}
			if v := s.TakeViolations(); len(v) != 0 {
				t.Errorf("violations: %q", v)
			}
			if n := s.Count("GET /repos/{owner}/{repo}/git/matching-refs/{ref}"); n != 2 {
				t.Errorf("counted %d calls of matching-refs, want 2: %v", n, s.Counts())
			}
		})
	}
}
