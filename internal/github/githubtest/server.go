// Package githubtest is a stateful fake of the GitHub REST API on httptest, for tests.
//
// It keeps repositories, pull requests, issues, comments, reviews, statuses, labels,
// organization teams and Actions artifacts in memory; refuses what GitHub refuses (body and
// title limits, authentication, who may edit a comment, read-only tokens, `GET /user` and
// team reads for an installation token); injects 5xx and rate limits; counts requests so
// tests can assert an API budget; and holds every request and every response to GitHub's
// own OpenAPI description (npm package @octokit/openapi, installed by `make openapi`). A
// request the description does not allow is answered 400/422, and a request or a response
// that breaks it is recorded as a violation that fails the test. Without the description (a
// plain `go test` in a fresh clone) it serves all the same, routing by its handlers' own
// patterns, and logs that the contract is not enforced; under make a missing description
// fails the test.
package githubtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tfgate/tfgate/internal/testenv"
)

// User is a GitHub account as the fake knows it.
type User struct {
	Login string
	ID    int64
	Type  string // "User" or "Bot"
}

// Accounts every Server knows.
var (
	Bot   = User{Login: "github-actions[bot]", ID: 41898282, Type: "Bot"}
	Alice = User{Login: "alice", ID: 1001, Type: "User"}
	Bob   = User{Login: "bob", ID: 1002, Type: "User"}
	Carol = User{Login: "carol", ID: 1003, Type: "User"}
	App   = User{Login: "githubtest-app[bot]", ID: 41900001, Type: "Bot"} // AppToken's identity
)

// Tokens every Server accepts.
const (
	// InstallationToken is a GITHUB_TOKEN: it acts as github-actions[bot] and may not
	// call GET /user.
	InstallationToken = "ghs_githubtest_installation"
	// ForkToken is the read-only GITHUB_TOKEN of a pull request from a fork.
	ForkToken = "ghs_githubtest_fork_readonly"
	// AppToken is a GitHub App's installation token granted the organization permission
	// "members: read": unlike GITHUB_TOKEN it reads team membership.
	AppToken   = "ghs_githubtest_app_members_read"
	AliceToken = "ghp_githubtest_alice"
	BobToken   = "ghp_githubtest_bob"
	CarolToken = "ghp_githubtest_carol"
)

// Token describes what a token authenticates as.
type Token struct {
	User         User
	Installation bool // an app installation token: GET /user is 403
	ReadOnly     bool // every write is 403
	// Teams is what the token may read of organizations' teams; the default follows
	// GitHub: an installation token (GITHUB_TOKEN) cannot read them, a personal token can.
	Teams TeamAccess
	// ActionsRead: the workflow granted the token actions: read, not write — starting a
	// workflow (workflow_dispatch) is 403.
	ActionsRead bool
}

// epoch is the fake clock's start.
var epoch = time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)

// Option configures a Server.
type Option func(*Server)

// WithToken makes the server accept token as tok.
func WithToken(token string, tok Token) Option {
	return func(s *Server) { s.tokens[token] = tok }
}

// Server is the fake. Its methods are safe for concurrent use.
type Server struct {
	srv      *httptest.Server
	contract *Contract          // nil: GitHub's description is missing, nothing is checked
	handlers map[string]handler // by pattern, "METHOD /template" of GitHub's description

	mu         sync.Mutex
	tokens     map[string]Token
	repos      map[string]*repo
	teams      map[string]*team // by lower-case "org/slug"
	nextID     int64
	clock      time.Time
	faults     []*fault
	total      int
	counts     map[string]int
	violations []string
	closing    chan struct{}             // closed when the test ends
	workflows  map[string]*workflowState // by lower-case "owner/name/file" (dispatch.go)
	dispatches []Dispatch
	runs       map[string]Run // by runKey (runs.go)
}

