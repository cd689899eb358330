// Package terraform finds the terraform (or OpenTofu) binary tfgate runs and
// runs it: Resolve picks and version-checks a binary, and Runner runs the few
// commands tfgate needs (init, workspace, plan, show -json) with the
// environment the caller gives, graceful cancellation and readable errors; inits share
// a provider cache that terraform itself never writes (plugincache.go).
// Workspaces go through tfexec; init, plan and show run directly (see runner.go
// for why).
//
// The package never reads the process environment: the PATH to search and the
// environment terraform runs with are always passed in.
package terraform
