package plan

import (
	"strings"
	"testing"

	"github.com/tfgate/tfgate/internal/plan/plangen"
)

// fastBase is a plan with every section and field the fast path reads, each once.
const fastBase = `{"format_version":"1.2","terraform_version":"1.5.7",` +
	`"resource_changes":[{"address":"a.b","mode":"managed","type":"a","name":"b","index":0,` +
	`"provider_name":"p","change":{"actions":["update"],` +
	`"before":{"n":1,"s":"x","l":[1,"a",null,true,false,{},[]],"m":{}},"after":{"n":2.50},` +
	`"after_unknown":{},"before_sensitive":false,"after_sensitive":{"s":true},` +
	`"replace_paths":[["n"]],"importing":{"id":"i","unknown":false,"identity":{"k":"v"}},` +
	`"generated_config":"g","before_identity":null,"after_identity":{"id":"x"}},` +
	`"action_reason":"replace_because_cannot_update","deposed":"d","previous_address":"a.c",` +
	`"module_address":"module.m"}],` +
	`"resource_drift":[],` +
	`"output_changes":{"o":{"actions":["create"],"after":"v","after_unknown":false}},` +
	`"planned_values":{"outputs":{"o":{"sensitive":true,"value":"v"}},"root_module":{"resources":[{"address":"a.b","values":{"n":2}}]}},` +
	`"prior_state":{"format_version":"1.0","values":{"outputs":{"p":{"sensitive":false,"value":1,"type":"number"}},"root_module":{}}},` +
	`"configuration":{"provider_config":{},"root_module":{"variables":{"pw":{"sensitive":true},"x":{"default":1},"y":null}}},` +
	`"variables":{"pw":{"value":"s"}},"relevant_attributes":[{"resource":"a.b","attribute":["n"]}],` +
	`"checks":[],"deferred_changes":[],"action_invocations":[],` +
	`"timestamp":"2024-01-01T00:00:00Z","errored":false,"complete":true}`

