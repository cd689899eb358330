// Package pipeline holds one runner per command, each with one entry point in a file named
// for its command (TestRunnerFiles): RunPlan (`tfgate plan`, run_plan.go), RunGate (`tfgate
// gate`, run_gate.go), RunApply (`tfgate apply`, run_apply.go and its steps in apply_*.go),
// RunDrift (`tfgate drift`, run_drift.go), RunPublish (`tfgate publish`, the matrix's
// results merged, run_publish.go), RunNotifyStale (`tfgate notify-stale`,
// run_notify_stale.go) and RunRecover (`tfgate recover`, run_recover.go). They share the
// environment, the pool and the stages of internal/stage; the gate and apply share one
// gatherer (gather.go: the checkout, the bundles, GitHub) and one review (run_apply.go). A
// review's facts are gathered once (runFacts: the pull request, the base commit's rules, the
// merge queue; each project's projectCase: its bundle, what verification found, what its
// plan file does) and then only read; beside them is what the run makes of them (each
// project's result, apply's terraform and records) — the gate stops at the verdict, apply
// goes on to apply. A runner gathers facts and acts on gate's
// judgement: every refusal and its words are internal/gate's (TestRefusalsAreTheGates),
// the publishing internal/notify's, the text internal/render's, and the flags
// internal/cli's (an OptionError names a request field).
package pipeline
