// Package e2e runs tfgate the way users run it in GitHub Actions: the example workflows and
// the composite action (action.yml) in a real Actions runner, nektos/act on the host, against
// a local stand-in for GitHub's API. It holds only tests; `make test` installs act and runs them.
package e2e
