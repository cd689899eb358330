package doctor

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"testing"

	"github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/project"
)

// Only what the network said is a network error: GitHub's answers and timeouts are not.
func TestNetworkError(t *testing.T) {
	dns := &net.DNSError{Err: "no such host", Name: "api.github.invalid", IsNotFound: true}
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", errors.New("connection refused"))}
	timeout := &net.OpError{Op: "dial", Net: "tcp", Err: os.ErrDeadlineExceeded}
	for _, c := range []struct {
		err  error
		want error
	}{
		{fmt.Errorf("get the rules: %w (2 attempts)", dns), dns},
		{fmt.Errorf("get the rules: %w", refused), refused},
		{fmt.Errorf("get the rules: %w", timeout), nil},
		{fmt.Errorf("get the rules: %w", context.DeadlineExceeded), nil},
		{errors.New("503 Service Unavailable"), nil},
		{nil, nil},
	} {
		if got := networkError(c.err); got != c.want {
			t.Errorf("networkError(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

// Offline, the GitHub checks are skipped: they hold, and GitHub is never asked.
func TestRunOffline(t *testing.T) {
	o := Options{Root: t.TempDir(), Offline: "--offline", GitHub: panicGitHub{}, Branch: "main",
		Config: func(context.Context) (*config.Config, error) { return config.Default(), nil },
		Projects: func(context.Context, *config.Config) ([]project.Project, error) {
			return []project.Project{{Name: "a"}}, nil
		},
		Terraform: func(context.Context, *config.Config) (string, error) { return "terraform", nil }}
	r := Run(context.Background(), o)
	var skipped int
	for _, f := range r.Findings {
		if f.Status == Skipped {
			skipped++
		}
	}
	if skipped != len(githubChecks) || r.skipped() != "required check, plan key, merge queue" {
		t.Errorf("skipped %d findings (%q), want the %d GitHub checks", skipped, r.skipped(), len(githubChecks))
	}
}

type panicGitHub struct{ GitHub }
