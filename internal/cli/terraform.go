package cli

import (
	"strings"
)

// terraformEnv is the environment terraform runs with: ours, made non-interactive.
func (a *app) terraformEnv() map[string]string {
	env := make(map[string]string, len(a.environ)+2)
	for _, kv := range a.environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	env["TF_IN_AUTOMATION"] = "1"
	env["TF_INPUT"] = "0"
	// tfgate's own secret: terraform, its providers and local-exec never need it.
	delete(env, "TFGATE_PLAN_KEY")
	return env
}
