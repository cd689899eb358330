package project

import (
	"context"
	"os"
	"path/filepath"
	"sort"

	"github.com/hashicorp/hcl/v2"
	"github.com/tfgate/tfgate/internal/tffiles"
	"github.com/zclconf/go-cty/cty"
)

var (
	variableSchema  = &hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "variable", LabelNames: []string{"name"}}}}
	sensitiveSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "sensitive"}}}
)

// SensitiveValues returns the string values that the project's var files (its configured
// ones and those terraform loads by itself: terraform.tfvars, *.auto.tfvars) and TF_VAR_
// environment entries give to variables the project declares `sensitive = true`.
//
// Terraform keeps such values out of plans, but not always out of its own error messages
// (a failed validation prints `var.pw is "…"`): tfgate masks them in everything it shows.
// Files that do not parse contribute nothing; terraform reports them.
func SensitiveValues(ctx context.Context, root string, p Project, env map[string]string) []string {
	dir := filepath.Join(root, filepath.FromSlash(p.Dir))
	names := sensitiveVariables(dir)
	if len(names) == 0 {
		return nil
	}
	var values []string
	for name := range names {
		if v := env["TF_VAR_"+name]; v != "" {
			values = append(values, v)
		}
	}
	varFiles := append([]string{"terraform.tfvars", "terraform.tfvars.json"}, globNames(dir, "*.auto.tfvars", "*.auto.tfvars.json")...)
	varFiles = append(varFiles, p.VarFiles...)
	for _, f := range varFiles {
		if ctx.Err() != nil {
			break
		}
		path := f
		if !filepath.IsAbs(path) {
			path = filepath.Join(dir, filepath.FromSlash(f))
		}
		values = append(values, varFileValues(path, names)...)
	}
	sort.Strings(values)
	return values
}

// sensitiveVariables are the names of the variables declared sensitive in dir's files.
func sensitiveVariables(dir string) map[string]bool {
	names := map[string]bool{}
	for _, file := range globNames(dir, tffiles.Globs...) {
		f := parseFile(filepath.Join(dir, file))
		if f == nil {
			continue
		}
		content, _, _ := f.Body.PartialContent(variableSchema)
		for _, b := range content.Blocks {
			attrs, _, _ := b.Body.PartialContent(sensitiveSchema)
			if a, ok := attrs.Attributes["sensitive"]; ok {
				if v, diags := a.Expr.Value(nil); !diags.HasErrors() && v.Type() == cty.Bool && v.IsKnown() && !v.IsNull() && v.True() {
					names[b.Labels[0]] = true
				}
			}
		}
	}
	return names
}

// varFileValues are the strings a var file assigns to the named variables, nested ones too.
func varFileValues(path string, names map[string]bool) []string {
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
		out = appendStrings(out, v)
	}
	return out
}

func appendStrings(out []string, v cty.Value) []string {
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
			_, e := it.Element()
			out = appendStrings(out, e)
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
