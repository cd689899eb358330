package policy

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
)

// mergeChain is a ~1 KB YAML file of merge keys whose expansion doubles per level.
func mergeChain(levels int) string {
	var b strings.Builder
	b.WriteString("x0: &a0 {v: 1}\n")
	for i := 1; i <= levels; i++ {
		fmt.Fprintf(&b, "x%d: &a%d {<<: [*a%d, *a%d]}\n", i, i, i-1, i-1)
	}
	return b.String()
}

func TestLoadFailsClosed(t *testing.T) {
	tests := []struct {
		name  string
		fsys  fstest.MapFS
		paths []string
		want  []string // substrings of the error, in order
	}{
		{
			name:  "syntax error names file and line",
			fsys:  policyFS(map[string]string{"ok.rego": "package ok\ndeny contains \"x\" if false\n", "bad/broken.rego": "package broken\n\ndeny contains msg if {\n\tmsg := \n}\n"}),
			paths: []string{"policies"},
			want:  []string{"load policies (base commit abc123):\n", "policies/bad/broken.rego:5:", "rego_parse_error"},
		},
		{
			name:  "rego v0 syntax gets a hint",
			fsys:  policyFS(map[string]string{"old.rego": "package old\n\ndeny[msg] {\n\tmsg := \"x\"\n}\n"}),
			paths: []string{"policies"},
			want:  []string{"policies/old.rego:3:", "hint: rego v1 syntax required: use `contains` and `if`"},
		},
		{
			name:  "compile error names file and line",
			fsys:  policyFS(map[string]string{"p.rego": "package p\n\ndeny contains msg if {\n\tmsg := undefined_var\n}\n"}),
			paths: []string{"policies"},
			want:  []string{"compile policies (base commit abc123):\npolicies/p.rego:4:", "undefined_var"},
		},
		{
			name:  "http.send is rejected",
			fsys:  policyFS(map[string]string{"net.rego": "package net\n\ndeny contains msg if {\n\tr := http.send({\"method\": \"get\", \"url\": \"https://example.com\"})\n\tmsg := r.body\n}\n"}),
			paths: []string{"policies"},
			want:  []string{"policies/net.rego:4:", "http.send is not allowed in tfgate policies: it reaches the network"},
		},
		{
			name:  "net.lookup_ip_addr is rejected",
			fsys:  policyFS(map[string]string{"dns.rego": "package dns\ndeny contains \"x\" if net.lookup_ip_addr(\"example.com\")\n"}),
			paths: []string{"policies"},
			want:  []string{"policies/dns.rego:2:", "net.lookup_ip_addr is not allowed"},
		},
		{
			name:  "opa.runtime is rejected",
			fsys:  policyFS(map[string]string{"env.rego": "package env\ndeny contains opa.runtime().env.HOME if true\n"}),
			paths: []string{"policies"},
			want:  []string{"policies/env.rego:2:", "opa.runtime is not allowed", "host environment"},
		},
		{
			name:  "json.match_schema is rejected",
			fsys:  policyFS(map[string]string{"s.rego": "package s\ndeny contains \"x\" if { [ok, _] := json.match_schema({}, {\"$ref\": \"file:///etc/passwd\"}); ok }\n"}),
			paths: []string{"policies"},
			want:  []string{"policies/s.rego:2:", "json.match_schema is not allowed"},
		},
		{
			name:  "no policies in the path",
			fsys:  policyFS(map[string]string{"data.json": "{}", "README.md": "x"}),
			paths: []string{"policies"},
			want:  []string{"no .rego policies found in policies (base commit abc123)"},
		},
		{
			name:  "only tests in the path",
			fsys:  policyFS(map[string]string{"p_test.rego": "package p_test\ntest_x if true\n"}),
			paths: []string{"policies"},
			want:  []string{"no .rego policies found in policies"},
		},
		{
			name:  "policies without deny, violation or warn rules",
			fsys:  policyFS(map[string]string{"p.rego": "package p\nallow if true\n"}),
			paths: []string{"policies"},
			want:  []string{"policies (base commit abc123) define no deny, violation, warn or approval rules"},
		},
		{
			name:  "missing path",
			fsys:  policyFS(map[string]string{"p.rego": "package p\ndeny contains \"x\" if true\n"}),
			paths: []string{"policies", "more-policies"},
			want:  []string{`policy path "more-policies" does not exist (base commit abc123)`},
		},
		{
			name:  "path escaping the tree",
			fsys:  policyFS(map[string]string{"p.rego": "package p\ndeny contains \"x\" if true\n"}),
			paths: []string{"../elsewhere"},
			want:  []string{`invalid policy path "../elsewhere"`},
		},
		{
			name:  "no paths",
			fsys:  policyFS(map[string]string{"p.rego": "package p\ndeny contains \"x\" if true\n"}),
			paths: nil,
			want:  []string{"no policy paths configured"},
		},
		{
			name:  "invalid data file",
			fsys:  policyFS(map[string]string{"p.rego": "package p\ndeny contains \"x\" if true\n", "data.json": "{\"a\": "}),
			paths: []string{"policies"},
			want:  []string{"load policies", "policies/data.json"},
		},
		{
			name:  "data key set twice",
			fsys:  policyFS(map[string]string{"p.rego": "package p\ndeny contains \"x\" if true\n", "aws/limits.yaml": "max_instances: 5\nregions: [eu-west-1]\nmax_instances: 50\n"}),
			paths: []string{"policies"},
			want:  []string{"load policies (base commit abc123):\n", `policies/aws/limits.yaml:3: key "max_instances" is set twice in one mapping (first on line 1); keep one`},
		},
		{
			name:  "json data key set twice",
			fsys:  policyFS(map[string]string{"p.rego": "package p\ndeny contains \"x\" if true\n", "data.json": "{\"limits\": {\n  \"max\": 1,\n  \"max\": 2}}\n"}),
			paths: []string{"policies"},
			want:  []string{`policies/data.json:3: key "max" is set twice in one mapping (first on line 2); keep one`},
		},
		{
			name:  "data merging its own anchor",
			fsys:  policyFS(map[string]string{"p.rego": "package p\ndeny contains \"x\" if true\n", "data.yaml": "x: 1\nteams: &t {a: 1, <<: *t}\n"}),
			paths: []string{"policies"},
			want:  []string{"policies/data.yaml:2: *t refers to &t (line 2), which contains it: a recursive alias or merge; remove it"},
		},
		{
			name:  "data aliases expanding without end",
			fsys:  policyFS(map[string]string{"p.rego": "package p\ndeny contains \"x\" if true\n", "data.yaml": mergeChain(40)}),
			paths: []string{"policies"},
			want:  []string{"policies/data.yaml:", "aliases expand the file to more than 100000 values"},
		},
		{
			name:  "data conflicting with a rule",
			fsys:  policyFS(map[string]string{"p.rego": "package p\ndeny contains \"x\" if true\n", "data.json": `{"p": {"deny": ["from data"]}}`}),
			paths: []string{"policies"},
			want:  []string{"compile policies", "conflict"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := Load(context.Background(), Source{FS: tt.fsys, Paths: tt.paths, Name: "base commit abc123"}, Options{})
			if err == nil {
				t.Fatalf("Load succeeded with rules %q, want an error", e.Rules())
			}
			msg := err.Error()
			rest := msg
			for _, w := range tt.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("error does not contain %q (in order):\n%s", w, msg)
				}
				rest = rest[i+len(w):]
			}
		})
	}
}