// New starts a Server that is closed when the test ends. The test fails if any request broke
// GitHub's OpenAPI description and the test did not take the violation with TakeViolations.
// Without the description (run `make openapi`) the server checks nothing, and says so in the
// test's log; under make (testenv.StrictEnv) the test fails instead.
func New(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s := &Server{
		tokens: map[string]Token{
			InstallationToken: {User: Bot, Installation: true},
			ForkToken:         {User: Bot, Installation: true, ReadOnly: true},
			AppToken:          {User: App, Installation: true, Teams: TeamsReadable},
			AliceToken:        {User: Alice},
			BobToken:          {User: Bob},
			CarolToken:        {User: Carol},
		},
		repos:  map[string]*repo{},
		teams:  map[string]*team{},
		nextID: 1000000,
		clock:  epoch,
		counts: map[string]int{},
	}
	for _, o := range opts {
		o(s)
	}
	if path := testenv.OpenAPIIfPresent(t, "githubtest does not enforce GitHub's REST API contract"); path != "" {
		c, err := LoadContract(path)
		if err != nil {
			t.Fatalf("githubtest: %v", err)
		}
		s.contract = c
	}
	s.handlers = map[string]handler{}
	s.routes()
	// Assigned before the server starts: handlers read s.srv.URL, and the race detector
	// sees no order between this write and a request's goroutine otherwise.
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	s.srv.Start()
	s.closing = make(chan struct{})
	t.Cleanup(func() {
		close(s.closing) // ends every stall, so that Close does not wait for them
		s.srv.Close()
		for _, v := range s.TakeViolations() {
			t.Errorf("githubtest: request broke GitHub's REST API contract: %s", v)
		}
	})
	return s
}

// URL is the API base URL, what GITHUB_API_URL would hold (no trailing slash).
func (s *Server) URL() string { return s.srv.URL }

// Client is an HTTP client for the server (plain, no retries).
func (s *Server) Client() *http.Client { return s.srv.Client() }

// request is what a handler gets: the HTTP request, its token, body and path parameters.
type request struct {
	*http.Request
	tok    Token
	body   []byte
	params map[string]string
}

func (r *request) param(name string) string { return r.params[name] }

type handler func(w http.ResponseWriter, r *request)

// handle registers the handler of a GitHub operation. pattern is "METHOD /template" exactly
// as GitHub's description spells the path; requests are routed by the description (by the
// patterns themselves without it), and counted and matched to faults by this pattern.
func (s *Server) handle(pattern string, h handler) {
	if s.contract != nil && !s.contract.hasOperation(pattern) {
		panic("githubtest: " + pattern + " is not an operation of GitHub's REST API description")
	}
	s.handlers[pattern] = h
}

// blobPrefix serves artifact archives: the target of the download redirect, like GitHub's
// signed storage URLs it needs no token and is not part of the REST API.
const blobPrefix = "/_githubtest/blobs/"

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, http.StatusBadRequest, "unreadable body")
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	if s.serveReleaseFile(w, r) {
		return
	}
	if strings.HasPrefix(r.URL.Path, blobPrefix) {
		key := r.Method + " " + blobPrefix + "{id}.zip"
		s.countRequest(key)
		f := s.takeFault(key)
		if f == nil || f.after == nil {
			if !s.beforeFault(w, r, f) {
				s.serveBlob(w, r)
			}
			return
		}
		rec := &recorder{header: http.Header{}, status: http.StatusOK}
		s.serveBlob(rec, r)
		f.after(w, r, rec)
		return
	}
	m, cerr := s.match(r, body)
	key := r.Method + " " + r.URL.Path
	if m != nil {
		key = m.Pattern
	}
	s.countRequest(key)
	if cerr != nil {
		s.mu.Lock()
		s.violations = append(s.violations, cerr.Error())
		s.mu.Unlock()
		status := http.StatusUnprocessableEntity
		if errors.Is(cerr, errNoOperation) {
			status = http.StatusBadRequest
		}
		writeError(w, status, "githubtest: "+cerr.Error())
		return
	}
	tok, ok := s.authenticate(r)
	if !ok {
		writeJSON(w, http.StatusUnauthorized, map[string]string{
			"message":           "Requires authentication",
			"documentation_url": "https://docs.github.com/rest",
		})
		return
	}
	f := s.takeFault(key)
	if s.beforeFault(w, r, f) {
		return
	}
	h := s.handlers[key]
	if h == nil {
		writeError(w, http.StatusNotFound, "githubtest does not implement "+key+operationName(m))
		return
	}
	if tok.ReadOnly && r.Method != http.MethodGet && r.Method != http.MethodHead {
		writeError(w, http.StatusForbidden, "Resource not accessible by integration")
		return
	}
	rec := &recorder{header: http.Header{}, status: http.StatusOK}
	h(rec, &request{Request: r, tok: tok, body: body, params: m.Params})
	s.checkResponse(r, m, rec)
	if f != nil && f.after != nil {
		f.after(w, r, rec)
		return
	}
	for k, v := range rec.header {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.status)
	_, _ = w.Write(rec.body.Bytes())
}

