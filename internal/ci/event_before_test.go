package ci

import (
	"strings"
	"testing"
)

// TestEventBefore: a push to a pull request ("synchronize") names its previous head; no
// other action does, nor a before that is not a commit or is the head itself.
func TestEventBefore(t *testing.T) {
	head, before := strings.Repeat("b", 40), strings.Repeat("a", 40)
	payload := func(action, before string) []byte {
		return []byte(`{"action": "` + action + `", "before": "` + before + `", "repository": {"full_name": "acme/infra"},
			"pull_request": {"number": 7, "head": {"sha": "` + head + `", "repo": {"full_name": "acme/infra"}},
			"base": {"sha": "` + strings.Repeat("c", 40) + `", "repo": {"full_name": "acme/infra"}}}}`)
	}
	for _, tc := range []struct {
		name, event, action, before, want string
	}{
		{"synchronize", "pull_request", "synchronize", before, before},
		{"target", "pull_request_target", "synchronize", before, before},
		{"opened", "pull_request", "opened", before, ""},
		{"not a commit", "pull_request", "synchronize", "main", ""},
		{"the head", "pull_request", "synchronize", head, ""},
	} {
		ev, err := ParseEvent(tc.event, payload(tc.action, tc.before))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if ev.Before != tc.want {
			t.Errorf("%s: Before %q, want %q", tc.name, ev.Before, tc.want)
		}
	}
}
