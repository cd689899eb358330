package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/tfgate/tfgate/internal/plan"
)

// longPolicy is a JSON policy document (as jsonencode writes it) with n statements; the
// first statement's action and the last one's source address are the given ones, far apart.
func longPolicy(n int, action, cidr string) string {
	stmts := []string{fmt.Sprintf(`{"Sid":"S0","Effect":"Allow","Action":"%s","Resource":"arn:aws:s3:::bucket-0/*"}`, action)}
	for i := 1; i < n; i++ {
		stmts = append(stmts, fmt.Sprintf(`{"Sid":"S%d","Effect":"Allow","Action":"s3:ListBucket","Resource":"arn:aws:s3:::bucket-%d/*"}`, i, i))
	}
	stmts = append(stmts, `{"Sid":"Net","Effect":"Deny","Action":"*","Condition":{"IpAddress":{"aws:SourceIp":"`+cidr+`"}}}`)
	return `{"Version":"2012-10-17","Statement":[` + strings.Join(stmts, ",") + `]}`
}

// longValueChanges is a plan whose one update changes a policy document in two places far
// apart; n statements make it short (a few hundred characters) or long (past the model's cap).
func longValueChanges(t *testing.T, n int) *plan.Changes {
	t.Helper()
	before, _ := json.Marshal(map[string]any{"policy": longPolicy(n, "s3:GetObject", "10.0.0.0/8")})
	after, _ := json.Marshal(map[string]any{"policy": longPolicy(n, "s3:*", "0.0.0.0/0")})
	p, err := plan.Decode([]byte(`{"format_version":"1.2","terraform_version":"1.9.8","resource_changes":[
	  {"address":"aws_iam_policy.p","mode":"managed","type":"aws_iam_policy","name":"p","change":{"actions":["update"],
	   "before":` + string(before) + `,"after":` + string(after) + `,"after_unknown":{},"before_sensitive":{},"after_sensitive":{}}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	return plan.Summarise(p, plan.Options{})
}

// Both differences of a long value are visible in every output: text on terminals of any
// width and in logs (width 0), and JSON. In logs no line is cut at the width: values wrap.
func TestLongValueShowsEveryDifference(t *testing.T) {
	for _, n := range []int{3, 12} {
		c := longValueChanges(t, n)
		for _, opts := range []TextOptions{{}, {Width: 50}, {Width: 80, Color: true}, {Width: 200}} {
			t.Run(fmt.Sprintf("%d statements, width %d", n, opts.Width), func(t *testing.T) {
				var buf bytes.Buffer
				if err := PlanText(&buf, c, opts); err != nil {
					t.Fatal(err)
				}
				out := stripANSI(buf.String())
				// Wrapped lines are joined back: continuation lines are indented.
				joined := joinWrapped(out)
				for _, want := range []string{`s3:GetObject`, `\"s3:*\"`, `10.0.0.0/8`, `\"0.0.0.0/0\"`} {
					if !strings.Contains(joined, want) {
						t.Errorf("%q not visible:\n%s", want, out)
					}
				}
				width := opts.Width
				if width == 0 {
					width = 80
				}
				for _, l := range strings.Split(out, "\n") {
					if runes(l) > width {
						t.Errorf("line longer than %d: %q", width, l)
					}
				}
			})
		}
		var buf bytes.Buffer
		if err := PlanJSON(&buf, c); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{`s3:GetObject`, `s3:*`, `10.0.0.0/8`, `\\\"0.0.0.0/0`} {
			if !strings.Contains(buf.String(), want) {
				t.Errorf("%d statements: JSON lacks %q:\n%s", n, want, buf.String())
			}
		}
	}
}

// joinWrapped glues each value's wrapped lines back together (a continuation line is
// indented two more columns than the "- " or "+ " line it continues).
func joinWrapped(out string) string {
	var b strings.Builder
	base := -1 // indent of the line being continued
	for _, l := range strings.Split(out, "\n") {
		trimmed := strings.TrimLeft(l, " ")
		indent := len(l) - len(trimmed)
		if base >= 0 && indent == base+2 && !strings.HasPrefix(trimmed, "- ") && !strings.HasPrefix(trimmed, "+ ") {
			b.WriteString(trimmed)
			continue
		}
		base = indent
		b.WriteString("\n" + l)
	}
	return b.String()
}

// What a long change looks like, on a terminal and in a log.
func TestLongValueText(t *testing.T) {
	for _, opts := range []TextOptions{{}, {Width: 100}} {
		t.Run(fmt.Sprintf("width %d", opts.Width), func(t *testing.T) {
			var buf bytes.Buffer
			if err := PlanText(&buf, longValueChanges(t, 12), opts); err != nil {
				t.Fatal(err)
			}
			golden(t, buf.Bytes())
		})
	}
}

// A new object's long value is wrapped whole in a log; a terminal keeps it to one line.
func TestLongCreatedValue(t *testing.T) {
	doc := longPolicy(3, "s3:GetObject", "10.0.0.0/8")
	after, _ := json.Marshal(map[string]any{"policy": doc})
	p, err := plan.Decode([]byte(`{"format_version":"1.2","terraform_version":"1.9.8","resource_changes":[
	  {"address":"aws_iam_policy.p","mode":"managed","type":"aws_iam_policy","name":"p","change":{"actions":["create"],
	   "before":null,"after":` + string(after) + `,"after_unknown":{},"before_sensitive":false,"after_sensitive":{}}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	c := plan.Summarise(p, plan.Options{})
	quoted, _ := json.Marshal(doc)
	for _, tt := range []struct {
		opts  TextOptions
		whole bool
	}{{TextOptions{}, true}, {TextOptions{Width: 80}, false}} {
		var buf bytes.Buffer
		if err := PlanText(&buf, c, tt.opts); err != nil {
			t.Fatal(err)
		}
		var joined strings.Builder
		for _, l := range strings.Split(buf.String(), "\n") {
			if runes(l) > 80 {
				t.Errorf("width %d: line longer than 80: %q", tt.opts.Width, l)
			}
			if strings.HasPrefix(l, strings.Repeat(" ", 20)) {
				joined.WriteString(strings.TrimLeft(l, " "))
			}
		}
		if got := strings.Contains(joined.String(), string(quoted)); got != tt.whole {
			t.Errorf("width %d: value shown whole = %v, want %v:\n%s", tt.opts.Width, got, tt.whole, buf.String())
		}
	}
}