// match finds the operation a request is for: by GitHub's description, which also checks
// the request, or without it by the handlers' patterns (route). nil: neither knows it.
func (s *Server) match(r *http.Request, body []byte) (*Match, error) {
	if s.contract == nil {
		return s.route(r), nil
	}
	s.escapeRef(r)
	return s.contract.Check(r.Context(), r, body)
}

// checkResponse records a violation when the handler's response to the request m was
// matched from breaks GitHub's description (if there is one).
func (s *Server) checkResponse(r *http.Request, m *Match, rec *recorder) {
	if s.contract == nil {
		return
	}
	if err := s.contract.CheckResponse(r.Context(), m, rec.status, rec.header, rec.body.Bytes()); err != nil {
		s.mu.Lock()
		s.violations = append(s.violations, err.Error())
		s.mu.Unlock()
	}
}

// operationName is " (operation id)" for a request matched by GitHub's description, else "".
func operationName(m *Match) string {
	if m == nil || m.Operation == "" {
		return ""
	}
	return " (" + m.Operation + ")"
}

// beforeFault applies fault f (nil: none) before the request is served; true when it
// answered the request (or dropped it) and nothing more must be written.
func (s *Server) beforeFault(w http.ResponseWriter, r *http.Request, f *fault) bool {
	switch {
	case f == nil, f.after != nil:
		return false
	case f.before != nil:
		return !f.before(w, r)
	}
	f.write(w)
	return true
}

// recorder holds a handler's response so it can be checked before it is sent.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header         { return r.header }
func (r *recorder) WriteHeader(status int)      { r.status = status }
func (r *recorder) Write(b []byte) (int, error) { return r.body.Write(b) }

func (s *Server) countRequest(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.total++
	s.counts[key]++
}

func (s *Server) authenticate(r *http.Request) (Token, bool) {
	h := r.Header.Get("Authorization")
	var raw string
	switch {
	case strings.HasPrefix(h, "Bearer "):
		raw = strings.TrimPrefix(h, "Bearer ")
	case strings.HasPrefix(h, "token "):
		raw = strings.TrimPrefix(h, "token ")
	default:
		return Token{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	tok, ok := s.tokens[raw]
	return tok, ok
}

// tick advances the fake clock one second per write, so timestamps order.
func (s *Server) tick() time.Time {
	s.clock = s.clock.Add(time.Second)
	return s.clock
}

func (s *Server) newID() int64 {
	s.nextID++
	return s.nextID
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"message": msg, "documentation_url": "https://docs.github.com/rest"})
}

// writeValidation answers 422 as GitHub does for a field it refuses.
func writeValidation(w http.ResponseWriter, resource, field, msg string) {
	type fieldError struct {
		Resource string `json:"resource"`
		Code     string `json:"code"`
		Field    string `json:"field"`
		Message  string `json:"message"`
	}
	writeJSON(w, http.StatusUnprocessableEntity, struct {
		Message string       `json:"message"`
		Errors  []fieldError `json:"errors"`
		DocURL  string       `json:"documentation_url"`
	}{"Validation Failed", []fieldError{{resource, "custom", field, msg}}, "https://docs.github.com/rest"})
}

// decode reads the request's JSON body into v, answering 400 when it is not JSON.
func decode(w http.ResponseWriter, r *request, v any) bool {
	if err := json.Unmarshal(r.body, v); err != nil {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("Problems parsing JSON: %v", err))
		return false
	}
	return true
}
