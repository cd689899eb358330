package doctor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/github"
)

// Every owner team the gate may need is checked: approval.teams, policies.owners and, with
// approval.codeowners, CODEOWNERS' teams; an unreadable one fails and names the permission.
func TestCheckTeams(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".github"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".github", "CODEOWNERS"), []byte("/net/ @acme/net @alice\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Parse([]byte("version: 1\napproval: {codeowners: true, teams: [acme/platform]}\npolicies: {owners: [bob, acme/sec]}\n"), ".tfgate.yaml", "")
	if err != nil {
		t.Fatal(err)
	}
	unreadable := fmt.Errorf("get team: %w", github.ErrTeamUnreadable)
	for _, c := range []struct {
		name   string
		teams  map[string]error
		status Status
		want   string
	}{
		{"all readable", nil, OK, "reads the owner teams acme/net, acme/platform, acme/sec"},
		{"one unreadable", map[string]error{"acme/net": unreadable}, Fail, "cannot read the owner teams acme/net "},
		{"an outage", map[string]error{"acme/sec": errors.New("502")}, Unknown, "acme/sec (502)"},
	} {
		o := Options{Root: root, GitHub: fakeGitHub{teams: c.teams}}
		f, ok := checkTeams(context.Background(), o, cfg)
		if !ok || f.Status != c.status || !strings.Contains(f.Message, c.want) {
			t.Errorf("%s: %+v", c.name, f)
		}
		if f.Status == Fail && !strings.Contains(f.Fix, "members: read") {
			t.Errorf("%s: fix %q", c.name, f.Fix)
		}
	}
	if _, ok := checkTeams(context.Background(), Options{Root: root}, config.Default()); ok {
		t.Errorf("no team named, yet checked")
	}
}
