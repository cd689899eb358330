package pipeline

import (
	"github.com/tfgate/tfgate/internal/bundle"
	"github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/secret"
)

// gatherer is what `tfgate gate` and `tfgate apply` share to gather a pull request's facts
// for the gate (the reviews, the rules, the changed projects and their bundles) and to act
// on its verdict. RunGate and RunApply each build one from their request; the steps both
// commands take read it, never either command's request.
type gatherer struct {
	root       string         // the checkout
	config     *config.Config // the checkout's configuration: which projects exist
	configFile string         // read again at the base commit for the rules
	plans      bundle.Store   // where the bundles are
	frozen     string         // TFGATE_FREEZE: why every apply is refused; "" = not frozen
	gh         *GitHubRun
	masker     *secret.Masker
}
