package policy

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"
)

// policyFS builds a file system with the given files under "policies/".
func policyFS(files map[string]string) fstest.MapFS {
	fsys := fstest.MapFS{}
	for name, body := range files {
		fsys["policies/"+name] = &fstest.MapFile{Data: []byte(body)}
	}
	return fsys
}

func mustLoad(t *testing.T, files map[string]string) *Engine {
	t.Helper()
	e, err := Load(context.Background(), Source{FS: policyFS(files), Paths: []string{"policies"}}, Options{})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return e
}

// short renders findings compactly for comparisons: "level pkg.rule address: msg".
func short(fs []Finding) []string {
	out := []string{}
	for _, f := range fs {
		s := fmt.Sprintf("%s %s.%s", f.Level, strings.TrimPrefix(f.Package, "data."), f.Rule)
		if f.Address != "" {
			s += " " + f.Address
		}
		out = append(out, s+": "+f.Msg)
	}
	return out
}

const twoChanges = `{"resource_changes": [
	{"address": "aws_s3_bucket.logs", "mode": "managed", "type": "aws_s3_bucket", "change": {"actions": ["delete"]}},
	{"address": "terraform_data.x", "mode": "managed", "type": "terraform_data", "change": {"actions": ["create"]}}
]}`

func TestRuleDiscovery(t *testing.T) {
	e := mustLoad(t, map[string]string{
		"a.rego": `package main
deny contains "deny" if true
violation contains "violation" if true
warn contains "warn" if true
deny_public_ingress contains "deny suffix" if true
warn_big_plan_2 contains "warn suffix" if true
violation_x contains "violation suffix" if true
denyx contains "not a finding rule" if true
allow if true
deny_fn(x) := x
helper contains "helper" if true
`,
		"nested/b.rego": `package terraform.aws.s3
deny contains "nested" if true
`,
		"a_test.rego": `package main_test
deny contains "tests are not evaluated" if true
test_x if true
`,
		"testdata/c.rego": `package testdata
deny contains "testdata is not evaluated" if true
`,
		".hidden/d.rego": `package hidden
deny contains "hidden dirs are ignored" if true
`,
		"README.md": "not a policy",
	})
	wantRules := []string{
		"data.main.deny", "data.main.violation", "data.main.warn", "data.main.deny_public_ingress",
		"data.main.warn_big_plan_2", "data.main.violation_x", "data.terraform.aws.s3.deny",
	}
	if got := e.Rules(); !reflect.DeepEqual(got, wantRules) {
		t.Errorf("Rules() = %q\nwant %q", got, wantRules)
	}
	if got, want := e.Files(), []string{"policies/a.rego", "policies/nested/b.rego"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Files() = %q, want %q", got, want)
	}
	r := e.Eval(context.Background(), []byte(`{}`), Project{})
	want := []string{
		"deny main.deny: deny",
		"deny main.deny_public_ingress: deny suffix",
		"deny main.violation: violation",
		"deny main.violation_x: violation suffix",
		"deny terraform.aws.s3.deny: nested",
		"warn main.warn: warn",
		"warn main.warn_big_plan_2: warn suffix",
	}
	if got := short(r.Findings); !reflect.DeepEqual(got, want) {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if r.Verdict != VerdictDeny || !r.Denied() || r.Err != nil {
		t.Errorf("verdict %s denied %v err %v, want deny", r.Verdict, r.Denied(), r.Err)
	}
}

func TestMessageShapes(t *testing.T) {
	tests := []struct {
		name    string
		rules   string
		want    []Finding
		wantErr string
		verdict Verdict
	}{
		{
			name:    "string set",
			rules:   `deny contains msg if { some rc in input.resource_changes; msg := sprintf("%s changes", [rc.address]) }`,
			want:    []Finding{{Level: LevelDeny, Rule: "deny", Package: "data.shapes", Msg: "aws_s3_bucket.logs changes"}, {Level: LevelDeny, Rule: "deny", Package: "data.shapes", Msg: "terraform_data.x changes"}},
			verdict: VerdictDeny,
		},
		{
			name: "object with msg, address and metadata",
			rules: `warn contains {"msg": "deleting", "address": rc.address, "severity": "high", "score": 7, "tags": ["a"]} if {
				some rc in input.resource_changes
				"delete" in rc.change.actions
			}`,
			want: []Finding{{
				Level: LevelWarn, Rule: "warn", Package: "data.shapes", Msg: "deleting", Address: "aws_s3_bucket.logs",
				Metadata: map[string]any{"severity": "high", "score": json.Number("7"), "tags": []any{"a"}},
			}},
			verdict: VerdictWarn,
		},
		{
			name:    "non-string address stays metadata",
			rules:   `deny contains {"msg": "m", "address": 5} if true`,
			want:    []Finding{{Level: LevelDeny, Rule: "deny", Package: "data.shapes", Msg: "m", Metadata: map[string]any{"address": json.Number("5")}}},
			verdict: VerdictDeny,
		},
		{
			name:    "complete string rule",
			rules:   `deny := "single message" if true`,
			want:    []Finding{{Level: LevelDeny, Rule: "deny", Package: "data.shapes", Msg: "single message"}},
			verdict: VerdictDeny,
		},
		{
			name:    "complete object rule",
			rules:   `violation := {"msg": "one", "address": "a.b"} if true`,
			want:    []Finding{{Level: LevelDeny, Rule: "violation", Package: "data.shapes", Msg: "one", Address: "a.b"}},
			verdict: VerdictDeny,
		},
		{
			name:    "boolean true names the rule",
			rules:   `deny_everything if true`,
			want:    []Finding{{Level: LevelDeny, Rule: "deny_everything", Package: "data.shapes", Msg: "shapes.deny_everything"}},
			verdict: VerdictDeny,
		},
		{
			name:    "boolean false and undefined are no finding",
			rules:   "default deny := false\nwarn := \"never\" if false",
			verdict: VerdictPass,
		},
		{
			name:    "empty set passes",
			rules:   `deny contains "x" if false`,
			verdict: VerdictPass,
		},
		{
			name:    "object without msg is an error",
			rules:   `deny contains {"message": "typo"} if true`,
			wantErr: `data.shapes.deny: an object value needs a string "msg" key, got no msg key`,
			verdict: VerdictError,
		},
		{
			name:    "number is an error",
			rules:   `deny := 3 if true`,
			wantErr: "data.shapes.deny: value must be a string, an object with \"msg\", or a set of them, got json.Number",
			verdict: VerdictError,
		},
		{
			name:    "set of numbers is an error",
			rules:   `deny contains 1 if true`,
			wantErr: "value must be a string",
			verdict: VerdictError,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := mustLoad(t, map[string]string{"p.rego": "package shapes\n" + tt.rules + "\n"})
			r := e.Eval(context.Background(), []byte(twoChanges), Project{})
			if tt.want == nil {
				tt.want = []Finding{}
			}
			if !reflect.DeepEqual(r.Findings, tt.want) {
				t.Errorf("findings:\n%#v\nwant\n%#v", r.Findings, tt.want)
			}
			if r.Verdict != tt.verdict {
				t.Errorf("verdict %s, want %s", r.Verdict, tt.verdict)
			}
			switch {
			case tt.wantErr == "" && r.Err != nil:
				t.Errorf("unexpected error: %v", r.Err)
			case tt.wantErr != "" && (r.Err == nil || !strings.Contains(r.Err.Error(), tt.wantErr)):
				t.Errorf("error %v, want it to contain %q", r.Err, tt.wantErr)
			}
		})
	}
}

