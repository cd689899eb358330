package secret

import (
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// EscapedForms are v and the spellings it takes once escaped by the encoders that tfgate,
// terraform and policies use, without their quotes: Go/HCL quoting (also ASCII-only, with
// \u00fc and \U0001f511), JSON (with and without HTML escapes), YAML double-quoted scalars
// (\xFC, \U0001F511), URL query and path encoding, and \xNN escapes of every non-ASCII byte.
// Each is also given once more JSON-escaped, as it appears inside JSON output.
func EscapedForms(v string) []string {
	if plainForm(v) {
		return []string{v}
	}
	return escapedForms(v)
}

// escapedForms is EscapedForms without its shortcut for plain values.
func escapedForms(v string) []string {
	forms := []string{v}
	add := func(f string) {
		if f != "" && !slices.Contains(forms, f) {
			forms = append(forms, f)
		}
	}
	add(unquote(strconv.Quote(v)))
	add(unquote(strconv.QuoteToASCII(v)))
	add(jsonString(v, true))
	add(jsonString(v, false))
	add(yamlDoubleQuoted(v))
	add(url.QueryEscape(v))
	add(url.PathEscape(v))
	add(byteEscapes(v, "\\x%02x"))
	add(byteEscapes(v, "\\x%02X"))
	for _, f := range slices.Clone(forms) {
		add(jsonString(f, true))
		add(jsonString(f, false))
	}
	return forms
}

// plainForm reports whether every encoder leaves v as it is: ASCII letters, digits and
// "-._~" (no quoting, JSON, HTML, YAML, URL or byte escape touches them), the spelling of
// most secrets.
func plainForm(v string) bool {
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '.', c == '_', c == '~':
		default:
			return false
		}
	}
	return true
}

func unquote(q string) string { return q[1 : len(q)-1] }

// jsonString is s JSON-encoded without its quotes.
func jsonString(s string, escapeHTML bool) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(escapeHTML)
	if err := enc.Encode(s); err != nil {
		return ""
	}
	return unquote(strings.TrimSuffix(b.String(), "\n"))
}

// yamlDoubleQuoted is s as a YAML emitter (go-yaml, which OPA's yaml.marshal uses) writes it
// in a double-quoted scalar: characters it does not consider printable are escaped.
func yamlDoubleQuoted(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case 0:
			b.WriteString(`\0`)
		case '\a':
			b.WriteString(`\a`)
		case '\b':
			b.WriteString(`\b`)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\v':
			b.WriteString(`\v`)
		case '\f':
			b.WriteString(`\f`)
		case '\r':
			b.WriteString(`\r`)
		case 0x1b:
			b.WriteString(`\e`)
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case 0x85:
			b.WriteString(`\N`)
		case 0xa0:
			b.WriteString(`\_`)
		case 0x2028:
			b.WriteString(`\L`)
		case 0x2029:
			b.WriteString(`\P`)
		default:
			switch {
			case yamlPrintable(r):
				b.WriteRune(r)
			case r <= 0xff:
				fmt.Fprintf(&b, `\x%02X`, r)
			case r <= 0xffff:
				fmt.Fprintf(&b, `\u%04X`, r)
			default:
				fmt.Fprintf(&b, `\U%08X`, r)
			}
		}
	}
	return b.String()
}

// yamlPrintable follows go-yaml's is_printable: characters beyond the Basic Multilingual
// Plane (emoji) are escaped.
func yamlPrintable(r rune) bool {
	return r == '\n' || (r >= 0x20 && r <= 0x7e) || (r >= 0xa0 && r <= 0xd7ff) ||
		(r >= 0xe000 && r <= 0xfffd && r != 0xfeff)
}

// byteEscapes spells every byte outside printable ASCII with format ("\x%02x"), as error
// messages that print raw bytes do.
func byteEscapes(s string, format string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x20 && c < 0x7f {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, format, c)
		}
	}
	return b.String()
}

var jsonNumber = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?$`)

// NumberForms are the other spellings of v when it is a number: how it prints once parsed
// as a float64 and formatted again (strconv 'g', 'e' and 'f', Go's %v, as an integer),
// which is how OPA and most encoders reformat numbers (3.14159265358979323846 becomes
// 3.141592653589793, 0.000001234567 becomes 1.234567e-06). nil when v is no number.
func NumberForms(v string) []string {
	if v == "" || v[0] != '-' && (v[0] < '0' || v[0] > '9') || !jsonNumber.MatchString(v) { // (a number starts so)
		return nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsInf(f, 0) {
		return nil
	}
	var forms []string
	add := func(s string) {
		if s != v && !slices.Contains(forms, s) {
			forms = append(forms, s)
		}
	}
	add(strconv.FormatFloat(f, 'g', -1, 64))
	add(strconv.FormatFloat(f, 'e', -1, 64))
	add(strconv.FormatFloat(f, 'E', -1, 64))
	add(strconv.FormatFloat(f, 'f', -1, 64))
	add(fmt.Sprint(f))
	if f == math.Trunc(f) && math.Abs(f) < 1<<63 {
		add(strconv.FormatInt(int64(f), 10))
	}
	return forms
}
