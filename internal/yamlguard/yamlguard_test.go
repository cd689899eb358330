package yamlguard

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

func parse(t *testing.T, src string) *yaml.Node {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		t.Fatal(err)
	}
	return &doc
}

// chain is the ~1 KB file whose expansion doubles per level.
func chain(levels int) string {
	var b strings.Builder
	b.WriteString("a0: &a0 {x: 1}\n")
	for i := 1; i <= levels; i++ {
		fmt.Fprintf(&b, "a%d: &a%d {<<: [*a%d, *a%d]}\n", i, i, i-1, i-1)
	}
	fmt.Fprintf(&b, "use: *a%d\n", levels)
	return b.String()
}

func TestAliases(t *testing.T) {
	tests := []struct {
		name, yaml, want string // want "" is no problem
	}{
		{"no aliases", "a: 1\nb: [1, 2]\n", ""},
		{"shared anchor", "base: &b {x: 1}\none: {<<: *b, y: 2}\ntwo: *b\n", ""},
		{"merge of its own anchor", "- &a {dir: app, <<: *a}\n",
			"line 1: *a refers to &a (line 1), which contains it: a recursive alias or merge; remove it"},
		{"alias inside its anchor", "top: &t\n  list:\n    - *t\n",
			"line 3: *t refers to &t (line 1), which contains it: a recursive alias or merge; remove it"},
		{"cycle through another anchor", "a: &a\n  b: &b\n    c: *a\n",
			"line 3: *a refers to &a (line 1), which contains it: a recursive alias or merge; remove it"},
		{"doubling chain", chain(40),
			"line 14: aliases expand the file to more than 100000 values (at *a12); use fewer or smaller anchors"},
		{"short chain", chain(8), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			err := Aliases(parse(t, tt.yaml))
			if took := time.Since(start); took > 20*time.Second { // generous: only "it stops"
				t.Errorf("took %s", took)
			}
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestDuplicateKeys(t *testing.T) {
	tests := []struct {
		name, yaml, want string
	}{
		{"none", "a: 1\nb: {a: 2}\n", ""},
		{"top level", "a: 1\nb: 2\na: 3\n", `line 3: key "a" is set twice in one mapping (first on line 1); keep one`},
		{"nested", "limits:\n  max: 1\n  max: 2\n", `line 3: key "max" is set twice in one mapping (first on line 2); keep one`},
		{"number and string collide", "1: a\n\"1\": b\n", `line 2: key "1" is set twice in one mapping (first on line 1); keep one`},
		{"merge keys are not keys", "b: &b {x: 1}\nc:\n  <<: *b\n  <<: *b\n  x: 2\n", ""},
		{"in a list", "- {a: 1, a: 2}\n", `line 1: key "a" is set twice in one mapping (first on line 1); keep one`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ""
			if err := DuplicateKeys(parse(t, tt.yaml)); err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("got %q\nwant %q", got, tt.want)
			}
		})
	}
}
