package github

// Commit status states, the four GitHub accepts: every status tfgate sets (tfgate/plan,
// tfgate/gate, tfgate/apply) and every verdict it reports uses these.
const (
	StateSuccess = "success"
	StatePending = "pending"
	StateFailure = "failure"
	StateError   = "error" // tfgate could not judge: see the run's log
)
