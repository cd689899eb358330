package githubtest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tfgate/tfgate/internal/testenv"
)

func TestContract(t *testing.T) {
	c, err := LoadContract(testenv.OpenAPI(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("GitHub's OpenAPI description %s loaded and routed in %s", c.Path, c.LoadTime)
	tests := []struct {
		method, path, body string
		wantOp, wantErr    string
	}{
		{"POST", "/repos/o/r/issues/1/comments", `{"body":"hi"}`, "issues/create-comment", ""},
		{"POST", "/repos/o/r/issues/1/comments", `{"text":"hi"}`, "issues/create-comment", `property "body" is missing`},
		{"PATCH", "/repos/o/r/issues/comments/12", `{"body":7}`, "issues/update-comment", "must be a string"},
		{"POST", "/repos/o/r/statuses/abc", `{"state":"green"}`, "repos/create-commit-status", "value is not one of the allowed values"},
		{"GET", "/repos/o/r/issues?state=opened", "", "issues/list-for-repo", `parameter "state"`},
		{"GET", "/repos/o/r/nothing", "", "", "is not in GitHub's REST API"},
		{"PUT", "/repos/o/r/issues/comments/12", `{"body":"x"}`, "", "is not in GitHub's REST API"},
		{"DELETE", "/repos/o/r/issues/comments/12", "", "issues/delete-comment", ""},
	}
	for _, tt := range tests {
		r := httptest.NewRequest(tt.method, tt.path, strings.NewReader(tt.body))
		if tt.body != "" {
			r.Header.Set("Content-Type", "application/json")
		}
		m, err := c.Check(context.Background(), r, []byte(tt.body))
		op := ""
		if m != nil {
			op = m.Operation
		}
		if op != tt.wantOp {
			t.Errorf("%s %s: operation %q, want %q", tt.method, tt.path, op, tt.wantOp)
		}
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("%s %s: %v", tt.method, tt.path, err)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("%s %s: error %v, want one containing %q", tt.method, tt.path, err, tt.wantErr)
		}
	}
}

// Responses are held to the description too: a handler that answers what GitHub never
// would is a violation, as a request GitHub would refuse is.
func TestContractResponses(t *testing.T) {
	c, err := LoadContract(testenv.OpenAPI(t))
	if err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest("GET", "/orgs/acme/teams/platform/memberships/bob", nil)
	m, err := c.Check(context.Background(), r, nil)
	if err != nil {
		t.Fatal(err)
	}
	hdr := http.Header{"Content-Type": {"application/json; charset=utf-8"}}
	tests := []struct {
		status        int
		body, wantErr string
	}{
		{200, `{"url":"https://api.github.com/x","role":"member","state":"active"}`, ""},
		{200, `{"url":"https://api.github.com/x","role":"member","state":"member"}`, `Error at "/state"`},
		{200, `{"role":"member","state":"active"}`, `property "url" is missing`},
		{404, `{"message":"Not Found"}`, ""},
		{403, `{"message":"Resource not accessible by integration"}`, ""}, // undocumented statuses are not checked
	}
	for _, tt := range tests {
		err := c.CheckResponse(context.Background(), m, tt.status, hdr, []byte(tt.body))
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("%d %s: %v", tt.status, tt.body, err)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("%d %s: error %v, want one containing %q", tt.status, tt.body, err, tt.wantErr)
		}
	}
}

func BenchmarkContractCheckComment(b *testing.B) {
	c, err := LoadContract(testenv.OpenAPI(b))
	if err != nil {
		b.Fatal(err)
	}
	body := []byte(`{"body":"` + strings.Repeat("x", 60000) + `"}`)
	for b.Loop() {
		r := httptest.NewRequest("PATCH", "/repos/o/r/issues/comments/12", strings.NewReader(""))
		r.Header.Set("Content-Type", "application/json")
		if _, err := c.Check(context.Background(), r, body); err != nil {
			b.Fatal(err)
		}
	}
}
