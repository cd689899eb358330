package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
	"unicode"

	"github.com/tfgate/tfgate/internal/plan"
	"github.com/tfgate/tfgate/internal/policy"
	"github.com/tfgate/tfgate/internal/render"
	"github.com/tfgate/tfgate/internal/report"
	"github.com/tfgate/tfgate/internal/secret"
)

// echoPolicy repeats everything a plan holds, in every encoding OPA offers: what a careless
// or hostile policy could put in a message, its metadata or print().
const echoPolicy = `package echo

import rego.v1

warn contains sprintf("%v", [input])
warn contains json.marshal(input)
warn contains yaml.marshal(input)

warn contains msg if {
	walk(input, [path, v])
	is_string(v)
	msg := sprintf("url %s %s", [urlquery.encode(v), json.marshal(path)])
}

warn contains {"msg": "number", "n": v, "path": path} if {
	walk(input, [path, v])
	is_number(v)
}

warn contains msg if {
	walk(input, [path, _])
	count(path) > 0
	msg := sprintf("key %v", [path[count(path) - 1]])
}

warn contains "printed" if print(input)
`

// fuzzGen builds a plan from fuzz bytes: every decision reads one byte (0 once they run
// out), so the fuzzer steers the shape — values at any depth, markers on leaves, whole
// containers and whole objects, map keys inside sensitive maps, markers in every part of
// the plan document — while every secret stays a unique canary.
type fuzzGen struct {
	data    []byte
	n       int
	secrets []string // marked values and keys: none may appear in any output
}

func (g *fuzzGen) pick(k int) int {
	if len(g.data) == 0 {
		return 0
	}
	b := g.data[0]
	g.data = g.data[1:]
	return int(b) % k
}

// secret is a new canary: a string (with quotes, a second line, non-ASCII, HTML) or a
// number with more digits than a float64 keeps.
func (g *fuzzGen) secret() any {
	g.n++
	if g.pick(4) == 0 {
		s := fmt.Sprintf("9%07d.123456789012345678", g.n)
		g.secrets = append(g.secrets, s)
		return json.Number(s)
	}
	s := fmt.Sprintf("ZqXcanary%03d", g.n) + []string{"", `-"q"`, "\nZqYline-two", "-é🔑", "-<&>", `-\x`}[g.pick(6)]
	g.secrets = append(g.secrets, s)
	return s
}

func (g *fuzzGen) key(sensitive bool) string {
	if sensitive && g.pick(2) == 0 {
		s := g.secret()
		if k, ok := s.(string); ok {
			return k
		}
		return string(s.(json.Number))
	}
	g.n++
	if g.pick(4) == 0 {
		return g.hostile()
	}
	return fmt.Sprintf("k%d", g.n)
}

// hostileTexts are no secrets, but as dangerous in a key or value: workflow commands the
// runner would obey on stdout or stderr, and tfgate's hidden markers.
var hostileTexts = []string{"::stop-commands::x", "##[error]x", " ::set-output name=a::b", "\u200b::add-mask::m", "x\n::error::y",
	"<!-- tfgate:gate -->", "<!-- /tfgate:gate -->", "a\n<!-- tfgate:plan pr=1 part=1/1 -->", "#\u200d#[warning]w"}

func (g *fuzzGen) hostile() string {
	return hostileTexts[g.pick(len(hostileTexts))] + fmt.Sprint(g.n)
}

// runnerReads reports whether the Actions runner could read line as a workflow command:
// it starts with "::" after white space (ActionCommand.TryParseV2) or holds "##["
// (TryParse), once the characters a culture-sensitive comparison may skip are removed.
func runnerReads(line string) bool {
	s := strings.Map(func(r rune) rune {
		if unicode.In(r, unicode.Cc, unicode.Cf, unicode.Mn, unicode.Me) {
			return -1
		}
		return r
	}, line)
	s = strings.TrimLeftFunc(s, unicode.IsSpace)
	return strings.HasPrefix(s, "::") || strings.Contains(s, "##[")
}