// fastEdits are edits of fastBase (old text → new text, the first occurrence) that the
// fast path must decide as encoding/json does, most of them by giving up.
var fastEdits = [][2]string{
	// Keys encoding/json matches case-insensitively, or by Unicode folding.
	{`"address"`, `"Address"`}, {`"format_version"`, `"FORMAT_VERSION"`},
	{`"resource_changes"`, `"Resource_Changes"`}, {`"actions"`, `"Actions"`},
	{`"outputs"`, `"OUTPUTS"`}, {`"sensitive":true}`, `"Sensitive":true}`},
	{`"root_module":{"variables"`, `"Root_Module":{"variables"`}, {`"pw":{"sensitive"`, `"pw":{"ſensitive"`},
	{`"checks"`, `"chec\u212as"`}, {`"checks"`, `"CHECKS"`}, {`"timestamp"`, `"Values"`},
	{`"timestamp"`, `"@MESSAGE"`}, {`"timestamp"`, `"ſ"`}, {`"index"`, `"\u0069ndex"`},
	{`"id":"i"`, `"ID":"i"`}, {`"change":{`, `"Change":{`}, {`"values":{"outputs"`, `"VALUES":{"outputs"`},
	// Repeated keys, at every level.
	{`"format_version":"1.2",`, `"format_version":"1.2","format_version":"1.3",`},
	{`"resource_drift":[],`, `"resource_drift":[],"resource_drift":[{"address":"z"}],`},
	{`"resource_drift":[],`, `"resource_changes":[{"address":"z"}],`},
	{`"address":"a.b",`, `"address":"a.b","address":"a.c",`},
	{`"change":{`, `"change":{"after":5,`}, {`"actions":["update"],`, `"actions":["update"],"actions":["create"],`},
	{`"n":1,`, `"n":1,"n":3,`}, {`"o":{"actions"`, `"o":{"after":1},"o":{"actions"`},
	{`"pw":{"sensitive":true},`, `"pw":{"sensitive":true},"pw":{"sensitive":false},`},
	{`"pw":{"sensitive":true}`, `"pw":{"sensitive":true,"sensitive":false}`},
	{`{"outputs":{"o"`, `{"outputs":{},"outputs":{"o"`}, {`"values":{"outputs"`, `"values":null,"values":{"outputs"`},
	{`"id":"i",`, `"id":"i","id":"j",`}, {`"complete":true`, `"complete":true,"complete":false`},
	{`"errored":false`, `"errored":true,"errored":false`}, {`"timestamp"`, `"values":{},"values"`},
	// Nulls where objects, arrays, strings and booleans go.
	{`"resource_changes":[`, `"resource_changes":[null,`}, {`"resource_drift":[]`, `"resource_drift":null`},
	{`"change":{`, `"change":null,"x":{`}, {`["update"]`, `null`}, {`["update"]`, `[null,"update"]`},
	{`"address":"a.b"`, `"address":null`}, {`"index":0`, `"index":null`},
	{`"importing":{`, `"importing":null,"y":{`}, {`"replace_paths":[["n"]]`, `"replace_paths":null`},
	{`"o":{"actions"`, `"o":null,"q":{"actions"`}, {`"output_changes":{`, `"output_changes":null,"x":{`},
	{`"planned_values":{`, `"planned_values":null,"x":{`}, {`"prior_state":{`, `"prior_state":null,"x":{`},
	{`"values":{"outputs"`, `"values":null,"x":{"outputs"`}, {`"configuration":{`, `"configuration":null,"x":{`},
	{`"root_module":{"variables"`, `"root_module":null,"x":{"variables"`}, {`"variables":{"pw":{"sensitive"`, `"variables":null,"x":{"pw":{"sensitive"`},
	{`"errored":false`, `"errored":null`}, {`"complete":true`, `"complete":null`},
	{`"format_version":"1.2"`, `"format_version":null`}, {`"timestamp"`, `"values":null,"x"`},
	{`"sensitive":true}`, `"sensitive":null}`}, {`"unknown":false`, `"unknown":null`},
	{`"checks":[]`, `"checks":null`}, {`"variables":{"pw":{"value"`, `"variables":null,"x":{"pw":{"value"`},
	// Values of the wrong kind.
	{`"address":"a.b"`, `"address":1`}, {`"address":"a.b"`, `"address":{}`}, {`"change":{`, `"change":[],"x":{`},
	{`["update"]`, `"update"`}, {`["update"]`, `[1]`}, {`"errored":false`, `"errored":"no"`},
	{`"complete":true`, `"complete":1`}, {`"output_changes":{`, `"output_changes":[],"x":{`},
	{`"resource_changes":[`, `"resource_changes":{},"x":[`}, {`"resource_changes":[`, `"resource_changes":[5,`},
	{`"index":0`, `"index":{"k":[1]}`}, {`"importing":{`, `"importing":"x","y":{`},
	{`"unknown":false`, `"unknown":"x"`}, {`"replace_paths":[["n"]]`, `"replace_paths":{}`},
	{`"planned_values":{`, `"planned_values":[],"x":{`}, {`"sensitive":true}`, `"sensitive":"yes"}`},
	{`"root_module":{"variables"`, `"root_module":[],"x":{"variables"`}, {`"variables":{"pw":{"sensitive"`, `"variables":5,"x":{"pw":{"sensitive"`},
	{`"configuration":{`, `"configuration":true,"x":{`}, {`"prior_state":{`, `"prior_state":"x","y":{`},
	{`"pw":{"sensitive":true}`, `"pw":[true]`}, {`"checks":[]`, `"checks":{}`}, {`"checks":[]`, `"checks":[{"status":5}]`},
	{`"outputs":{"o":{"sensitive":true`, `"outputs":{"o":{"sensitive":"x"`}, {`"value":1,"type":"number"`, `"value":1,"type":"numbr"`},
	{`"format_version":"1.2"`, `"format_version":1.2`}, {`"generated_config":"g"`, `"generated_config":false`},
	{`"mode":"managed"`, `"mode":["managed"]`}, {`"relevant_attributes":[`, `"relevant_attributes":[5,`},
	// Escapes, surrogates and invalid UTF-8.
	{`"a.b"`, `"a.\u0062"`}, {`"s":"x"`, `"s":"\ud83d\ude00\n\t\/\\\"\u00e9"`}, {`"s":"x"`, `"s":"\ud800"`},
	{`"s":"x"`, `"s":"\udc00x"`}, {`"s":"x"`, `"s":"\ud800\u0041"`}, {`"s":"x"`, `"s":"\\ud800"`},
	{`"s":"x"`, `"s":"\x"`}, {`"s":"x"`, `"s":"\u12"`}, {`"s":"x"`, "\"s\":\"\xff\""},
	{`"s":"x"`, "\"s\":\"\xe2\x82\""}, {`"s":"x"`, "\"\xff\":\"x\""}, {`"address":"a.b"`, "\"address\":\"a\xc3\""},
	{`"root_module":{}`, "\"root_module\":{\"\xff\":\"\xfe\"}"}, {`"s":"x"`, "\"s\":\"a\x01\""},
	{`"s":"x"`, "\"s\":\"\u2028é日本\""}, {`"address":"a.b"`, `"address":"\u0000"`}, {`"timestamp"`, `"tim\u0065stamp"`},
	{`"root_module":{}`, `"root_module":{"a":"\ud800"}`}, {`"root_module":{}`, `"root_module":{"a":"\q"}`},
	// Numbers.
	{`"n":1,`, `"n":1e400,`}, {`"n":1,`, `"n":-0,`}, {`"n":1,`, `"n":01,`}, {`"n":1,`, `"n":1.,`},
	{`"n":1,`, `"n":.5,`}, {`"n":1,`, `"n":-,`}, {`"n":1,`, `"n":1E+2,`}, {`"n":1,`, `"n":123456789012345678901234567890.5e-7,`},
	{`"n":1,`, `"n":+1,`}, {`"n":1,`, `"n":1e,`}, {`"n":1,`, `"n":NaN,`}, {`"index":0`, `"index":-0.0e0`},
	{`"index":0`, `"index":00`}, {`"address":"a.b"`, `"address":5e3`}, {`"root_module":{}`, `"root_module":{"a":01}`},
	{`"root_module":{}`, `"root_module":{"a":-}`}, {`"root_module":{}`, `"root_module":{"a":1.5e}`},
	// Literals and structure.
	{`"errored":false`, `"errored":fals`}, {`"errored":false`, `"errored":falsey`}, {`"index":0`, `"index":nul`},
	{`"root_module":{}`, `"root_module":{"a":tru}`}, {`"root_module":{}`, `"root_module":{"a":[1,]}`},
	{`"root_module":{}`, `"root_module":{"a":{"b":1,}}`}, {`"root_module":{}`, `"root_module":{"a" 1}`},
	{`"root_module":{}`, `"root_module":{a:1}`}, {`"root_module":{}`, `"root_module":{"a":[1 2]}`},
	{`"root_module":{}`, `"root_module":{"a":]}`}, {`,"resource_drift"`, ` , "resource_drift"`},
	{`"root_module":{}`, " \"root_module\" :\t{ \n} "}, {`"m":{}`, `"m":{"":1}`}, {`"timestamp"`, `""`},
	{`"n":1,`, "\"n\":1\v,"}, {`"root_module":{}`, "\"root_module\":{\"a\":\"\t\"}"},
}

