package project

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/tfgate/tfgate/internal/secret"
	"github.com/tfgate/tfgate/internal/tffiles"
)

var (
	declSchema = &hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{
		{Type: "variable", LabelNames: []string{"name"}},
		{Type: "module", LabelNames: []string{"name"}},
	}}
	variableBodySchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "sensitive"}, {Name: "default"}, {Name: "type"}}}
)

// Sensitive is what tfgate knows of a project's sensitive variables, in its root module and
// the local modules it uses.
//
// Terraform keeps such values out of plans, but not always out of its own error messages
// (a failed validation prints `var.pw is "…"`): tfgate masks them in everything it shows.
type Sensitive struct {
	// Names are the variables declared sensitive in the project or one of its local
	// modules, and the caller's variables passed to one.
	Names []string
	// Values are every value known for them: given by the project's var files (its
	// configured ones and those terraform loads by itself: terraform.tfvars,
	// *.auto.tfvars) and TF_VAR_ environment entries, declared as defaults, or passed as
	// literals by a module block. Sorted, each once.
	Values []string
}

// FindSensitive reads the sensitive variables of project p. A variable is sensitive when
// its `sensitive` argument is true or anything terraform converts to true ("true"); the
// caller's variable passed to a module's sensitive variable (`pw = var.db_pw`) counts too.
// Files that do not parse contribute nothing; terraform reports them.
func FindSensitive(ctx context.Context, root string, p Project, env map[string]string) Sensitive {
	mods := map[string]*moduleDecls{}
	for _, dir := range append([]string{p.Dir}, p.Modules...) {
		if ctx.Err() != nil {
			return Sensitive{}
		}
		mods[dir] = readDecls(filepath.Join(root, filepath.FromSlash(dir)))
	}
	// Sensitivity flows from a module's variable to what its callers pass to it.
	for changed := true; changed; {
		changed = false
		for dir, m := range mods {
			for _, call := range m.calls {
				callee := mods[path.Join(dir, call.source)]
				if callee == nil {
					continue
				}
				for arg, expr := range call.args {
					if !callee.sensitive[arg] {
						continue
					}
					for _, tr := range expr.Variables() {
						if tr.RootName() == "var" && len(tr) > 1 {
							if a, ok := tr[1].(hcl.TraverseAttr); ok && m.vars[a.Name] && !m.sensitive[a.Name] {
								m.sensitive[a.Name], changed = true, true
							}
						}
					}
				}
			}
		}
	}
	var values []string
	names := map[string]bool{}
	for dir, m := range mods {
		for name := range m.sensitive {
			names[name] = true
			if def, ok := m.defaults[name]; ok {
				values = appendStrings(values, def, m.maps[name])
			}
		}
		for _, call := range m.calls {
			callee := mods[path.Join(dir, call.source)]
			if callee == nil {
				continue
			}
			for arg, expr := range call.args {
				if callee.sensitive[arg] {
					if v, diags := expr.Value(nil); !diags.HasErrors() {
						values = appendStrings(values, v, callee.maps[arg])
					}
				}
			}
		}
	}
	rootNames := mods[p.Dir].sensitive
	for name := range rootNames {
		if v := env["TF_VAR_"+name]; v != "" {
			values = append(values, v)
		}
	}
	dir := filepath.Join(root, filepath.FromSlash(p.Dir))
	varFiles := append([]string{"terraform.tfvars", "terraform.tfvars.json"}, globNames(dir, "*.auto.tfvars", "*.auto.tfvars.json")...)
	varFiles = append(varFiles, p.VarFiles...)
	for _, f := range varFiles {
		if ctx.Err() != nil || len(rootNames) == 0 {
			break
		}
		path := f
		if !filepath.IsAbs(path) {
			path = filepath.Join(dir, filepath.FromSlash(f))
		}
		values = append(values, varFileValues(path, rootNames, mods[p.Dir].maps)...)
	}
	s := Sensitive{Names: sortedKeys(names), Values: values}
	sort.Strings(s.Values)
	s.Values = compact(s.Values)
	return s
}

// SensitiveValues are the values of FindSensitive.
func SensitiveValues(ctx context.Context, root string, p Project, env map[string]string) []string {
	return FindSensitive(ctx, root, p, env).Values
}

// Redact replaces the values (not already masked) that terraform quotes for sensitive variables in its error text
// (`var.pin is "abc"`) by their length: `var.pin is (sensitive, 3 characters)`. It covers
// values too short for a masker to replace (under secret.MinKnown characters) and values
// tfgate could not know (from -var or an interactive prompt).
func (s Sensitive) Redact(text string) string {
	if len(s.Names) == 0 || !strings.Contains(text, "var.") {
		return text
	}
	quoted := make([]string, len(s.Names))
	for i, n := range s.Names {
		quoted[i] = regexp.QuoteMeta(n)
	}
	re := regexp.MustCompile(`\bvar\.(` + strings.Join(quoted, "|") + `) is ("(?:[^"\\\n]|\\.)*"|[-+0-9.eE]+|true|false)`)
	return re.ReplaceAllStringFunc(text, func(m string) string {
		sub := re.FindStringSubmatch(m)
		if sub[2] == `"`+secret.Replacement+`"` {
			return m // already masked
		}
		desc := "(sensitive)"
		if v := sub[2]; strings.HasPrefix(v, `"`) {
			n := len(v) - 2
			if u, err := strconv.Unquote(v); err == nil {
				n = utf8.RuneCountInString(u)
			}
			desc = "(sensitive, " + strconv.Itoa(n) + " characters)"
			if n == 1 {
				desc = "(sensitive, 1 character)"
			}
		}
		return "var." + sub[1] + " is " + desc
	})
}

