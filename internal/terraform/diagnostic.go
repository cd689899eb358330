package terraform

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mitchellh/go-wordwrap"

	"github.com/tfgate/tfgate/internal/tffiles"
)

// Diagnostic is an error or warning as terraform's machine-readable UI (-json) reports it:
// the "diagnostic" object of a message of type "diagnostic" (terraform 1.5's
// internal/command/views/json/diagnostic.go; OpenTofu's is the same).
type Diagnostic struct {
	Severity string             `json:"severity"` // "error", "warning"
	Summary  string             `json:"summary"`
	Detail   string             `json:"detail"`
	Address  string             `json:"address,omitempty"`
	Range    *DiagnosticRange   `json:"range,omitempty"`
	Snippet  *DiagnosticSnippet `json:"snippet,omitempty"`
}

// DiagnosticRange is the source a diagnostic is about. Start is inclusive, End exclusive.
type DiagnosticRange struct {
	Filename string `json:"filename"`
	Start    Pos    `json:"start"`
	End      Pos    `json:"end"`
}

// Pos is a position in a source file: line and column count from one (the column in
// characters), Byte from zero.
type Pos struct {
	Line   int `json:"line"`
	Column int `json:"column"`
	Byte   int `json:"byte"`
}

// DiagnosticSnippet is the source code terraform quotes with a diagnostic. Code holds the
// file's text verbatim: from a var file, that is a secret as often as not.
type DiagnosticSnippet struct {
	Context              *string                 `json:"context"`
	Code                 string                  `json:"code"`
	StartLine            int                     `json:"start_line"`
	HighlightStartOffset int                     `json:"highlight_start_offset"`
	HighlightEndOffset   int                     `json:"highlight_end_offset"`
	Values               []DiagnosticValue       `json:"values"`
	FunctionCall         *DiagnosticFunctionCall `json:"function_call,omitempty"`
}

// DiagnosticValue is what an expression's part was when it failed ("var.n", "is 3").
type DiagnosticValue struct {
	Traversal string `json:"traversal"`
	Statement string `json:"statement"`
}

// DiagnosticFunctionCall names the function whose call failed, and its signature.
type DiagnosticFunctionCall struct {
	CalledAs  string              `json:"called_as"`
	Signature *DiagnosticFunction `json:"signature,omitempty"`
}

// DiagnosticFunction is a function's signature: the names of its parameters.
type DiagnosticFunction struct {
	Params        []DiagnosticParam `json:"params"`
	VariadicParam *DiagnosticParam  `json:"variadic_param,omitempty"`
}

// DiagnosticParam is one parameter of a function.
type DiagnosticParam struct {
	Name string `json:"name"`
}

// diagnosticWidth is the width terraform wraps a diagnostic's detail at when its output is
// not a terminal (terminal.defaultColumns): the text tfgate has always shown.
const diagnosticWidth = 78

// hiddenVarFileLine replaces each line terraform quotes from a var file.
const hiddenVarFileLine = "(line from a var file hidden: it may hold secrets)"

// Text renders d as terraform renders it with -no-color (format.DiagnosticPlainFromJSON),
// so that errors read as they always did, with two differences: the source line says the
// column too (`on main.tf line 15, column 3, in resource …:`), and lines quoted from a file
// that is not configuration (a var file, whatever its name) are hidden — var files hold
// secrets, and a syntax error in one would print the secret into a terminal, a CI log or a
// pull request.
func (d *Diagnostic) Text() string {
	var b strings.Builder
	switch d.Severity {
	case "error":
		b.WriteString("\nError: ")
	case "warning":
		b.WriteString("\nWarning: ")
	default:
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "%s\n\n", d.Summary)
	d.writeSource(&b)
	if d.Detail != "" {
		for _, line := range strings.Split(d.Detail, "\n") {
			if !strings.HasPrefix(line, " ") {
				line = wordwrap.WrapString(line, diagnosticWidth-1)
			}
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// writeSource is terraform's appendSourceSnippets without colour.
func (d *Diagnostic) writeSource(b *strings.Builder) {
	if d.Address != "" {
		fmt.Fprintf(b, "  with %s,\n", d.Address)
	}
	rng := d.Range
	if rng == nil {
		return
	}
	at := fmt.Sprintf("  on %s line %d", rng.Filename, rng.Start.Line)
	if rng.Start.Column > 0 {
		at += fmt.Sprintf(", column %d", rng.Start.Column)
	}
	s := d.Snippet
	if s == nil {
		fmt.Fprintf(b, "%s:\n  (source code not available)\n\n", at)
		return
	}
	if s.Context != nil {
		at += ", in " + *s.Context
	}
	b.WriteString(at + ":\n")
	secret := !tffiles.IsConfig(filepath.Base(rng.Filename))
	for i, line := range strings.Split(s.Code, "\n") {
		if secret {
			line = hiddenVarFileLine
		}
		fmt.Fprintf(b, "%4d: %s\n", s.StartLine+i, line)
	}
	call := s.FunctionCall
	if len(s.Values) > 0 || (call != nil && call.Signature != nil) {
		values := append([]DiagnosticValue(nil), s.Values...)
		sort.Slice(values, func(i, j int) bool { return values[i].Traversal < values[j].Traversal })
		b.WriteString("    ├────────────────\n")
		if call != nil && call.Signature != nil {
			var params []string
			for _, p := range call.Signature.Params {
				params = append(params, p.Name)
			}
			if v := call.Signature.VariadicParam; v != nil {
				params = append(params, v.Name+"...")
			}
			fmt.Fprintf(b, "    │ while calling %s(%s)\n", call.CalledAs, strings.Join(params, ", "))
		}
		for _, v := range values {
			if secret {
				// The statement quotes the value: the var file's secret, perhaps.
				v.Statement = "(hidden: from a var file)"
			}
			fmt.Fprintf(b, "    │ %s %s\n", v.Traversal, v.Statement)
		}
	}
	b.WriteByte('\n')
}

// sortDiagnostics orders diagnostics as terraform's text UI prints them (tfdiags'
// Diagnostics.Sort): warnings first, then those without a source, then by file (fewer path
// segments first), start and end. The JSON UI prints them unsorted.
func sortDiagnostics(ds []*Diagnostic) {
	sort.SliceStable(ds, func(i, j int) bool {
		a, b := ds[i], ds[j]
		switch {
		case (a.Severity == "warning") != (b.Severity == "warning"):
			return a.Severity == "warning"
		case (a.Range == nil) != (b.Range == nil):
			return a.Range == nil
		case a.Range == nil || *a.Range == *b.Range:
			return false
		case a.Range.Filename != b.Range.Filename:
			sa, sb := strings.Count(a.Range.Filename, string(filepath.Separator)), strings.Count(b.Range.Filename, string(filepath.Separator))
			if sa != sb {
				return sa < sb
			}
			return a.Range.Filename < b.Range.Filename
		case a.Range.Start.Byte != b.Range.Start.Byte:
			return a.Range.Start.Byte < b.Range.Start.Byte
		}
		return a.Range.End.Byte < b.Range.End.Byte
	})
}
