package english

import "testing"

func TestPlural(t *testing.T) {
	tests := []struct {
		n    int
		want string
	}{{0, "0 projects"}, {1, "1 project"}, {2, "2 projects"}, {-1, "-1 projects"}}
	for _, tt := range tests {
		if got := Plural(tt.n, "project", "projects"); got != tt.want {
			t.Errorf("Plural(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}