func TestNamespaces(t *testing.T) {
	e := mustLoad(t, map[string]string{
		"main.rego":   "package main\ndeny contains \"main\" if true\n",
		"a/b.rego":    "package tfgate.rules.b\ndeny contains \"b\" if true\nwarn contains \"b warn\" if true\n",
		"a/b2.rego":   "package tfgate.rules.b\ndeny contains \"b, second file\" if true\n",
		"c/d/e.rego":  "package terraform.protected\nviolation contains \"protected\" if true\n",
		"quoted.rego": "package x[\"my-policies\"]\ndeny contains \"quoted\" if true\n",
		"shared.rego": "package shared\nhelper contains \"h\" if true\n",
		"uses.rego":   "package uses\nimport data.shared\ndeny contains msg if { some m in shared.helper; msg := concat(\"\", [\"via \", m]) }\n",
	})
	r := e.Eval(context.Background(), []byte(`{}`), Project{})
	want := []string{
		"deny main.deny: main",
		"deny terraform.protected.violation: protected",
		"deny tfgate.rules.b.deny: b",
		"deny tfgate.rules.b.deny: b, second file",
		"deny uses.deny: via h",
		`deny x["my-policies"].deny: quoted`,
		"warn tfgate.rules.b.warn: b warn",
	}
	if got := short(r.Findings); !reflect.DeepEqual(got, want) {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Two files of one package are one rule, evaluated once.
	if n := strings.Count(strings.Join(e.Rules(), " "), "data.tfgate.rules.b.deny"); n != 1 {
		t.Errorf("data.tfgate.rules.b.deny listed %d times in %q", n, e.Rules())
	}
}

func TestDataFilesAndOverrides(t *testing.T) {
	policy := `package limits
default max := 3
max := data.tfgate.max_changes
default label := "none"
label := data.team.label
deny contains msg if {
	n := count(input.resource_changes)
	n > max
	msg := sprintf("%d > %d (%s)", [n, max, label])
}
`
	plan := []byte(`{"resource_changes": [1, 2]}`)
	tests := []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{"defaults without data", map[string]string{}, []string{}},
		{"json at the root of data", map[string]string{"data.json": `{"tfgate": {"max_changes": 1}}`}, []string{"deny limits.deny: 2 > 1 (none)"}},
		{"yaml at the root of data", map[string]string{"settings.yaml": "tfgate:\n  max_changes: 0\n"}, []string{"deny limits.deny: 2 > 0 (none)"}},
		{"data in a subdirectory is merged at its path", map[string]string{
			"data.json":            `{"tfgate": {"max_changes": 1}}`,
			"team/settings.yml":    "label: platform\n",
			"team/testdata/x.json": `{"label": "ignored"}`,
		}, []string{"deny limits.deny: 2 > 1 (platform)"}},
		{"two files merge", map[string]string{
			"a.json": `{"tfgate": {"max_changes": 1}}`,
			"b.json": `{"team": {"label": "merged"}}`,
		}, []string{"deny limits.deny: 2 > 1 (merged)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{"limits.rego": policy}
			for k, v := range tt.files {
				files[k] = v
			}
			r := mustLoad(t, files).Eval(context.Background(), plan, Project{})
			if r.Err != nil {
				t.Fatal(r.Err)
			}
			if got := short(r.Findings); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("findings %q, want %q", got, tt.want)
			}
		})
	}
}

