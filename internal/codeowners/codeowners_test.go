package codeowners

import (
	"reflect"
	"strings"
	"testing"
)

// The examples of GitHub's "About code owners" page, and the edges of its syntax.
func TestMatch(t *testing.T) {
	file := Parse(strings.Join([]string{
		"# comment",
		"*       @global-owner1 @global-owner2",
		"*.js    @js-owner #This is an inline comment.",
		"*.go docs@example.com",
		"*.txt @octo-org/octocats",
		"/build/logs/ @doctocat",
		"docs/*  docs@example.com",
		"apps/ @octocat",
		"/docs/ @doctocat",
		"/scripts/ @doctocat @octocat",
		"**/logs @octocat",
		"/apps/ @octocat",
		"/apps/github",
		"\\#notes @hash",
		"envs/prod/** @acme/platform",
		"envs/prod/README.md",
	}, "\n"))
	if len(file.Errors) != 0 {
		t.Fatalf("errors: %v", file.Errors)
	}
	cases := []struct {
		path string
		line int // 0: no rule
	}{
		{"README", 2},
		{"src/app.js", 3},
		{"x/y/z.go", 4},
		{"a.txt", 5},
		{"build/logs/x.log", 11}, // **/logs matches later
		{"build/logs", 11},
		{"docs/getting-started.md", 9},               // /docs/ is later than docs/*
		{"sub/docs/getting-started.md", 2},           // docs/* is anchored
		{"docs/build-app/troubleshooting.md", 9},     // /docs/ owns everything under docs
		{"sub/docs/build-app/troubleshooting.md", 2}, // docs/* does not go deeper
		{"x/apps/y.md", 8},
		{"apps/y.md", 12},
		{"apps/github/y.md", 13},
		{"apps", 2}, // "apps/" matches only under a directory
		{"scripts/run.sh", 10},
		{"deep/a/logs/b.txt", 11},
		{"#notes", 14},
		{"envs/prod/main.tf", 15},
		{"envs/prod/net/main.tf", 15},
		{"envs/prod/README.md", 16},
		{"envs/production/main.tf", 2},
	}
	for _, c := range cases {
		r := file.Match(c.path)
		got := 0
		if r != nil {
			got = r.Line
		}
		if got != c.line {
			t.Errorf("Match(%q) = line %d, want %d", c.path, got, c.line)
		}
	}
	if r := file.Match("apps/github/y.md"); r == nil || len(r.Owners) != 0 {
		t.Errorf("a rule without owners un-owns: %+v", r)
	}
	if got := file.Match("a.txt").Owners; !reflect.DeepEqual(got, []string{"octo-org/octocats"}) {
		t.Errorf("owners %q", got)
	}
	if got := file.Match("src/app.js").Owners; !reflect.DeepEqual(got, []string{"js-owner"}) {
		t.Errorf("an inline comment is no owner: %q", got)
	}
}

func TestNoRule(t *testing.T) {
	if r := Parse("/envs/ @a\n").Match("modules/x.tf"); r != nil {
		t.Errorf("got %+v", r)
	}
	f := Parse("docs/* @a\n")
	if r := f.Match("docs/build-app/x.md"); r != nil {
		t.Errorf("docs/* matched a deeper file: %+v", r)
	}
	if r := f.Match("docs/x.md"); r == nil {
		t.Errorf("docs/* did not match its file")
	}
}

func TestErrors(t *testing.T) {
	cases := []struct {
		text string
		want []Error
		// rules are the lines that keep a rule
		rules []int
	}{
		{"!*.js @a\n", []Error{{1, `pattern "!*.js": "!" negation does not work in CODEOWNERS`}}, nil},
		{"\n*.[ch] @a\n", []Error{{2, `pattern "*.[ch]": "[ ]" character ranges do not work in CODEOWNERS`}}, nil},
		{"* @a user\n", []Error{{1, `owner "user" is not @user, @org/team or an e-mail address`}}, []int{1}},
		{"* @a/b/c\n", []Error{{1, `owner "@a/b/c" is not @user, @org/team or an e-mail address`}}, []int{1}},
		{"a//b @a\n", []Error{{1, `pattern "a//b": the pattern has an empty path segment (//)`}}, nil},
		{"* @ok @octo/team-1 x@y.org\n", nil, []int{1}},
	}
	for _, c := range cases {
		f := Parse(c.text)
		if !reflect.DeepEqual(f.Errors, c.want) {
			t.Errorf("Parse(%q) errors %v, want %v", c.text, f.Errors, c.want)
		}
		var lines []int
		for _, r := range f.Rules {
			lines = append(lines, r.Line)
		}
		if !reflect.DeepEqual(lines, c.rules) {
			t.Errorf("Parse(%q) rules on lines %v, want %v", c.text, lines, c.rules)
		}
	}
}

func TestOwnerKinds(t *testing.T) {
	for owner, kind := range map[string]string{"octocat": "user", "acme/platform": "team", "a@b.org": "email"} {
		got := "user"
		switch {
		case IsEmail(owner):
			got = "email"
		case IsTeam(owner):
			got = "team"
		}
		if got != kind {
			t.Errorf("%s is a %s, want %s", owner, got, kind)
		}
	}
}

// TestMatchOddNames: a path may hold newlines and any other byte but "/" (git allows
// them): a file named so is owned as any other, never left without its owners.
func TestMatchOddNames(t *testing.T) {
	file := Parse("/network/ @acme/platform\ndocs/* @docs\n*.tf @tf\n")
	for path, line := range map[string]int{
		"network/a\n::error::x.txt": 1,
		"network/sub\ndir/main.tf":  3,
		"network/sub\ndir/x":        1,
		"docs/a\nb.md":              2,
		"x\n/network/y":             0,
	} {
		got := 0
		if r := file.Match(path); r != nil {
			got = r.Line
		}
		if got != line {
			t.Errorf("%q: line %d, want %d", path, got, line)
		}
	}
}
