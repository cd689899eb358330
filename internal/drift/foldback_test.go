package drift

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tfgate/tfgate/internal/plan"
	"github.com/tfgate/tfgate/internal/project"
)

func known(text string) plan.Value { return plan.Value{Text: text, Kind: plan.KindKnown} }

var (
	null      = plan.Value{Text: plan.TextNull, Kind: plan.KindNull}
	sensitive = plan.Value{Text: plan.TextSensitive, Kind: plan.KindSensitive}
)

// change is one drifted attribute: before is the state (what the code produced), after
// what the infrastructure now has.
func change(path string, before, after plan.Value) plan.Attribute {
	return plan.Attribute{Path: path, Before: before, After: after}
}

func drifted(addr string, attrs ...plan.Attribute) plan.Resource {
	a, _ := parseAddress(addr)
	return plan.Resource{Address: addr, Mode: "managed", Type: a.typ, Name: a.name, Action: plan.ActionUpdate, Attributes: attrs}
}

func TestSuggest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		files   map[string]string // root-relative
		project project.Project
		drift   []plan.Resource
		want    []string          // Suggestion.String()s
		after   map[string]string // files after the patch is applied with git apply
	}{
		{
			name: "literal string",
			files: map[string]string{"app/main.tf": `resource "fakecloud_object" "x" {
  name    = "x"
  content = "v1"
}
`},
			drift: []plan.Resource{drifted("fakecloud_object.x", change("content", known(`"v1"`), known(`"v2"`)))},
			want:  []string{`app/main.tf:3  content = "v1" → "v2"`},
			after: map[string]string{"app/main.tf": `resource "fakecloud_object" "x" {
  name    = "x"
  content = "v2"
}
`},
		},
		{
			name: "lifecycle ignore_changes: nothing to fold back",
			files: map[string]string{"app/main.tf": `resource "fakecloud_object" "x" {
  name    = "x"
  content = "desired=2"
  tags    = { env = "prod" }
  lifecycle {
    ignore_changes = [content]
  }
}
resource "fakecloud_object" "y" {
  content = "a"
  lifecycle {
    ignore_changes = all
  }
}
`},
			drift: []plan.Resource{
				drifted("fakecloud_object.x", change("content", known(`"desired=2"`), known(`"desired=7"`)), change("tags.env", known(`"prod"`), known(`"dev"`))),
				drifted("fakecloud_object.y", change("content", known(`"a"`), known(`"b"`))),
			},
			want: []string{
				`fakecloud_object.x.content: ignored by lifecycle.ignore_changes in app/main.tf:6: terraform plans no change for it`,
				`app/main.tf:4  tags.env = "prod" → "dev"`,
				`fakecloud_object.y.content: ignored by lifecycle.ignore_changes in app/main.tf:12: terraform plans no change for it`,
			},
		},
		{
			name:  "number, bool and list",
			files: map[string]string{"app/main.tf": "resource \"t\" \"x\" {\n  size    = 3\n  enabled = true\n  cidrs   = [\"10.0.0.0/8\"]\n}"},
			drift: []plan.Resource{drifted("t.x",
				change("size", known("3"), known("5")),
				change("enabled", known("true"), known("false")),
				change("cidrs", known(`["10.0.0.0/8"]`), known(`["10.0.0.0/8", "0.0.0.0/0"]`)))},
			want: []string{
				`app/main.tf:2  size = 3 → 5`,
				`app/main.tf:3  enabled = true → false`,
				`app/main.tf:4  cidrs = ["10.0.0.0/8"] → ["10.0.0.0/8", "0.0.0.0/0"]`,
			},
			after: map[string]string{"app/main.tf": "resource \"t\" \"x\" {\n  size    = 5\n  enabled = false\n  cidrs   = [\"10.0.0.0/8\", \"0.0.0.0/0\"]\n}"},
		},
		{
			name:  "string with template sequences and escapes",
			files: map[string]string{"app/main.tf": "resource \"t\" \"x\" {\n  content = \"v1\"\n}\n"},
			drift: []plan.Resource{drifted("t.x", change("content", known(`"v1"`), known(`"${x} \"q\"\n\x07"`)))},
			want:  []string{`app/main.tf:2  content = "v1" → "$${x} \"q\"\n\u0007"`},
		},
		{
			name: "nested map key, key added and key removed",
			files: map[string]string{"app/main.tf": `resource "t" "x" {
  tags = {
    env  = "prod"
    team = "a"
  }
  labels = { keep = "1", drop = "2" }
  other  = { env = "prod" }
}
`},
			drift: []plan.Resource{drifted("t.x",
				change("tags.env", known(`"prod"`), known(`"staging"`)),
				change(`tags["cost center"]`, null, known(`"42"`)),
				change("labels.drop", known(`"2"`), null),
				change("other.env", known(`"prod"`), known(`"dev"`)))},
			want: []string{
				`app/main.tf:7  other.env = "prod" → "dev"`,
				`app/main.tf:2  tags = {⏎    env  = "prod"⏎    team = "a"⏎  } → {⏎    env           = "staging"⏎    team          = "a"⏎    "cost center" = "42"⏎  }`,
				`app/main.tf:6  labels = { keep = "1", drop = "2" } → { keep = "1" }`,
			},
			after: map[string]string{"app/main.tf": `resource "t" "x" {
  tags = {
    env           = "staging"
    team          = "a"
    "cost center" = "42"
  }
  labels = { keep = "1" }
  other  = { env = "dev" }
}
`},
		},
		{
			name: "heredoc",
			files: map[string]string{"app/main.tf": `resource "t" "x" {
  content = <<-EOT
    line one
    line two
  EOT
}
`},
			drift: []plan.Resource{drifted("t.x", change("content", known(`"line one\nline two\n"`), known(`"line one\nline 2\nline three\n"`)))},
			want:  []string{`app/main.tf:2  content = <<-EOT⏎    line one⏎    line two⏎  EOT → <<-EOT⏎    line one⏎    line 2⏎    line three⏎  EOT`},
			after: map[string]string{"app/main.tf": `resource "t" "x" {
  content = <<-EOT
    line one
    line 2
    line three
  EOT
}
`},
		},
		{
			name: "variable set in a var file",
			files: map[string]string{
				"env/main.tf":       "variable \"size\" {\n  default = 1\n}\n\nresource \"t\" \"x\" {\n  size = var.size\n}\n",
				"env/prod.tfvars":   "# prod\n\nsize = 3\n",
				"env/b.auto.tfvars": "size = 2\n",
			},
			project: project.Project{Dir: "env", VarFiles: []string{"prod.tfvars"}},
			drift:   []plan.Resource{drifted("t.x", change("size", known("3"), known("4")))},
			want:    []string{`t.x.size: set by var.size in env/prod.tfvars:3`},
		},
		{
			name: "variable from an auto var file, then its default",
			files: map[string]string{
				"main.tf":          "variable \"size\" {\n  default = 1\n}\nvariable \"name\" {\n  default = \"n\"\n}\n\nresource \"t\" \"x\" {\n  size = var.size\n  name = var.name\n}\n",
				"a.auto.tfvars":    "size = 1\n",
				"b.auto.tfvars":    "\nsize = 2\n",
				"terraform.tfvars": "size = 0\n",
			},
			drift: []plan.Resource{drifted("t.x", change("size", known("2"), known("4")), change("name", known(`"n"`), known(`"m"`)))},
			want:  []string{`t.x.size: set by var.size in b.auto.tfvars:2`, `t.x.name: set by var.name (its default in main.tf:5)`},
		},
		{
			name:  "expression",
			files: map[string]string{"main.tf": "resource \"t\" \"x\" {\n  name = \"${local.prefix}-x\"\n  size = length(var.list)\n  id   = local.id\n}\n"},
			drift: []plan.Resource{drifted("t.x",
				change("name", known(`"a-x"`), known(`"b-x"`)),
				change("size", known("1"), known("2")),
				change("id", known(`"i"`), known(`"j"`)))},
			want: []string{
				`t.x.name: set by an expression using local.prefix`,
				`t.x.size: set by an expression using var.list`,
				`t.x.id: set by local.id`,
			},
		},
		{
			name:  "count index and for_each key share one literal",
			files: map[string]string{"main.tf": "resource \"t\" \"c\" {\n  count   = 2\n  content = \"v1\"\n}\n\nresource \"t\" \"e\" {\n  for_each = toset([\"a\", \"b\"])\n  content  = \"v1\"\n  name     = each.key\n}\n"},
			drift: []plan.Resource{
				drifted("t.c[0]", change("content", known(`"v1"`), known(`"v2"`))),
				drifted("t.c[1]", change("content", known(`"v1"`), known(`"v2"`))),
				drifted(`t.e["a"]`, change("content", known(`"v1"`), known(`"v2"`)), change("name", known(`"a"`), known(`"z"`))),
				drifted(`t.e["b"]`, change("content", known(`"v1"`), known(`"v3"`))),
			},
			want: []string{
				`main.tf:3  content = "v1" → "v2"`,
				`t.e["a"].content: instances drifted apart (t.e["a"] and t.e["b"]): the literal is shared, edit it by hand`,
				`t.e["a"].name: set by each.key`,
			},
		},
		{
			name: "module resource via a local source",
			files: map[string]string{
				"envs/prod/main.tf":     "module \"app\" {\n  source = \"../../modules/app\"\n  size   = 3\n}\n",
				"modules/app/main.tf":   "variable \"size\" {}\n\nresource \"t\" \"x\" {\n  content = \"v1\"\n  size    = var.size\n}\n",
				"modules/app/extra.tf":  "# nothing\n",
				"envs/prod/versions.tf": "terraform {}\n",
			},
			project: project.Project{Dir: "envs/prod", Modules: []string{"modules/app"}},
			drift: []plan.Resource{drifted(`module.app.t.x`,
				change("content", known(`"v1"`), known(`"v2"`)),
				change("size", known("3"), known("4")))},
			want: []string{
				`modules/app/main.tf:4  content = "v1" → "v2"`,
				`module.app.t.x.size: set by var.size, given by module.app in envs/prod/main.tf:3`,
			},
		},
		{
			name:  "module outside the repository",
			files: map[string]string{"main.tf": "module \"vpc\" {\n  source  = \"terraform-aws-modules/vpc/aws\"\n  version = \"5.0.0\"\n}\n\nmodule \"up\" {\n  source = \"../../elsewhere\"\n}\n"},
			drift: []plan.Resource{
				drifted(`module.vpc.t.x[0]`, change("content", known(`"v1"`), known(`"v2"`))),
				drifted(`module.up.t.x`, change("content", known(`"v1"`), known(`"v2"`))),
			},
			want: []string{
				`module.vpc.t.x[0].content: set in module outside the repository (module.vpc from "terraform-aws-modules/vpc/aws")`,
				`module.up.t.x.content: set in module outside the repository (module.up from "../../elsewhere")`,
			},
		},
		{
			name:  "sensitive, masked, shortened and unknown values",
			files: map[string]string{"main.tf": "resource \"t\" \"x\" {\n  secret  = \"hunter2\"\n  content = \"v1\"\n  note    = \"n\"\n}\n"},
			drift: []plan.Resource{drifted("t.x",
				change("secret", sensitive, sensitive),
				change("content", known(`"v1"`), known(`"a (masked) b"`)),
				change("note", known(`"n"`), known(`"aaaa…"`)))},
			want: []string{
				`t.x.secret: sensitive: edit it by hand`,
				`t.x.content: the plan does not show the whole value: edit it by hand`,
				`t.x.note: the plan does not show the whole value: edit it by hand`,
			},
		},
		{
			name:  "code already says it, or says something else",
			files: map[string]string{"main.tf": "resource \"t\" \"x\" {\n  a = \"v2\"\n  b = \"v3\"\n}\n"},
			drift: []plan.Resource{drifted("t.x",
				change("a", known(`"v1"`), known(`"v2"`)),
				change("b", known(`"v1"`), known(`"v2"`)),
				change("c", null, known(`"v2"`)))},
			want: []string{
				`t.x.b: the code says "v3", which is not applied yet: edit it by hand`,
				`t.x.c: not set in the configuration (a default or a computed value)`,
			},
		},
		{
			name: "nested block, override file and dynamic block",
			files: map[string]string{
				"main.tf":          "resource \"t\" \"x\" {\n  timeouts {\n    create = \"1m\"\n  }\n  content = \"v1\"\n  dynamic \"rule\" {\n    for_each = [1]\n    content {\n      port = 1\n    }\n  }\n}\n",
				"main_override.tf": "resource \"t\" \"x\" {\n  content = \"v1\"\n}\n",
			},
			drift: []plan.Resource{drifted("t.x",
				change("timeouts[0].create", known(`"1m"`), known(`"2m"`)),
				change("content", known(`"v1"`), known(`"v2"`)),
				change("rule[0].port", known("1"), known("2")))},
			want: []string{
				`main.tf:3  timeouts[0].create = "1m" → "2m"`,
				`main_override.tf:2  content = "v1" → "v2"`,
				`t.x.rule[0].port: set by a dynamic "rule" block`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			for name, content := range tt.files {
				write(t, root, name, content)
			}
			p := tt.project
			if _, ok := tt.files["app/main.tf"]; ok && p.Dir == "" {
				p.Dir = "app"
			}
			got := Suggest(root, p, tt.drift)
			var lines []string
			for _, s := range got {
				lines = append(lines, s.String())
			}
			if strings.Join(lines, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("suggestions:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(tt.want, "\n"))
			}
			if tt.after == nil {
				return
			}
			diff, err := Patch(root, got)
			if err != nil {
				t.Fatal(err)
			}
			gitApply(t, root, diff)
			for name, want := range tt.after {
				data, err := os.ReadFile(filepath.Join(root, name))
				if err != nil {
					t.Fatal(err)
				}
				if string(data) != want {
					t.Errorf("%s after the patch:\n%s\nwant:\n%s\npatch:\n%s", name, data, want, diff)
				}
			}
		})
	}
}

func write(t *testing.T, root, name, content string) {
	t.Helper()
	path := filepath.Join(root, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// gitApply applies diff in dir (made a git repository) with git apply, strictly: the
// patch must apply as it is, without fuzz or whitespace fixing.
func gitApply(t *testing.T, dir, diff string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed: the patch is proven with git apply")
	}
	if _, err := os.Stat(filepath.Join(dir, ".git")); err != nil {
		run(t, dir, "git", "init", "-q")
	}
	patch := filepath.Join(t.TempDir(), "fold.patch")
	if err := os.WriteFile(patch, []byte(diff), 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, dir, "git", "apply", "--check", "--whitespace=error-all", patch)
	run(t, dir, "git", "apply", patch)
}

func run(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}
