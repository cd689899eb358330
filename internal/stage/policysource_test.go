package stage

import (
	"strings"
	"testing"
)

func TestPolicySource(t *testing.T) {
	tests := []struct {
		name, from, base string
		ci               bool
		want             string
		wantDefault      bool
		wantErr          string
	}{
		{name: "laptop, no base: the working tree", want: PoliciesFromWorktree},
		{name: "laptop, comparing with a base: the base", base: "origin/main", want: PoliciesFromBase},
		{name: "CI without a base: the default branch", ci: true, want: PoliciesFromBase, wantDefault: true},
		{name: "CI with a base", ci: true, base: "abc123", want: PoliciesFromBase},
		{name: "worktree asked on a laptop", from: "worktree", base: "origin/main", want: PoliciesFromWorktree},
		{name: "worktree asked in CI is refused", from: "worktree", ci: true, wantErr: "refused in CI"},
		{name: "worktree asked in CI with a base is refused", from: "worktree", base: "origin/main", ci: true, wantErr: "refused in CI"},
		{name: "base asked without a base", from: "base", want: PoliciesFromBase, wantDefault: true},
		{name: "base asked with a base", from: "base", base: "v1", want: PoliciesFromBase},
		{name: "unknown source", from: "head", wantErr: `PoliciesFrom "head": want one of base, worktree`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, needDefault, err := PolicySource(tt.from, tt.base, tt.ci)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want || needDefault != tt.wantDefault {
				t.Fatalf("PolicySource = %q, %v, %v; want %q, %v", got, needDefault, err, tt.want, tt.wantDefault)
			}
		})
	}
}
