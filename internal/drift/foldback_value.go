package drift

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/tfgate/tfgate/internal/plan"
)

// errNotLiteral: a plan value that cannot be read back as a value (shortened, masked,
// unknown, or in a form the plan model does not spell as HCL).
var errNotLiteral = errors.New("not a literal value")

// planValue reads a plan.Value's display text back into a value. The plan model spells
// values almost as HCL, with Go-quoted strings; anything it shortened ("…") or masked is
// refused rather than guessed, because writing it into the code would be wrong.
func planValue(v plan.Value) (cty.Value, error) {
	switch v.Kind {
	case plan.KindNull:
		return cty.NullVal(cty.DynamicPseudoType), nil
	case plan.KindKnown:
	default:
		return cty.NilVal, errNotLiteral
	}
	if strings.Contains(v.Text, plan.TextMasked) || strings.Contains(v.Text, "…") {
		return cty.NilVal, errNotLiteral
	}
	p := &displayParser{s: v.Text}
	val, err := p.value()
	if err != nil {
		return cty.NilVal, err
	}
	if p.i != len(p.s) {
		return cty.NilVal, errNotLiteral
	}
	return val, nil
}

// displayParser reads the plan model's value text: "s", 1.5, true, null, [a, b], {k = v}.
type displayParser struct {
	s string
	i int
}

func (p *displayParser) value() (cty.Value, error) {
	if p.i >= len(p.s) {
		return cty.NilVal, errNotLiteral
	}
	switch c := p.s[p.i]; {
	case c == '"':
		s, err := p.str()
		return cty.StringVal(s), err
	case c == '[':
		p.i++
		var elems []cty.Value
		for !p.eat("]") {
			if len(elems) > 0 && !p.eat(", ") {
				return cty.NilVal, errNotLiteral
			}
			e, err := p.value()
			if err != nil {
				return cty.NilVal, err
			}
			elems = append(elems, e)
		}
		if len(elems) == 0 {
			return cty.EmptyTupleVal, nil
		}
		return cty.TupleVal(elems), nil
	case c == '{':
		p.i++
		attrs := map[string]cty.Value{}
		for !p.eat("}") {
			if len(attrs) > 0 && !p.eat(", ") {
				return cty.NilVal, errNotLiteral
			}
			k, err := p.key()
			if err != nil {
				return cty.NilVal, err
			}
			if !p.eat(" = ") {
				return cty.NilVal, errNotLiteral
			}
			if attrs[k], err = p.value(); err != nil {
				return cty.NilVal, err
			}
		}
		if len(attrs) == 0 {
			return cty.EmptyObjectVal, nil
		}
		return cty.ObjectVal(attrs), nil
	case p.eat("true"):
		return cty.True, nil
	case p.eat("false"):
		return cty.False, nil
	case p.eat("null"):
		return cty.NullVal(cty.DynamicPseudoType), nil
	default:
		j := p.i
		for j < len(p.s) && strings.IndexByte("+-.0123456789eE", p.s[j]) >= 0 {
			j++
		}
		n, err := cty.ParseNumberVal(p.s[p.i:j])
		if j == p.i || err != nil {
			return cty.NilVal, errNotLiteral
		}
		p.i = j
		return n, nil
	}
}

func (p *displayParser) eat(tok string) bool {
	if strings.HasPrefix(p.s[p.i:], tok) {
		p.i += len(tok)
		return true
	}
	return false
}

// str reads one Go-quoted string.
func (p *displayParser) str() (string, error) {
	j := p.i + 1
	for j < len(p.s) && p.s[j] != '"' {
		if p.s[j] == '\\' {
			j++
		}
		j++
	}
	if j >= len(p.s) {
		return "", errNotLiteral
	}
	s, err := strconv.Unquote(p.s[p.i : j+1])
	if err != nil {
		return "", errNotLiteral
	}
	p.i = j + 1
	return s, nil
}

func (p *displayParser) key() (string, error) {
	if p.i < len(p.s) && p.s[p.i] == '"' {
		return p.str()
	}
	j := p.i
	for j < len(p.s) && !strings.HasPrefix(p.s[j:], " = ") {
		j++
	}
	if j == p.i || j == len(p.s) {
		return "", errNotLiteral
	}
	k := p.s[p.i:j]
	p.i = j
	return k, nil
}

// isLiteral reports whether expr is a constant: strings without interpolation (quoted or
// heredoc), numbers, bools, null, and lists and maps of them with literal keys.
func isLiteral(expr hclsyntax.Expression) bool {
	switch e := expr.(type) {
	case *hclsyntax.LiteralValueExpr:
		return true
	case *hclsyntax.TemplateExpr:
		for _, part := range e.Parts {
			if _, ok := part.(*hclsyntax.LiteralValueExpr); !ok {
				return false
			}
		}
		return true
	case *hclsyntax.UnaryOpExpr:
		_, ok := e.Val.(*hclsyntax.LiteralValueExpr)
		return ok && e.Op == hclsyntax.OpNegate
	case *hclsyntax.ParenthesesExpr:
		return isLiteral(e.Expression)
	case *hclsyntax.TupleConsExpr:
		for _, el := range e.Exprs {
			if !isLiteral(el) {
				return false
			}
		}
		return true
	case *hclsyntax.ObjectConsExpr:
		for _, item := range e.Items {
			if _, ok := objectKey(item); !ok || !isLiteral(item.ValueExpr) {
				return false
			}
		}
		return true
	}
	return false
}

