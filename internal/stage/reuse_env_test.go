package stage

import "testing"

// TestEnvSum: the sum changes with any TF_VAR_* or TF_CLI_ARGS* name or value, not with the
// rest of the environment; with a key it is another sum (an HMAC), never a plain sha256.
func TestEnvSum(t *testing.T) {
	base := map[string]string{"TF_VAR_region": "eu", "TF_CLI_ARGS_plan": "-parallelism=2", "PATH": "/bin", "TF_IN_AUTOMATION": "1"}
	sum := EnvSum(base, "")
	if len(sum) != 64 || EnvSum(nil, "") == "" {
		t.Fatalf("EnvSum = %q, %q: want a sha256, never empty", sum, EnvSum(nil, ""))
	}
	with := func(k, v string) map[string]string {
		m := map[string]string{}
		for a, b := range base {
			m[a] = b
		}
		if v == "" {
			delete(m, k)
		} else {
			m[k] = v
		}
		return m
	}
	for name, env := range map[string]map[string]string{
		"value":         with("TF_VAR_region", "us"),
		"variable gone": with("TF_VAR_region", ""),
		"variable new":  with("TF_VAR_size", "2"),
		"cli args":      with("TF_CLI_ARGS_plan", "-var=region=us"),
		"cli args all":  with("TF_CLI_ARGS", "-var=region=us"),
	} {
		if EnvSum(env, "") == sum {
			t.Errorf("%s: same sum", name)
		}
	}
	if EnvSum(with("PATH", "/usr/bin"), "") != sum || EnvSum(with("TF_IN_AUTOMATION", ""), "") != sum {
		t.Error("the sum changed with an entry terraform's plan does not take")
	}
	if keyed := EnvSum(base, "key"); keyed == sum || keyed == EnvSum(base, "other key") {
		t.Error("a key does not make another sum")
	}
}
