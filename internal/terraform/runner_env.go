package terraform

import (
	"maps"
	"strconv"
	"strings"
)

// fillEnv completes terraform's environment env from opts: opts.Env, what tfgate always
// sets unless opts.Env does (CHECKPOINT_DISABLE, GOMAXPROCS, GOGC), the read guard's request
// (guardEnv), the tree's TMPDIR and the data directory.
func fillEnv(env map[string]string, opts RunnerOptions, guardEnv []string) error {
	maps.Copy(env, opts.Env)
	if _, ok := env["CHECKPOINT_DISABLE"]; !ok {
		// Without this tfexec copies the process's value; and a CI run has no
		// use for terraform's "new version available" check.
		env["CHECKPOINT_DISABLE"] = "1"
	}
	if _, ok := env["GOMAXPROCS"]; !ok && opts.MaxProcs > 0 {
		env["GOMAXPROCS"] = strconv.Itoa(opts.MaxProcs)
	}
	if env["GOGC"] == "" && env["GOMEMLIMIT"] == "" && opts.GCPercent > 0 { // empty is Go's default
		env["GOGC"] = strconv.Itoa(opts.GCPercent)
	}
	for _, kv := range guardEnv {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	if opts.TempDir != "" {
		env["TMPDIR"] = opts.TempDir
	}
	if opts.DataDir != "" {
		if err := usableDataDir(opts.DataDir); err != nil {
			return err
		}
		env["TF_DATA_DIR"] = opts.DataDir
	}
	return nil
}
