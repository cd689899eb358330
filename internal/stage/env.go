package stage

import (
	"log/slog"
	"time"

	"github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/secret"
)

// Env is what every command's run shares (as gh's cmdutil.Factory): the repository, how
// terraform is found and run, and where secrets, warnings, logs and progress go. cli builds
// it once from the process environment, the only reader of it; every pipeline request and
// PlanOptions embed it, and Defaults fills in what was left unset, once for all of them.
type Env struct {
	Root       string
	Config     *config.Config // the working tree's: which projects exist
	ConfigFile string         // the config's path (absolute, or relative to Root), read again at the base commit

	Terraform    TerraformOptions
	TerraformEnv map[string]string // terraform's environment
	Parallel     int               // projects at once; 0 = number of CPUs
	// LockTimeout is how long terraform waits for a state lock another run holds. A plan's
	// 0 means DefaultLockTimeout (PlanOptions.Defaults); apply's own 0 fails at once.
	LockTimeout time.Duration

	Masker        *secret.Masker // secrets to mask everywhere (environment, configured)
	Progress      Progress       // each project's phases while it runs
	Warn          func(string)   // warnings for the user
	Log           *slog.Logger
	TfgateVersion string
	Now           func() time.Time
}

// Defaults fills in what env leaves unset, so that a run never checks for nil: no masker
// masks nothing, no progress, warnings or logs go nowhere, and the clock is time.Now.
func (env *Env) Defaults() {
	if env.Masker == nil {
		env.Masker = secret.NewMasker(nil)
	}
	if env.Progress == nil {
		env.Progress = NopProgress{}
	}
	if env.Warn == nil {
		env.Warn = func(string) {}
	}
	if env.Log == nil {
		env.Log = slog.New(slog.DiscardHandler)
	}
	if env.Now == nil {
		env.Now = time.Now
	}
}