func TestDecodeFastMatchesStdOnEdits(t *testing.T) {
	if !checkSameDecode(t, []byte(fastBase)) {
		t.Fatal("the fast path gave up on its base plan")
	}
	for _, e := range fastEdits {
		if !strings.Contains(fastBase, e[0]) {
			t.Errorf("edit %q: not in the base plan", e[0])
			continue
		}
		checkSameDecode(t, []byte(strings.Replace(fastBase, e[0], e[1], 1)))
	}
}

// fastWholeCases are inputs of their own: empty, odd, deep, trailing.
func fastWholeCases() []string {
	deep := func(n int, open, end string) string {
		return `{"format_version":"1.2","resource_changes":[{"change":{"before":` +
			strings.Repeat(open, n) + strings.Repeat(end, n) + `}}]}`
	}
	return []string{
		"", " ", "{", "}", "{}", "[]", "null", `"x"`, "\ufeff", "\ufeff" + fastBase, "\ufeff\ufeff" + fastBase,
		fastBase + "}", fastBase + "\n\n", fastBase + " x", fastBase + "\v", fastBase + "\u0085",
		fastBase + fastBase, fastBase[:len(fastBase)/2], fastBase[:len(fastBase)-1], " \n\t" + fastBase,
		`{"@message":"x"}` + "\n" + `{"@message":"y"}`, `{"@message":null,"format_version":"1.2","planned_values":{}}`,
		`{"format_version":"1.2","values":{"root_module":{}}}`, `{"format_version":"1.2","planned_values":{}}`,
		`{"format_version":"1.2","planned_values":{},"errored":true}`, `{"format_version":"2.0","planned_values":{}}`,
		`{"format_version":"1.2","configuration":{}}`, `{"format_version":"1.2","configuration":null}`,
		`{"format_version":"1.2","action_invocations":[]}`, `{"format_version":"1.2","output_changes":{}}`,
		`{"format_version":"1.2","resource_changes":[]}`, `{"format_version":"1.2","resource_changes":[{}]}`,
		deep(50, "[", "]"), deep(50, `{"a":`, "}"), deep(fastMaxDepth, "[", "]"), deep(10001, "[", "]"),
		deep(3, "[", "]") + "\x00", "{\"format_version\":\"1.2\",\"planned_values\":{}}\x00",
	}
}

func TestDecodeFastMatchesStdOnWholeInputs(t *testing.T) {
	for _, in := range fastWholeCases() {
		checkSameDecode(t, []byte(in))
	}
}

func FuzzDecodeFastMatchesStd(f *testing.F) {
	f.Add([]byte(fastBase))
	for _, e := range fastEdits {
		f.Add([]byte(strings.Replace(fastBase, e[0], e[1], 1)))
	}
	for _, in := range fastWholeCases() {
		if len(in) < 4096 {
			f.Add([]byte(in))
		}
	}
	f.Add(plangen.Generate(2))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkSameDecode(t, data)
	})
}