// value returns a value and its marker; under a sensitive parent everything is secret.
func (g *fuzzGen) value(depth int, sensitive bool) (v, marker any) {
	if !sensitive && g.pick(4) == 0 {
		v, _ = g.value(depth, true)
		return v, true
	}
	kind := g.pick(6)
	if depth >= 4 {
		kind = 0
	}
	switch kind {
	case 0, 1:
		if sensitive {
			return g.secret(), nil
		}
		g.n++
		return []any{fmt.Sprintf("plain-%d", g.n), json.Number(fmt.Sprint(g.pick(100))), true, nil, g.hostile()}[g.pick(5)], false
	case 2, 3:
		m, mk := map[string]any{}, map[string]any{}
		for range g.pick(4) {
			k := g.key(sensitive)
			m[k], mk[k] = g.value(depth+1, sensitive)
		}
		return m, mk
	default:
		l, lk := []any{}, []any{}
		for range g.pick(4) {
			e, ek := g.value(depth+1, sensitive)
			l, lk = append(l, e), append(lk, ek)
		}
		return l, lk
	}
}

// object is a resource's attributes; with copy, a marked secret is also copied unmarked
// into another attribute (as terraform_data.output does).
func (g *fuzzGen) object(whole bool) (map[string]any, any) {
	obj, mk := map[string]any{}, map[string]any{}
	for range 1 + g.pick(4) {
		k := g.key(whole)
		obj[k], mk[k] = g.value(1, whole)
	}
	if g.pick(3) == 0 {
		s := g.secret()
		obj["marked"], mk["marked"] = s, true
		obj["copy"], mk["copy"] = fmt.Sprintf("prefix %v suffix", s), false
	}
	if whole {
		return obj, true
	}
	return obj, mk
}

func (g *fuzzGen) change() map[string]any {
	before, bs := g.object(g.pick(8) == 0)
	after, as := g.object(g.pick(8) == 0)
	actions := [][]any{{"update"}, {"create"}, {"delete"}, {"delete", "create"}, {"read"}}[g.pick(5)]
	ch := map[string]any{"actions": actions, "before": before, "after": after, "after_unknown": map[string]any{},
		"before_sensitive": bs, "after_sensitive": as}
	if actions[0] == "create" || actions[0] == "read" {
		ch["before"], ch["before_sensitive"] = nil, false
	}
	if len(actions) == 2 {
		var path []any
		for k := range after {
			path = append(path, k)
			if m, ok := after[k].(map[string]any); ok {
				for k2 := range m {
					path = append(path, k2)
					break
				}
			}
			break
		}
		ch["replace_paths"] = []any{path}
	}
	return ch
}

func (g *fuzzGen) plan() []byte {
	var rcs, drift, deferred, actions, prior []any
	for i := range 1 + g.pick(3) {
		rcs = append(rcs, map[string]any{"address": fmt.Sprintf("t.r%d", i), "mode": "managed", "type": "t",
			"name": fmt.Sprintf("r%d", i), "change": g.change()})
	}
	if g.pick(2) == 0 {
		drift = append(drift, map[string]any{"address": "t.drift", "mode": "managed", "type": "t", "name": "drift", "change": g.change()})
	}
	if g.pick(2) == 0 {
		deferred = append(deferred, map[string]any{"reason": "provider_config_unknown",
			"resource_change": map[string]any{"address": "t.deferred", "mode": "managed", "type": "t", "name": "deferred", "change": g.change()}})
	}
	if g.pick(2) == 0 {
		v, m := g.object(g.pick(4) == 0)
		actions = append(actions, map[string]any{"address": "action.t.a", "type": "t", "name": "a", "config_values": v, "config_sensitive": m})
	}
	for i := range g.pick(3) {
		v, m := g.object(g.pick(4) == 0)
		prior = append(prior, map[string]any{"address": fmt.Sprintf("data.t.d%d", i), "mode": "data", "type": "t",
			"name": fmt.Sprintf("d%d", i), "values": v, "sensitive_values": m})
	}
	outputs, planned := map[string]any{}, map[string]any{}
	for i := range g.pick(3) {
		name := fmt.Sprintf("o%d", i)
		v, m := g.value(1, false)
		if g.pick(2) == 0 {
			v, _ = g.value(1, true)
			planned[name] = map[string]any{"sensitive": true, "value": v}
			m = true
		}
		outputs[name] = map[string]any{"actions": []any{"create"}, "before": nil, "after": v,
			"before_sensitive": false, "after_sensitive": m, "after_unknown": false}
	}
	doc := map[string]any{"format_version": "1.2", "terraform_version": "1.9.8",
		"resource_changes": rcs, "resource_drift": drift, "deferred_changes": deferred, "action_invocations": actions,
		"output_changes": outputs, "planned_values": map[string]any{"outputs": planned},
		"prior_state": map[string]any{"values": map[string]any{"root_module": map[string]any{"resources": prior}}}}
	js, err := json.Marshal(doc)
	if err != nil {
		panic(err)
	}
	return js
}

