package render

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestStaleBanner(t *testing.T) {
	body := CommentParts(mockupReport(), testMarkdownOptions)[0]
	s := Stale{Branch: "main", Projects: []string{"envs/prod/app"}, Merge: 7, Commit: "0123456789abcdef0123456789abcdef01234567", Replanning: true}
	once := SetStaleBanner(body, StaleBanner(s))
	s.Replanning = false
	s.Shared = []string{"scripts/`x`.sh"}
	twice := SetStaleBanner(once, StaleBanner(s))
	if strings.Count(twice, StaleBannerOpen) != 1 {
		t.Fatalf("a second banner:\n%s", twice)
	}
	if strings.Replace(twice, StaleBanner(s)+"\n\n", "", 1) != body {
		t.Fatalf("SetStaleBanner changed more than its banner:\n%s", twice)
	}
	golden(t, []byte(StaleStatus(s)+"\n"+StaleGateLine(s)+"\n\n"+strings.Join(strings.Split(twice, "\n")[:8], "\n")+"\n"))
}

func TestStaleStatusFits(t *testing.T) {
	s := Stale{Branch: "main", Commit: "0123456789abcdef", Merge: 12345}
	for i := 0; i < 30; i++ {
		s.Projects = append(s.Projects, "envs/production/eu-west-1/project-with-a-long-name")
	}
	d := StaleStatus(s)
	if n := utf8.RuneCountInString(d); n > 140 || !strings.HasSuffix(d, "(#12345) — re-plan") || !strings.HasPrefix(d, "stale: main changed envs/") {
		t.Errorf("%d characters: %q", n, d)
	}
	s = Stale{Branch: "main", Projects: []string{"envs/prod/app"}, Merge: 7}
	if d := StaleStatus(s); d != "stale: main changed envs/prod/app (#7) — re-plan" {
		t.Errorf("StaleStatus = %q", d)
	}
}

// A run that tells for earlier merges too (their runs were cancelled) names them.
func TestStaleEarlierMerges(t *testing.T) {
	s := Stale{Branch: "main", Projects: []string{"app"}, Merge: 9, Earlier: []int{7}, Commit: "0123456789abcdef"}
	if d := StaleStatus(s); d != "stale: main changed app (#7, #9) — re-plan" {
		t.Errorf("status %q", d)
	}
	if l := StaleGateLine(s); !strings.Contains(l, "stale — #7, #9 changed `app` on `main`") {
		t.Errorf("gate line %q", l)
	}
	s.Earlier = []int{3, 4, 5, 6, 7, 8}
	if d := StaleStatus(s); d != "stale: main changed app (#3 … #9, 7 merges) — re-plan" {
		t.Errorf("status %q", d)
	}
	s.Merge = 0
	if b := StaleBanner(s); !strings.Contains(b, "#3, #4, #5, #6, #7, #8, a push changed `app` on `main`") {
		t.Errorf("banner %q", b)
	}
}