func TestProjectData(t *testing.T) {
	e := mustLoad(t, map[string]string{
		"p.rego": `package p
warn contains msg if {
	p := data.tfgate.project
	msg := sprintf("%s|%s|%s|%v", [p.name, p.dir, p.workspace, p.changed_files])
}
deny contains "prod touched" if {
	startswith(data.tfgate.project.name, "prod")
	some f in data.tfgate.project.changed_files
	endswith(f, ".tf")
}
`,
		"data.json": `{"tfgate": {"allow_delete": ["x"]}}`,
		"q.rego":    "package q\nwarn contains sprintf(\"allow=%v\", [data.tfgate.allow_delete]) if true\n",
	})
	r := e.Eval(context.Background(), []byte(`{}`), Project{Name: "prod/net", Dir: "envs/prod/net", Workspace: "default", ChangedFiles: []string{"envs/prod/net/main.tf"}})
	want := []string{
		"deny p.deny: prod touched",
		`warn p.warn: prod/net|envs/prod/net|default|["envs/prod/net/main.tf"]`,
		`warn q.warn: allow=["x"]`,
	}
	if got := short(r.Findings); !reflect.DeepEqual(got, want) {
		t.Errorf("findings %q, want %q", got, want)
	}
	r = e.Eval(context.Background(), []byte(`{}`), Project{Name: "dev"})
	want = []string{`warn p.warn: dev|||[]`, `warn q.warn: allow=["x"]`}
	if got := short(r.Findings); !reflect.DeepEqual(got, want) {
		t.Errorf("second project: findings %q, want %q", got, want)
	}
}