// spellings are every way a secret may be written (the forms the masker knows), of the
// whole value and of each of its lines long enough to be masked alone.
func spellings(secrets []string) []string {
	var out []string
	for _, s := range secrets {
		parts := []string{s}
		if strings.Contains(s, "\n") {
			for _, line := range strings.Split(s, "\n") {
				if len(line) >= secret.MinGuessed {
					parts = append(parts, line)
				}
			}
		}
		for _, p := range parts {
			out = append(out, secret.EscapedForms(p)...)
			out = append(out, secret.NumberForms(p)...)
		}
	}
	return out
}

func FuzzNoLeak(f *testing.F) {
	for _, seed := range []string{"", "\x01\x02\x03\x04", "\x00\x05\x02\x02\x03\x00\x01\x03", "\xff\x10\x20\x30\x40\x50\x60\x70\x80\x90",
		strings.Repeat("\x02\x03", 20), strings.Repeat("\x07\x00\x03\x01", 16),
		"\xdb\x19D\xcb\xe0%Z\xa5\xb7\xd4K\xec@\xf8L\x89+"} { // the last: a marker in a diff
		f.Add([]byte(seed))
	}
	var prints bytes.Buffer
	engine, err := policy.Load(context.Background(), policy.Source{FS: fstest.MapFS{"p/echo.rego": {Data: []byte(echoPolicy)}}, Paths: []string{"p"}},
		policy.Options{PrintWriter: &prints})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		g := &fuzzGen{data: data}
		js := g.plan()
		c, err := plan.Read(js, plan.Options{})
		if err != nil {
			t.Fatalf("%v\nplan: %s", err, js)
		}
		var out bytes.Buffer
		if err := render.PlanText(&out, c, render.TextOptions{Width: 80}); err != nil {
			t.Fatal(err)
		}
		if err := render.PlanJSON(&out, c); err != nil {
			t.Fatal(err)
		}
		prints.Reset()
		m := c.Masker()
		res := engine.Eval(context.Background(), js, policy.Project{Name: "p", Dir: ".", Workspace: "default", ChangedFiles: []string{}, Masker: m}).Masked(m)
		if res.Err != nil {
			t.Fatalf("policy: %v", res.Err)
		}
		run := report.Run{Kind: report.KindPlan, Projects: []report.Project{{Name: "p", Status: report.StatusPlanned, Changes: c, Policy: &res}}}
		if err := render.Text(&out, run, render.TextOptions{Width: 120}); err != nil {
			t.Fatal(err)
		}
		if err := render.JSON(&out, run); err != nil {
			t.Fatal(err)
		}
		out.Write(prints.Bytes())
		all := out.String()
		var guarded bytes.Buffer
		guard := render.GuardCommands(&guarded)
		guard.Write(out.Bytes())
		guard.Flush()
		for _, l := range strings.FieldsFunc(guarded.String(), func(r rune) bool { return r == '\n' || r == '\r' }) {
			if runnerReads(l) {
				t.Fatalf("the runner reads a workflow command in %q\nplan: %s", l, js)
			}
		}
		var md bytes.Buffer
		if err := render.Markdown(&md, run, render.MarkdownOptions{}); err != nil {
			t.Fatal(err)
		}
		if i := strings.Index(md.String(), "<!"); i >= 0 {
			t.Fatalf("markdown holds \"<!\": …%s…\nplan: %s", md.String()[max(0, i-100):min(md.Len(), i+100)], js)
		}
		md.WriteString(strings.Join(render.CommentParts(run, render.MarkdownOptions{}), ""))
		all += md.String()
		for _, s := range spellings(g.secrets) {
			if i := strings.Index(all, s); i >= 0 {
				t.Fatalf("secret spelling %q leaked: …%s…\nplan: %s", s, all[max(0, i-200):min(len(all), i+len(s)+100)], js)
			}
		}
	})
}
