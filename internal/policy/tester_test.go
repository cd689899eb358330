package policy

import (
	"bytes"
	"context"
	"os"
	"regexp"
	"strings"
	"testing"
)

// durations vary between runs; golden files hold a placeholder.
var durationRE = regexp.MustCompile(`\([0-9.]+(ns|µs|ms|s)\)`)

func TestTestReportsLikeOpaTest(t *testing.T) {
	for _, verbose := range []bool{false, true} {
		name := "TestTest_quiet"
		if verbose {
			name = "TestTest_verbose"
		}
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			passed, failed, err := Test(context.Background(), Source{FS: os.DirFS("testdata"), Paths: []string{"policytest"}}, &out, verbose)
			if err != nil {
				t.Fatal(err)
			}
			if passed != 3 || failed != 2 {
				t.Errorf("passed %d failed %d, want 3 and 2\n%s", passed, failed, out.String())
			}
			goldenCheck(t, name, durationRE.ReplaceAll(out.Bytes(), []byte("(DURATION)")))
		})
	}
}

func TestTestErrors(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"no tests", map[string]string{"p.rego": "package p\ndeny contains \"x\" if true\n"}, "test policies: no tests (rules named test_*) found in policies"},
		{"compile error in a test", map[string]string{"p_test.rego": "package p_test\ntest_x if { x := y }\n"}, "policies/p_test.rego:2:"},
		{"network in a test", map[string]string{"p_test.rego": "package p_test\ntest_x if { http.send({}) }\n"}, "http.send is not allowed"},
		{"v0 test file", map[string]string{"p_test.rego": "package p_test\ntest_x { true }\n"}, "rego v1 syntax required"},
		{"no rego at all", map[string]string{"x.json": "{}"}, "no .rego policies found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			_, _, err := Test(context.Background(), Source{FS: policyFS(tt.files), Paths: []string{"policies"}}, &out, false)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestSourcePlace(t *testing.T) {
	for _, tt := range []struct {
		src  Source
		want string
	}{
		{Source{Paths: []string{"policies"}}, "policies"},
		{Source{Paths: []string{"a", "b"}, Name: "base commit 3f2c1aa"}, "a and b (base commit 3f2c1aa)"},
		{Source{Paths: []string{"."}, Name: "pols"}, "pols"},
	} {
		if got := tt.src.place(); got != tt.want {
			t.Errorf("%+v.place() = %q, want %q", tt.src, got, tt.want)
		}
	}
}

func TestJoinPaths(t *testing.T) {
	for _, tt := range []struct {
		paths []string
		want  string
	}{
		{[]string{"policies"}, "policies"},
		{[]string{"a", "b"}, "a and b"},
		{[]string{"a", "b", "c"}, "a, b and c"},
	} {
		if got := joinPaths(tt.paths); got != tt.want {
			t.Errorf("joinPaths(%q) = %q, want %q", tt.paths, got, tt.want)
		}
	}
}
