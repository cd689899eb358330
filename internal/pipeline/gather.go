package pipeline

import (
	"github.com/tfgate/tfgate/internal/bundle"
	"github.com/tfgate/tfgate/internal/stage"
)

// gatherer is what `tfgate gate` and `tfgate apply` share to gather a pull request's facts
// for the gate (the reviews, the rules, the changed projects and their bundles) and to act
// on its verdict. RunGate and RunApply each build one from their request; the steps both
// commands take read it, never either command's request.
type gatherer struct {
	// Env is the run's: the checkout (Root), its configuration (Config: which projects
	// exist), the file read again at the base commit for the rules, the masker.
	stage.Env
	plans  bundle.Store // where the bundles are
	frozen string       // TFGATE_FREEZE: why every apply is refused; "" = not frozen
	gh     *GitHubRun
}