// objectKey is the key of a map item when it is literal: a bare name or a constant string.
func objectKey(item hclsyntax.ObjectConsItem) (string, bool) {
	k, ok := item.KeyExpr.(*hclsyntax.ObjectConsKeyExpr)
	if !ok {
		return "", false
	}
	if !k.ForceNonLiteral {
		if name := hcl.ExprAsKeyword(k.Wrapped); name != "" {
			return name, true
		}
	}
	if !isLiteral(k.Wrapped) {
		return "", false
	}
	v, diags := k.Wrapped.Value(nil)
	if diags.HasErrors() || v.IsNull() || !v.Type().Equals(cty.String) {
		return "", false
	}
	return v.AsString(), true
}

// literalValue evaluates a literal expression.
func literalValue(expr hclsyntax.Expression) (cty.Value, bool) {
	if !isLiteral(expr) {
		return cty.NilVal, false
	}
	v, diags := expr.Value(nil)
	return v, !diags.HasErrors()
}

// sameValue compares a value written in the code with one read from the plan the way
// terraform would after converting to the attribute's type: "3" and 3 are the same.
func sameValue(a, b cty.Value) bool {
	if a.IsNull() || b.IsNull() {
		return a.IsNull() && b.IsNull()
	}
	at, bt := a.Type(), b.Type()
	switch {
	case at.IsPrimitiveType() && bt.IsPrimitiveType():
		as, err1 := convert.Convert(a, cty.String)
		bs, err2 := convert.Convert(b, cty.String)
		return err1 == nil && err2 == nil && as.AsString() == bs.AsString()
	case (at.IsTupleType() || at.IsListType() || at.IsSetType()) && (bt.IsTupleType() || bt.IsListType() || bt.IsSetType()):
		ae, be := a.AsValueSlice(), b.AsValueSlice()
		if len(ae) != len(be) {
			return false
		}
		for i := range ae {
			if !sameValue(ae[i], be[i]) {
				return false
			}
		}
		return true
	case (at.IsObjectType() || at.IsMapType()) && (bt.IsObjectType() || bt.IsMapType()):
		am, bm := a.AsValueMap(), b.AsValueMap()
		if len(am) != len(bm) {
			return false
		}
		for k, av := range am {
			bv, ok := bm[k]
			if !ok || !sameValue(av, bv) {
				return false
			}
		}
		return true
	}
	return false
}

// hclText writes v as HCL source on one line; lists and maps in the plain style a human
// would write (`["a", "b"]`, `{ env = "prod" }`).
func hclText(v cty.Value) string {
	switch t := v.Type(); {
	case v.IsNull():
		return "null"
	case t.IsPrimitiveType():
		return string(hclwrite.TokensForValue(v).Bytes())
	case t.IsTupleType() || t.IsListType() || t.IsSetType():
		parts := make([]string, 0, v.LengthInt())
		for _, e := range v.AsValueSlice() {
			parts = append(parts, hclText(e))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case t.IsObjectType() || t.IsMapType():
		m := v.AsValueMap()
		if len(m) == 0 {
			return "{}"
		}
		parts := make([]string, 0, len(m))
		for _, k := range sortedKeys(m) {
			parts = append(parts, keyText(k)+" = "+hclText(m[k]))
		}
		return "{ " + strings.Join(parts, ", ") + " }"
	}
	return string(hclwrite.TokensForValue(v).Bytes())
}

// keyText writes a map key: bare when HCL reads it back as the same name.
func keyText(k string) string {
	if hclsyntax.ValidIdentifier(k) && k != "null" && k != "true" && k != "false" {
		return k
	}
	return string(hclwrite.TokensForValue(cty.StringVal(k)).Bytes())
}

// newText is the HCL source that replaces old (the source of the expression being
// edited) with v. A heredoc stays a heredoc when v can be one. The text is parsed back
// and must evaluate to v, so nothing that HCL would read differently is ever suggested.
func newText(old string, v cty.Value) (string, error) {
	text := hclText(v)
	if h, ok := heredoc(old, v); ok {
		text = h
	}
	// A heredoc's closing marker must end its line.
	expr, diags := hclsyntax.ParseExpression([]byte(text+"\n"), "new", hcl.InitialPos)
	if diags.HasErrors() {
		return "", fmt.Errorf("cannot be written as HCL: %s", diags.Error())
	}
	back, ok := literalValue(expr)
	if !ok || !sameValue(back, v) {
		return "", errNotLiteral
	}
	return text, nil
}

// heredoc writes a string in the heredoc style of old, when old is one and the string
// ends with a newline and holds no template sequences.
func heredoc(old string, v cty.Value) (string, bool) {
	if !strings.HasPrefix(old, "<<") || v.IsNull() || !v.Type().Equals(cty.String) {
		return "", false
	}
	s := v.AsString()
	if !strings.HasSuffix(s, "\n") || strings.Contains(s, "${") || strings.Contains(s, "%{") {
		return "", false
	}
	nl := strings.IndexByte(old, '\n')
	if nl < 0 {
		return "", false
	}
	opener := strings.TrimRight(old[:nl], "\r")
	marker := strings.TrimPrefix(strings.TrimPrefix(opener, "<<"), "-")
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	indent, closing := "", ""
	if strings.HasPrefix(opener, "<<-") {
		// Indent the lines as the old ones were: terraform strips the common indent.
		oldLines := strings.Split(old[nl+1:], "\n")
		last := oldLines[len(oldLines)-1]
		closing = last[:len(last)-len(strings.TrimLeft(last, " \t"))]
		indent = closing
		for _, l := range oldLines[:len(oldLines)-1] {
			if strings.TrimSpace(l) != "" {
				indent = l[:len(l)-len(strings.TrimLeft(l, " \t"))]
				break
			}
		}
		for i, l := range lines {
			if l != "" {
				lines[i] = indent + l
			}
		}
	}
	return opener + "\n" + strings.Join(lines, "\n") + "\n" + closing + marker, true
}
