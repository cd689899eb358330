// Package pipeline holds one runner per command, each with one entry point: RunPlan
// (`tfgate plan`, runplan.go), RunGate (`tfgate gate`, gaterun.go), RunApply (`tfgate
// apply`, apply*.go), RunDrift (`tfgate drift`, drift.go) and RunPublish (`tfgate publish`,
// the matrix's results merged, publish_matrix.go). They share the pool and the stages of
// internal/stage; the gate and apply share one review (apply.go: the pull request, the
// base commit's rules, the bundles, each project's verdict) — the gate stops at the
// verdict, apply goes on to apply. A runner gathers facts and sequences the steps; the
// rules are internal/gate's, the publishing internal/notify's, the text internal/render's,
// and the flags internal/cli's (an OptionError names a request field).
package pipeline
