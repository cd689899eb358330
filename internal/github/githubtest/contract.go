package githubtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

// contractHost is the host the description's servers name; requests are matched as if
// they had been sent there.
const contractHost = "api.github.com"

// Contract is GitHub's REST API description, loaded once per process, that every request
// to a Server is held to.
type Contract struct {
	Path     string
	LoadTime time.Duration // reading, parsing and routing the description
	doc      *openapi3.T
	router   routers.Router
}

var (
	contractOnce sync.Once
	contract     *Contract
	contractErr  error
)

// LoadContract loads GitHub's OpenAPI description at path (testenv.OpenAPI) once per
// process: it is 13 MB, and every test's server checks requests against the same one.
func LoadContract(path string) (*Contract, error) {
	contractOnce.Do(func() { contract, contractErr = loadContract(path) })
	return contract, contractErr
}

func loadContract(path string) (*Contract, error) {
	start := time.Now()
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromFile(path)
	if err != nil {
		return nil, fmt.Errorf("load GitHub OpenAPI description %s: %w", path, err)
	}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("route GitHub OpenAPI description %s: %w", path, err)
	}
	return &Contract{Path: path, LoadTime: time.Since(start), doc: doc, router: router}, nil
}

// Match is the operation of GitHub's description a request was matched to (without the
// description, the handler's pattern: Server.route).
type Match struct {
	Operation string            // operation id, e.g. "issues/create-comment"; "" without the description
	Pattern   string            // method and path template, e.g. "POST /repos/{owner}/{repo}/issues/{issue_number}/comments"
	Params    map[string]string // path parameters

	in *openapi3filter.RequestValidationInput // for CheckResponse
}

// errNoOperation marks a request whose method and path GitHub does not document.
var errNoOperation = errors.New("not in GitHub's REST API")

// Check holds one request (and its already read body) to the description: its method and
// path must be an operation GitHub documents, and its parameters and JSON body must match
// that operation. The match is returned whenever the operation was found.
func (c *Contract) Check(ctx context.Context, r *http.Request, body []byte) (*Match, error) {
	u := *r.URL
	u.Scheme, u.Host = "https", contractHost
	probe := r.Clone(ctx)
	probe.URL = &u
	probe.Host = contractHost
	probe.RequestURI = ""
	probe.Body = io.NopCloser(bytes.NewReader(body))
	route, params, err := c.router.FindRoute(probe)
	if err != nil {
		return nil, fmt.Errorf("%s %s is %w: %v", r.Method, r.URL.Path, errNoOperation, err)
	}
	m := &Match{Operation: route.Operation.OperationID, Pattern: r.Method + " " + route.Path, Params: params}
	in := &openapi3filter.RequestValidationInput{
		Request:    probe,
		PathParams: params,
		Route:      route,
		Options: &openapi3filter.Options{
			AuthenticationFunc:                openapi3filter.NoopAuthenticationFunc,
			RejectWhenRequestBodyNotSpecified: true,
			MultiError:                        true,
		},
	}
	m.in = in
	if err := openapi3filter.ValidateRequest(ctx, in); err != nil {
		return m, fmt.Errorf("%s %s (%s) breaks GitHub's REST API description: %w",
			r.Method, r.URL.Path, route.Operation.OperationID, err)
	}
	return m, nil
}

// hasOperation reports whether pattern ("METHOD /template") is an operation of the
// description.
func (c *Contract) hasOperation(pattern string) bool {
	method, path, _ := strings.Cut(pattern, " ")
	item := c.doc.Paths.Value(path)
	return item != nil && item.GetOperation(method) != nil
}

// CheckResponse holds a response to the request m was matched from to the description: a
// documented status must carry a body of the documented schema.
func (c *Contract) CheckResponse(ctx context.Context, m *Match, status int, header http.Header, body []byte) error {
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: m.in,
		Status:                 status,
		Header:                 header,
		Options:                &openapi3filter.Options{MultiError: true},
	}
	in.SetBodyBytes(body)
	if err := openapi3filter.ValidateResponse(ctx, in); err != nil {
		return fmt.Errorf("response %d to %s (%s) breaks GitHub's REST API description: %w", status, m.Pattern, m.Operation, err)
	}
	return nil
}
