package policy

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
)

// blockedBuiltins are removed from the capabilities policies compile against.
// Policies see plans, which hold secrets; a built-in that reaches the network,
// the host's environment or its files could carry them away, and would make a
// verdict depend on something other than the plan and the policies.
var blockedBuiltins = map[string]string{
	"http.send":          "it reaches the network",
	"net.lookup_ip_addr": "it reaches the network (DNS)",
	"opa.runtime":        "it exposes the host environment",
	// JSON schema $refs may be fetched from URLs or read from local files.
	"json.verify_schema": "its $ref resolution reads files and URLs",
	"json.match_schema":  "its $ref resolution reads files and URLs",
}

// sandboxCapabilities returns this OPA version's capabilities minus the
// blocked built-ins, with an empty network allow-list so no built-in added in
// a later OPA version can reach any host either.
func sandboxCapabilities() *ast.Capabilities {
	caps := ast.CapabilitiesForThisVersion()
	caps.Builtins = slices.DeleteFunc(slices.Clone(caps.Builtins), func(b *ast.Builtin) bool {
		_, blocked := blockedBuiltins[b.Name]
		return blocked
	})
	caps.AllowNet = []string{}
	return caps
}

// compileErrors lists compile errors one per line ("file:line: code: msg"),
// explaining the ones caused by the sandbox.
func compileErrors(errs ast.Errors) error {
	out := make([]error, len(errs))
	for i, e := range explainSandbox(errs) {
		out[i] = e
	}
	return errors.Join(out...)
}

// explainSandbox rewrites the compiler's "undefined function" error for a
// blocked built-in into one that says why it is missing.
func explainSandbox(errs ast.Errors) ast.Errors {
	for _, e := range errs {
		name, ok := strings.CutPrefix(e.Message, "undefined function ")
		if !ok {
			continue
		}
		if why, blocked := blockedBuiltins[name]; blocked {
			e.Message = fmt.Sprintf("%s is not allowed in tfgate policies: %s; policies may only read the plan and data files", name, why)
		}
	}
	return errs
}