// moduleDecls is what one module directory declares about variables.
type moduleDecls struct {
	vars      map[string]bool
	sensitive map[string]bool
	defaults  map[string]cty.Value
	maps      map[string]bool // declared map(…): its keys are data, not attribute names
	calls     []localCall
}

// localCall is a module block with a literal local source, and its arguments.
type localCall struct {
	source string
	args   map[string]hcl.Expression
}

// readDecls reads the variable and module blocks of dir's files.
func readDecls(dir string) *moduleDecls {
	m := &moduleDecls{vars: map[string]bool{}, sensitive: map[string]bool{}, defaults: map[string]cty.Value{}, maps: map[string]bool{}}
	for _, file := range globNames(dir, tffiles.Globs...) {
		f := parseFile(filepath.Join(dir, file))
		if f == nil {
			continue
		}
		content, _, _ := f.Body.PartialContent(declSchema)
		for _, b := range content.Blocks {
			switch b.Type {
			case "variable":
				name := b.Labels[0]
				m.vars[name] = true
				attrs, _, _ := b.Body.PartialContent(variableBodySchema)
				if a, ok := attrs.Attributes["sensitive"]; ok && isTrueExpr(a.Expr) {
					m.sensitive[name] = true
				}
				if a, ok := attrs.Attributes["type"]; ok {
					if call, diags := hcl.ExprCall(a.Expr); !diags.HasErrors() && call.Name == "map" {
						m.maps[name] = true
					}
				}
				if a, ok := attrs.Attributes["default"]; ok {
					if v, diags := a.Expr.Value(nil); !diags.HasErrors() {
						m.defaults[name] = v
					}
				}
			case "module":
				attrs, _ := b.Body.JustAttributes()
				src, ok := attrs["source"]
				if !ok {
					continue
				}
				v, diags := src.Expr.Value(nil)
				if diags.HasErrors() || v.IsNull() || !v.IsKnown() || !v.Type().Equals(cty.String) {
					continue
				}
				source := v.AsString()
				if !strings.HasPrefix(source, "./") && !strings.HasPrefix(source, "../") {
					continue
				}
				call := localCall{source: source, args: map[string]hcl.Expression{}}
				for name, a := range attrs {
					call.args[name] = a.Expr
				}
				m.calls = append(m.calls, call)
			}
		}
	}
	return m
}

// isTrueExpr reports whether expr is a constant terraform reads as true: true, "true".
func isTrueExpr(expr hcl.Expression) bool {
	v, diags := expr.Value(nil)
	if diags.HasErrors() {
		return false
	}
	b, err := convert.Convert(v, cty.Bool)
	return err == nil && b.IsKnown() && !b.IsNull() && b.True()
}

// varFileValues are the strings a var file assigns to the named variables, nested ones too.
func varFileValues(path string, names, maps map[string]bool) []string {
	f := parseFile(path)
	if f == nil {
		return nil
	}
	attrs, _ := f.Body.JustAttributes()
	var out []string
	for name, a := range attrs {
		if !names[name] {
			continue
		}
		v, diags := a.Expr.Value(nil)
		if diags.HasErrors() {
			continue
		}
		out = appendStrings(out, v, maps[name])
	}
	return out
}

// appendStrings appends the strings and numbers in v; with keys, the keys of v's maps too
// (inside a sensitive map, the keys are secret as well).
func appendStrings(out []string, v cty.Value, keys bool) []string {
	if v.IsNull() || !v.IsKnown() {
		return out
	}
	switch {
	case v.Type() == cty.String:
		if s := v.AsString(); s != "" {
			out = append(out, s)
		}
	case v.Type() == cty.Number:
		out = append(out, v.AsBigFloat().Text('f', -1))
	case v.CanIterateElements():
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			if keys && (v.Type().IsMapType() || v.Type().IsObjectType()) {
				out = appendStrings(out, k, false)
			}
			out = appendStrings(out, e, keys)
		}
	}
	return out
}

func compact(sorted []string) []string {
	out := sorted[:0]
	for i, s := range sorted {
		if i == 0 || s != sorted[i-1] {
			out = append(out, s)
		}
	}
	return out
}

// parseFile reads and parses path; nil when it cannot be read or does not parse.
func parseFile(path string) *hcl.File {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	f, diags := parseHCL(src, path)
	if diags.HasErrors() {
		return nil
	}
	return f
}

func globNames(dir string, patterns ...string) []string {
	var out []string
	for _, pattern := range patterns {
		matches, _ := filepath.Glob(filepath.Join(dir, pattern))
		for _, m := range matches {
			out = append(out, filepath.Base(m))
		}
	}
	return out
}