func TestExceptions(t *testing.T) {
	e := mustLoad(t, map[string]string{
		"p.rego": `package p
deny_public contains "public" if true
deny_deletes contains "deletes" if true
warn_size contains "size" if true
exception contains rules if {
	input.owner == "platform"
	rules := ["public", "size"]
}
`,
	})
	r := e.Eval(context.Background(), []byte(`{"owner": "platform"}`), Project{})
	if got, want := short(r.Findings), []string{"deny p.deny_deletes: deletes"}; !reflect.DeepEqual(got, want) {
		t.Errorf("findings %q, want %q", got, want)
	}
	if want := []string{"data.p.deny_public", "data.p.warn_size"}; !reflect.DeepEqual(r.Excepted, want) {
		t.Errorf("excepted %q, want %q", r.Excepted, want)
	}
	r = e.Eval(context.Background(), []byte(`{"owner": "someone"}`), Project{})
	if len(r.Findings) != 3 || len(r.Excepted) != 0 {
		t.Errorf("without exception: findings %q excepted %q", short(r.Findings), r.Excepted)
	}
}

func TestEvalErrorsFailClosed(t *testing.T) {
	tests := []struct {
		name      string
		policy    string
		plan      string
		wantErr   []string
		wantFinds []string
	}{
		{
			name: "conflicting complete rule values",
			policy: `package p
deny := msg if { some rc in input.resource_changes; msg := rc.address }
warn contains "still reported" if true
`,
			plan:      twoChanges,
			wantErr:   []string{"data.p.deny:", "policies/p.rego:2:", "eval_conflict_error"},
			wantFinds: []string{"warn p.warn: still reported"},
		},
		{
			name: "built-in type error on plan data",
			policy: `package p
deny contains msg if { some rc in input.resource_changes; n := to_number(rc.address); msg := sprintf("%v", [n]) }
`,
			plan:    twoChanges,
			wantErr: []string{"data.p.deny:", "policies/p.rego:2:", "to_number"},
		},
		{
			name:    "invalid plan JSON",
			policy:  "package p\ndeny contains \"x\" if false\n",
			plan:    `{"resource_changes": [}`,
			wantErr: []string{"read plan JSON: invalid JSON at offset 22"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := mustLoad(t, map[string]string{"p.rego": tt.policy}).Eval(context.Background(), []byte(tt.plan), Project{})
			if r.Verdict != VerdictError || !r.Denied() {
				t.Errorf("verdict %s denied %v, want error and denied", r.Verdict, r.Denied())
			}
			if r.Err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(r.Err.Error(), w) {
					t.Errorf("error %q does not contain %q", r.Err, w)
				}
			}
			if tt.wantFinds == nil {
				tt.wantFinds = []string{}
			}
			if got := short(r.Findings); !reflect.DeepEqual(got, tt.wantFinds) {
				t.Errorf("findings %q, want %q", got, tt.wantFinds)
			}
		})
	}
}

func TestEvalCancelled(t *testing.T) {
	e := mustLoad(t, map[string]string{"p.rego": "package p\ndeny contains \"x\" if false\n"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := e.Eval(ctx, []byte(`{}`), Project{})
	if r.Verdict != VerdictError || r.Err == nil {
		t.Errorf("cancelled evaluation: verdict %s err %v, want error", r.Verdict, r.Err)
	}
}
