package github

// Commit status states, the four GitHub accepts: every status tfgate sets (tfgate/plan,
// tfgate/gate, tfgate/apply) uses these. The gate's verdict has its own (report.GateState),
// which notify maps to them.
const (
	StateSuccess = "success"
	StatePending = "pending"
	StateFailure = "failure"
	StateError   = "error" // tfgate could not judge: see the run's log
)
