package ci

import (
	"strings"
	"testing"
)

func TestParseQueueBranch(t *testing.T) {
	sha := strings.Repeat("ab", 20)
	for ref, want := range map[string]QueueBranch{
		"refs/heads/gh-readonly-queue/main/pr-42-" + sha:         {Base: "main", PR: 42, Head: sha},
		"gh-readonly-queue/release/v2/pr-7-" + sha:               {Base: "release/v2", PR: 7, Head: sha},
		"refs/heads/gh-readonly-queue/main/pr-0-" + sha:          {},
		"refs/heads/gh-readonly-queue/main/pr-42-" + sha[:39]:    {},
		"refs/heads/gh-readonly-queue/main/pr-42-" + sha + "-x":  {},
		"refs/heads/feature/gh-readonly-queue/main/pr-42-" + sha: {},
	} {
		got, ok := ParseQueueBranch(ref)
		if got != want || ok != (want.PR != 0) {
			t.Errorf("ParseQueueBranch(%q) = %+v, %v; want %+v", ref, got, ok, want)
		}
	}
}
