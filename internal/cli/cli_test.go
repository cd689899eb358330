package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestExitCode(t *testing.T) {
	tests := []struct {
		err  error
		want int
	}{
		{nil, ExitOK},
		{errors.New("boom"), ExitError},
		{withCode(ExitChanges, nil), ExitChanges},
		{fmt.Errorf("wrapped: %w", withCode(ExitPolicyDenied, errors.New("denied"))), ExitPolicyDenied},
		{withCode(ExitGateRefused, nil), ExitGateRefused},
		{context.Canceled, ExitError},
	}
	for _, tt := range tests {
		if got := exitCode(tt.err); got != tt.want {
			t.Errorf("exitCode(%v) = %d, want %d", tt.err, got, tt.want)
		}
	}
}

// run executes tfgate in-process and returns its exit code and streams.
func run(t *testing.T, env []string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Run(context.Background(), args, strings.NewReader(""), &out, &errb, env)
	return code, out.String(), errb.String()
}

func TestFlagErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		args    []string
		wantErr string
	}{
		{[]string{"plan", "--format", "yaml"}, `--format "yaml": want one of text, markdown, json`},
		{[]string{"projects", "--format", "xml"}, `--format "xml": want one of table, json, matrix`},
		{[]string{"render", "--format", "html", "x.json"}, `--format "html": want one of text, markdown, json`},
		{[]string{"-C", dir, "plan", "--all", "some/project"}, "--all and project names are exclusive"},
		{[]string{"--log-level", "loud", "version"}, `--log-level "loud": want debug, info, warn or error`},
		{[]string{"-C", dir + "/nope", "projects"}, "no such file or directory"},
		{[]string{"render"}, "accepts 1 arg(s), received 0"},
		{[]string{"plan", "--parallel", "many"}, `invalid argument "many"`},
		{[]string{"drift", "--format", "yaml"}, `--format "yaml": want one of text, markdown, json`},
		{[]string{"drift", "--report", "slack"}, `--report "slack": want one of auto, github, none`},
		{[]string{"-C", dir, "drift", "--report", "github"}, "--report github needs GITHUB_TOKEN"},
		{[]string{"publish"}, "requires at least 1 arg(s), only received 0"},
		{[]string{"publish", "--format", "yaml", "results"}, `--format "yaml": want one of text, markdown, json`},
		{[]string{"publish", "--matrix", dir + "/nope.json", "results"}, "--matrix: open"},
		{[]string{"-C", dir, "plan", "--all", "--changed"}, "--all and --changed are exclusive"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, stdout, stderr := run(t, nil, tt.args...)
			if code != ExitError {
				t.Errorf("exit code %d, want %d", code, ExitError)
			}
			if !strings.Contains(stderr, tt.wantErr) {
				t.Errorf("stderr %q does not contain %q", stderr, tt.wantErr)
			}
			if stdout != "" {
				t.Errorf("nothing belongs on stdout on error, got %q", stdout)
			}
		})
	}
}

func TestSecretsFromEnvironmentAreMasked(t *testing.T) {
	env := []string{"GITHUB_TOKEN=ghp_supersecretvalue"}
	code, _, stderr := run(t, env, "-C", "/nonexistent/ghp_supersecretvalue", "projects")
	if code != ExitError {
		t.Fatalf("exit %d", code)
	}
	if strings.Contains(stderr, "ghp_supersecretvalue") || !strings.Contains(stderr, "(masked)") {
		t.Fatalf("token not masked in %q", stderr)
	}
}

func TestTerraformEnvIsNonInteractive(t *testing.T) {
	a := newApp(nil, nil, nil, nil, []string{"PATH=/bin", "TF_INPUT=1"}, nil)
	env := a.terraformEnv()
	if env["TF_INPUT"] != "0" || env["TF_IN_AUTOMATION"] != "1" || env["PATH"] != "/bin" {
		t.Fatalf("terraformEnv = %v", env)
	}
}

// The webhook URL is a secret from the moment it is read: even an error quoting it (here,
// -C naming it) shows it masked.
func TestWebhookURLIsMasked(t *testing.T) {
	const hook = "https://hooks.example/T0/B0/whsec-abcdef123"
	for _, tt := range []struct {
		env  []string
		args []string
	}{
		{nil, []string{"drift", "--webhook", hook, "-C", "/nonexistent/" + hook}},
		{[]string{"TFGATE_DRIFT_WEBHOOK=" + hook}, []string{"drift", "-C", "/nonexistent/" + hook}},
	} {
		code, stdout, stderr := run(t, tt.env, tt.args...)
		if code != ExitError {
			t.Fatalf("exit %d", code)
		}
		if strings.Contains(stdout+stderr, "whsec-abcdef123") || !strings.Contains(stderr, "(masked)") {
			t.Errorf("webhook URL not masked in %q", stderr)
		}
	}
}

// TestPluginCacheDir: the shared provider cache goes to the runner's tool cache in GitHub
// Actions, else to the user cache directory of the app's own environment.
func TestPluginCacheDir(t *testing.T) {
	tests := []struct {
		name    string
		environ []string
		want    string
	}{
		{"xdg", []string{"HOME=/home/u", "XDG_CACHE_HOME=/xdg"}, "/xdg/tfgate/plugins"},
		{"home", []string{"HOME=/home/u"}, "/home/u/.cache/tfgate/plugins"},
		{"relative xdg is ignored", []string{"XDG_CACHE_HOME=cache"}, ""},
		{"nowhere", nil, ""},
		{"actions", []string{"HOME=/home/runner", "GITHUB_ACTIONS=true", "RUNNER_TOOL_CACHE=/opt/hostedtoolcache"}, "/opt/hostedtoolcache/tfgate/plugins"},
		{"tool cache outside actions is not the runner's", []string{"HOME=/home/u", "RUNNER_TOOL_CACHE=/opt/x"}, "/home/u/.cache/tfgate/plugins"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newApp(nil, nil, nil, nil, tt.environ, nil)
			if got := a.terraformOptions(false).PluginCacheDir; got != tt.want {
				t.Errorf("PluginCacheDir = %q, want %q", got, tt.want)
			}
		})
	}
	if got := userCacheDir("darwin", func(k string) string { return map[string]string{"HOME": "/Users/u"}[k] }); got != "/Users/u/Library/Caches" {
		t.Errorf("macOS: %q", got)
	}
}
