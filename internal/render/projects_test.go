package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tfgate/tfgate/internal/project"
)

func sampleProjects() []project.Project {
	return []project.Project{
		{Name: "envs/dev/app", Dir: "envs/dev/app", Workspace: "default", Mode: "managed", Modules: []string{"modules/app"}},
		{Name: "envs/prod/app", Dir: "envs/prod/app", Workspace: "prod", Mode: "managed",
			Modules: []string{"modules/app", "modules/network/vpc", "modules/network/subnets", "modules/observability/dashboards"}},
		{Name: "evil\x1b[31mred\nforged row", Dir: "evil\x1b[31mred\nforged row", Workspace: "default", Mode: "observe",
			Problems: []string{"main.tf:3: bad \x1b]0;title\a"}},
	}
}

func TestProjectsTable(t *testing.T) {
	for _, tt := range []struct {
		name string
		opts ProjectsOptions
		why  []string
	}{
		{"log", ProjectsOptions{}, nil},
		{"terminal-60", ProjectsOptions{TextOptions: TextOptions{Width: 60}}, nil},
		{"changed", ProjectsOptions{TextOptions: TextOptions{Width: 200}, Changed: true, Base: "origin/main"},
			[]string{"modules/app/main.tf", "modules/network/vpc/main.tf", "evil\x1b[0m.tf"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := ProjectsTable(&b, sampleProjects(), tt.why, tt.opts); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			if strings.ContainsAny(out, "\x1b\a") {
				t.Fatalf("control characters reached the terminal: %q", out)
			}
			if got := strings.Count(out, "\n"); got != 6 {
				t.Errorf("%d lines, want 6 (header, 3 rows, blank, 1 problem): a name forged a row?\n%s", got, out)
			}
			if tt.opts.Width > 0 {
				for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
					if runes(l) > tt.opts.Width && !strings.HasPrefix(l, "! ") {
						t.Errorf("line of %d runes exceeds width %d: %q", runes(l), tt.opts.Width, l)
					}
				}
			}
			golden(t, b.Bytes())
		})
	}
}

func TestProjectsTableEmpty(t *testing.T) {
	for _, tt := range []struct {
		opts ProjectsOptions
		want string
	}{
		{ProjectsOptions{}, "No projects found.\n"},
		{ProjectsOptions{Changed: true, Base: "origin/main"}, "No project is affected by the change since origin/main.\n"},
	} {
		var b bytes.Buffer
		if err := ProjectsTable(&b, nil, nil, tt.opts); err != nil || b.String() != tt.want {
			t.Errorf("got %q, %v; want %q", b.String(), err, tt.want)
		}
	}
}
