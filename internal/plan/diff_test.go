package plan

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/tfgate/tfgate/internal/secret"
)

// attrLines renders attributes compactly for comparison: `path: before → after`, with
// " [forces]" when the attribute forces replacement.
func attrLines(attrs []Attribute) string {
	var b strings.Builder
	for _, a := range attrs {
		b.WriteString(a.Path + ": " + a.Before.Text + " → " + a.After.Text)
		if a.ForcesReplacement {
			b.WriteString(" [forces]")
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func change(actions, before, after, unknown, beforeSens, afterSens, extra string) string {
	return `{"address":"t.r","mode":"managed","type":"t","name":"r","change":{"actions":` + actions +
		`,"before":` + before + `,"after":` + after + `,"after_unknown":` + unknown +
		`,"before_sensitive":` + beforeSens + `,"after_sensitive":` + afterSens + extra + `}}`
}

func TestAttributeDiff(t *testing.T) {
	tests := []struct {
		name                                     string
		actions, before, after, unk, bsens, asen string
		extra                                    string
		want                                     string
	}{
		{
			name: "scalar and nested map", actions: `["update"]`,
			before: `{"size":3,"tags":{"env":"dev","team":"a","Cost Center":"1"},"same":"x"}`,
			after:  `{"size":4,"tags":{"env":"dev","team":"b","Cost Center":"2"},"same":"x"}`,
			unk:    `{}`, bsens: `{}`, asen: `{}`,
			want: "size: 3 → 4\ntags[\"Cost Center\"]: \"1\" → \"2\"\ntags.team: \"a\" → \"b\"\n",
		},
		{
			name: "list of primitives as a unit", actions: `["update"]`,
			before: `{"cidr":["10.0.0.0/8"]}`, after: `{"cidr":["0.0.0.0/0"]}`, unk: `{}`, bsens: `{}`, asen: `{}`,
			want: "cidr: [\"10.0.0.0/8\"] → [\"0.0.0.0/0\"]\n",
		},
		{
			name: "list of objects: insert at head pairs equal elements", actions: `["update"]`,
			before: `{"rule":[{"port":80},{"port":443}]}`, after: `{"rule":[{"port":22},{"port":80},{"port":443}]}`,
			unk: `{}`, bsens: `{}`, asen: `{}`,
			want: "rule[0].port: null → 22\n",
		},
		{
			name: "set reordered: no change", actions: `["update"]`,
			before: `{"rule":[{"port":80},{"port":443}],"x":1}`, after: `{"rule":[{"port":443},{"port":80}],"x":2}`,
			unk: `{}`, bsens: `{}`, asen: `{}`,
			want: "x: 1 → 2\n",
		},
		{
			name: "element changed and one removed", actions: `["update"]`,
			before: `{"rule":[{"port":80,"cidr":["a"]},{"port":443,"cidr":["b"]},{"port":22,"cidr":["c"]}]}`,
			after:  `{"rule":[{"port":80,"cidr":["a"]},{"port":8443,"cidr":["b"]}]}`,
			unk:    `{}`, bsens: `{}`, asen: `{}`,
			want: "rule[1].port: 443 → 8443\nrule[2].cidr: [\"c\"] → null\nrule[2].port: 22 → null\n",
		},
		{
			name: "block added and removed", actions: `["update"]`,
			before: `{"old":{"a":1},"new":null}`, after: `{"old":null,"new":{"b":[1,2],"c":{}}}`,
			unk: `{}`, bsens: `{}`, asen: `{}`,
			want: "new.b: null → [1, 2]\nold.a: 1 → null\n",
		},
		{
			name: "type change", actions: `["update"]`,
			before: `{"input":"a"}`, after: `{"input":{"k":"v"}}`, unk: `{}`, bsens: `{}`, asen: `{}`,
			want: "input: \"a\" → {k = \"v\"}\n",
		},
		{
			name: "unknowns", actions: `["update"]`,
			before: `{"arn":"arn:1","zones":["a"],"nested":{"x":1}}`, after: `{"zones":["a",null],"nested":{}}`,
			unk: `{"arn":true,"zones":[false,true],"nested":{"x":true},"added":true}`, bsens: `{}`, asen: `{}`,
			want: "added: null → (known after apply)\narn: \"arn:1\" → (known after apply)\nnested.x: 1 → (known after apply)\nzones[1]: null → (known after apply)\n",
		},
		{
			name: "create: non-null leaves and unknowns", actions: `["create"]`,
			before: `null`, after: `{"name":"n","nothing":null,"empty":[],"emptymap":{},"items":[1,2],"blocks":[{"a":1}]}`,
			unk: `{"id":true,"blocks":[{"b":true}]}`, bsens: `false`, asen: `{}`,
			want: "blocks[0].a: null → 1\nblocks[0].b: null → (known after apply)\nid: null → (known after apply)\nitems: null → [1, 2]\nname: null → \"n\"\n",
		},
		{
			name: "delete has no attributes", actions: `["delete"]`,
			before: `{"a":1}`, after: `null`, unk: `{}`, bsens: `{}`, asen: `false`,
			want: "",
		},
		{
			name: "replace paths", actions: `["delete","create"]`,
			before: `{"ami":"a","tags":{"x":"1"},"list":[{"k":"1"}]}`, after: `{"ami":"b","tags":{"x":"2"},"list":[{"k":"2"}]}`,
			unk: `{}`, bsens: `{}`, asen: `{}`, extra: `,"replace_paths":[["ami"],["list",0]]`,
			want: "ami: \"a\" → \"b\" [forces]\nlist[0].k: \"1\" → \"2\" [forces]\ntags.x: \"1\" → \"2\"\n",
		},
		{
			name: "long string focused on the difference", actions: `["update"]`,
			before: `{"p":"` + strings.Repeat("a", 600) + `X` + strings.Repeat("z", 50) + `"}`,
			after:  `{"p":"` + strings.Repeat("a", 600) + `Y` + strings.Repeat("z", 50) + `"}`,
			unk:    `{}`, bsens: `{}`, asen: `{}`,
			want: "p: …" + strings.Repeat("a", 20) + "X" + strings.Repeat("z", 20) + "… → …" + strings.Repeat("a", 20) + "Y" + strings.Repeat("z", 20) + "…\n",
		},
		{
			name: "long string: every difference shown", actions: `["update"]`,
			before: `{"p":` + policyDoc("s3:GetObject", "10.0.0.0/8") + `}`,
			after:  `{"p":` + policyDoc("s3:*", "0.0.0.0/0") + `}`,
			unk:    `{}`, bsens: `{}`, asen: `{}`,
			want: `p: …w\",\"Action\":\"s3:GetObject\",\"Resource\":\"ar…{\"aws:SourceIp\":\"10.0.0.0/8\"}}}]}"` +
				` → …w\",\"Action\":\"s3:*\",\"Resource\":\"ar…{\"aws:SourceIp\":\"0.0.0.0/0\"}}}]}"` + "\n",
		},
		{
			name: "long list: a change in the middle shown", actions: `["update"]`,
			before: `{"cidrs":` + cidrList(100, 80, "10.0.80.0/24") + `}`,
			after:  `{"cidrs":` + cidrList(100, 80, "0.0.0.0/0") + `}`,
			unk:    `{}`, bsens: `{}`, asen: `{}`,
			want: `cidrs: …", "10.0.79.0/24", "10.0.80.0/24", "10.0.81.0/24", "…` +
				` → …", "10.0.79.0/24", "0.0.0.0/0", "10.0.81.0/24", "…` + "\n",
		},
		{
			name: "sensitive on either side hides both", actions: `["update"]`,
			before: `{"was":"old-secret","now":"plain-before","nested":{"k":"x"}}`,
			after:  `{"was":"plain-after","now":"new-secret","nested":{"k":"y"}}`,
			unk:    `{}`, bsens: `{"was":true,"nested":true}`, asen: `{"now":true}`,
			want: "nested: (sensitive) → (sensitive)\nnow: (sensitive) → (sensitive)\nwas: (sensitive) → (sensitive)\n",
		},
		{
			name: "sensitive unchanged is not listed", actions: `["update"]`,
			before: `{"pw":"same-secret","n":1}`, after: `{"pw":"same-secret","n":2}`,
			unk: `{}`, bsens: `{"pw":true}`, asen: `{"pw":true}`,
			want: "n: 1 → 2\n",
		},
		{
			name: "control characters are escaped", actions: `["update"]`,
			before: `{"v":"ok"}`, after: `{"v":"\u001b[31mred\nline"}`, unk: `{}`, bsens: `{}`, asen: `{}`,
			want: "v: \"ok\" → \"\\x1b[31mred\\nline\"\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := planWith(t, change(tt.actions, tt.before, tt.after, tt.unk, tt.bsens, tt.asen, tt.extra))
			c := Summarise(p, Options{})
			if len(c.Resources) != 1 {
				t.Fatalf("resources: %+v", c.Resources)
			}
			if got := attrLines(c.Resources[0].Attributes); got != tt.want {
				t.Errorf("attributes:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

// policyDoc is a JSON string (as jsonencode writes it, over 500 characters) holding a long
// policy whose action and source address are the given ones, far apart.
func policyDoc(action, cidr string) string {
	stmt := `{"Sid":"S%d","Effect":"Allow","Action":"%s","Resource":"arn:aws:s3:::bucket-%d/*"}`
	var parts []string
	parts = append(parts, fmt.Sprintf(stmt, 0, action, 0))
	for i := 1; i < 8; i++ {
		parts = append(parts, fmt.Sprintf(stmt, i, "s3:ListBucket", i))
	}
	doc := `{"Version":"2012-10-17","Statement":[` + strings.Join(parts, ",") +
		`,{"Sid":"Net","Effect":"Deny","Action":"*","Condition":{"IpAddress":{"aws:SourceIp":"` + cidr + `"}}}]}`
	js, _ := json.Marshal(doc)
	return string(js)
}

// cidrList is a JSON list of n CIDRs, element i replaced by v.
func cidrList(n, i int, v string) string {
	l := make([]string, n)
	for k := range l {
		l[k] = fmt.Sprintf("10.0.%d.0/24", k)
	}
	l[i] = v
	js, _ := json.Marshal(l)
	return string(js)
}

func TestValueText(t *testing.T) {
	w := &writer{mask: newMasker(nil, nil), maxLen: 60}
	tests := []struct {
		name         string
		v, sens, unk any
		want         Value
	}{
		{"null", nil, nil, nil, valueNull},
		{"string", "a\"b", nil, nil, Value{`"a\"b"`, KindKnown}},
		{"bool", true, nil, nil, Value{"true", KindKnown}},
		{"float", 1.5, nil, nil, Value{"1.5", KindKnown}},
		{"list", []any{"a", 1.0, nil}, nil, nil, Value{`["a", 1, null]`, KindKnown}},
		{"map keys", map[string]any{"b": "2", "a b": "1"}, nil, nil, Value{`{"a b" = "1", b = "2"}`, KindKnown}},
		{"nested markers", map[string]any{"k": "secret", "u": nil, "n": "x"}, map[string]any{"k": true}, map[string]any{"u": true},
			Value{`{k = (sensitive), n = "x", u = (known after apply)}`, KindKnown}},
		{"sensitive wins over unknown", "x", true, true, valueSensitive},
		{"unknown", nil, false, true, valueUnknown},
		{"long", strings.Repeat("x", 100), nil, nil, Value{`"` + strings.Repeat("x", 58) + "…", KindKnown}},
	}
	for _, tt := range tests {
		if got := w.value(tt.v, tt.sens, tt.unk); got != tt.want {
			t.Errorf("%s: value = %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

func TestPathRendering(t *testing.T) {
	w := &writer{mask: newMasker(secret.NewMasker(nil).With("hidden"), nil)}
	tests := []struct {
		path []any
		want string
	}{
		{[]any{"a"}, "a"},
		{[]any{"a", "b-c", "d_e"}, "a.b-c.d_e"},
		{[]any{"tags", "Cost Center"}, `tags["Cost Center"]`},
		{[]any{"ingress", 0, "cidr_blocks", 2}, "ingress[0].cidr_blocks[2]"},
		{[]any{"m", "1abc"}, `m["1abc"]`},
		{[]any{"m", "new\nline"}, `m["new\nline"]`},
		{[]any{"m", "hidden-key"}, `m["(masked)-key"]`},
	}
	for _, tt := range tests {
		if got := w.path(toSteps(tt.path)); got != tt.want {
			t.Errorf("path(%v) = %q, want %q", tt.path, got, tt.want)
		}
	}
}
