package githubtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

// OpenAPIEnv names the environment variable the Makefile sets to GitHub's OpenAPI
// description (generated/api.github.com.json of the npm package @octokit/openapi).
// This is a test-only package, so reading it here does not break the rule that domain
// packages never read the environment.
const OpenAPIEnv = "TFGATE_GITHUB_OPENAPI"

// defaultOpenAPIPath is where `make openapi` installs the description, relative to the
// module root.
const defaultOpenAPIPath = ".bin/octokit-openapi/node_modules/@octokit/openapi/generated/api.github.com.json"

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

// LoadContract loads GitHub's OpenAPI description once per process. A missing file is an
// error telling to run `make openapi`: a fake that validates nothing proves nothing.
func LoadContract() (*Contract, error) {
	contractOnce.Do(func() { contract, contractErr = loadContract() })
	return contract, contractErr
}

func loadContract() (*Contract, error) {
	path, err := contractPath()
	if err != nil {
		return nil, err
	}
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

func contractPath() (string, error) {
	if p := os.Getenv(OpenAPIEnv); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("GitHub OpenAPI description %s (from $%s): %w; run `make openapi`", p, OpenAPIEnv, err)
		}
		return p, nil
	}
	root, err := moduleRoot()
	if err != nil {
		return "", fmt.Errorf("find GitHub OpenAPI description: %w; run `make openapi` or set $%s", err, OpenAPIEnv)
	}
	p := filepath.Join(root, defaultOpenAPIPath)
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("GitHub OpenAPI description %s is missing: run `make openapi` (or set $%s)", p, OpenAPIEnv)
	}
	return p, nil
}

func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

// Match is the operation of GitHub's description a request was matched to.
type Match struct {
	Operation string            // operation id, e.g. "issues/create-comment"
	Pattern   string            // method and path template, e.g. "POST /repos/{owner}/{repo}/issues/{issue_number}/comments"
	Params    map[string]string // path parameters
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