func TestLoadFromGitTreeLikeFS(t *testing.T) {
	// A caller feeds the base commit's tree as an fs.FS; paths are relative to
	// its root, several paths combine, and a single file works as a path.
	fsys := fstest.MapFS{
		"org/policies/a.rego":       {Data: []byte("package a\ndeny contains \"a\" if true\n")},
		"org/policies/data.yaml":    {Data: []byte("tfgate:\n  x: 1\n")},
		"team/extra.rego":           {Data: []byte("package b\nwarn contains sprintf(\"x=%v\", [data.tfgate.x]) if true\n")},
		"team/unrelated/other.rego": {Data: []byte("package c\ndeny contains \"not loaded\" if true\n")},
	}
	e, err := Load(context.Background(), Source{FS: fsys, Paths: []string{"./org/policies/", "team/extra.rego"}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := e.Eval(context.Background(), []byte(`{}`), Project{})
	got := strings.Join(short(r.Findings), "; ")
	if want := "deny a.deny: a; warn b.warn: x=1"; got != want {
		t.Errorf("findings %q, want %q", got, want)
	}
}

func TestPrintCaptured(t *testing.T) {
	files := map[string]string{"p.rego": `package p
deny contains msg if {
	some rc in input.resource_changes
	print("checking", rc.address)
	msg := rc.address
}
`}
	var out bytes.Buffer
	e, err := Load(context.Background(), Source{FS: policyFS(files), Paths: []string{"policies"}}, Options{PrintWriter: &out})
	if err != nil {
		t.Fatal(err)
	}
	e.Eval(context.Background(), []byte(twoChanges), Project{Name: "envs/prod"})
	want := "envs/prod: policies/p.rego:4: checking aws_s3_bucket.logs\nenvs/prod: policies/p.rego:4: checking terraform_data.x\n"
	if out.String() != want {
		t.Errorf("print output:\n%s\nwant:\n%s", out.String(), want)
	}

	// Without a writer print() is compiled away and evaluation still works.
	r := mustLoad(t, files).Eval(context.Background(), []byte(twoChanges), Project{})
	if len(r.Findings) != 2 || r.Err != nil {
		t.Errorf("without print writer: findings %q err %v", short(r.Findings), r.Err)
	}
}

func TestEvalConcurrent(t *testing.T) {
	var out syncBuffer
	e, err := Load(context.Background(), Source{FS: policyFS(map[string]string{"p.rego": `package p
deny contains msg if {
	some rc in input.resource_changes
	print(rc.address)
	msg := sprintf("%s/%s", [data.tfgate.project.name, rc.address])
}
`}), Paths: []string{"policies"}}, Options{PrintWriter: &out})
	if err != nil {
		t.Fatal(err)
	}
	const workers = 16
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for i := range workers {
		wg.Go(func() {
			name := fmt.Sprintf("p%d", i)
			for j := range 20 {
				plan := fmt.Sprintf(`{"resource_changes": [{"address": "r.%d"}]}`, j)
				r := e.Eval(context.Background(), []byte(plan), Project{Name: name})
				want := fmt.Sprintf("%s/r.%d", name, j)
				if len(r.Findings) != 1 || r.Findings[0].Msg != want || r.Err != nil {
					errs <- fmt.Errorf("worker %d eval %d: findings %q err %v, want %q", i, j, short(r.Findings), r.Err, want)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := strings.Count(out.String(), "\n"); n != workers*20 {
		t.Errorf("%d print lines, want %d", n, workers*20)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestPolicyFiles(t *testing.T) {
	changed := []string{
		"policies/protected.rego",
		"policies/protected_test.rego",
		"./policies/sub/settings.yaml",
		"policies/README.md",
		"policies/.hidden/x.rego",
		"policieswrong/x.rego",
		"envs/prod/main.tf",
		"team/extra.rego",
		"team/other.json",
	}
	got := PolicyFiles([]string{"policies/", "team/extra.rego"}, changed)
	want := []string{"policies/protected.rego", "policies/protected_test.rego", "policies/sub/settings.yaml", "team/extra.rego"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("PolicyFiles = %q, want %q", got, want)
	}
	if got := PolicyFiles([]string{"."}, []string{"a.rego", "b.tf", ".github/x.yaml"}); !reflect.DeepEqual(got, []string{"a.rego"}) {
		t.Errorf("PolicyFiles(.) = %q", got)
	}
	if got := PolicyFiles([]string{"policies"}, []string{"envs/main.tf"}); got != nil {
		t.Errorf("PolicyFiles without policy changes = %q, want nil", got)
	}
}

// TestEvalValueSharedPlan evaluates one decoded plan from many goroutines,
// as tfgate does when it judges a plan for several projects; run with -race.
func TestEvalValueSharedPlan(t *testing.T) {
	e, err := Load(context.Background(), Source{FS: os.DirFS("../.."), Paths: []string{"policies"}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := os.ReadFile("testdata/plan_mixed.json")
	if err != nil {
		t.Fatal(err)
	}
	v, err := e.Decode(plan)
	if err != nil {
		t.Fatal(err)
	}
	want := e.EvalValue(context.Background(), v, Project{Name: "p"})
	var wg sync.WaitGroup
	results := make([]Result, 8)
	for i := range results {
		wg.Go(func() { results[i] = e.EvalValue(context.Background(), v, Project{Name: "p"}) })
	}
	wg.Wait()
	for i, r := range results {
		if !reflect.DeepEqual(r, want) {
			t.Errorf("goroutine %d: %s with %d findings, want %s with %d", i, r.Verdict, len(r.Findings), want.Verdict, len(want.Findings))
		}
	}
}
