package config

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// decoder walks yaml.Node trees by hand rather than unmarshalling into structs: that is
// what lets every problem carry its line, lets unknown keys get a "did you mean", and lets
// one pass collect every problem instead of stopping at the first.
type decoder struct {
	file string
	root string // "" skips the checks that need the repository on disk
	errs Errors
}

func (d *decoder) errorf(n *yaml.Node, format string, args ...any) {
	e := &Error{File: d.file, Msg: fmt.Sprintf(format, args...)}
	if n != nil {
		e.Line, e.Column = n.Line, n.Column
	}
	d.errs = append(d.errs, e)
}

// field is one key a mapping accepts; fn receives the key and its (alias-resolved) value.
// A name ending in "*" accepts every key with that prefix.
type field struct {
	name string
	fn   func(key, val *yaml.Node)
}

type pair struct{ key, val *yaml.Node }

// resolve follows YAML aliases (*anchor) to the node they name.
func resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

// isNull reports whether n is absent or an empty value ("key:" with nothing after it),
// which every field treats as "not set".
func isNull(n *yaml.Node) bool {
	return n == nil || n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

// describe names what a node holds, for "got ..." in messages.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!null":
			return "nothing"
		case "!!str":
			return strconv.Quote(n.Value)
		}
		return n.Value
	}
	return "an unsupported value"
}

// pairs lists a mapping's keys and values, expanding YAML merge keys (<<: *anchor): keys
// written out win over merged ones, and earlier merge sources win over later ones.
func (d *decoder) pairs(n *yaml.Node) []pair {
	var explicit, merged []pair
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], resolve(n.Content[i+1])
		if k.Kind != yaml.ScalarNode || k.Tag != "!!merge" {
			explicit = append(explicit, pair{k, v})
			continue
		}
		sources := []*yaml.Node{v}
		if v.Kind == yaml.SequenceNode {
			sources = sources[:0]
			for _, s := range v.Content {
				sources = append(sources, resolve(s))
			}
		}
		for _, s := range sources {
			if s.Kind != yaml.MappingNode {
				d.errorf(s, "<< can only merge a mapping or a list of mappings, got %s", describe(s))
				continue
			}
			merged = append(merged, d.pairs(s)...)
		}
	}
	have := make(map[string]bool)
	for _, p := range explicit {
		have[p.key.Value] = true
	}
	for _, p := range merged {
		if !have[p.key.Value] {
			have[p.key.Value] = true
			explicit = append(explicit, p)
		}
	}
	return explicit
}

// mapping checks n is a mapping and calls each field's fn for the keys present, in file
// order. where names the mapping in messages ("" at the top level).
func (d *decoder) mapping(n *yaml.Node, where string, fields []field) {
	if n.Kind != yaml.MappingNode {
		d.errorf(n, "%s must be a mapping, got %s", where, describe(n))
		return
	}
	in := ""
	if where != "" {
		in = " in " + where
	}
	var names []string // for suggestions
	for _, f := range fields {
		if !strings.HasSuffix(f.name, "*") {
			names = append(names, f.name)
		}
	}
	seen := make(map[string]int)
	for _, p := range d.pairs(n) {
		if p.key.Kind != yaml.ScalarNode {
			d.errorf(p.key, "keys must be plain words%s, got %s", in, describe(p.key))
			continue
		}
		name := p.key.Value
		if line, dup := seen[name]; dup {
			d.errorf(p.key, "key %q%s is set twice (first on line %d); keep one", name, in, line)
			continue
		}
		seen[name] = p.key.Line
		i := slices.IndexFunc(fields, func(f field) bool {
			p, wild := strings.CutSuffix(f.name, "*")
			return f.name == name || wild && strings.HasPrefix(name, p)
		})
		if i < 0 {
			hint := didYouMean(name, names)
			if hint == "" {
				hint = "; valid keys are " + strings.Join(names, ", ")
			}
			d.errorf(p.key, "unknown key %q%s%s", name, in, hint)
			continue
		}
		fields[i].fn(p.key, p.val)
	}
}

// section decodes an optional nested mapping such as "terraform:".
func (d *decoder) section(n *yaml.Node, where string, fields []field) {
	if isNull(n) {
		return
	}
	d.mapping(n, where, fields)
}

// str reads a string field. Any scalar is accepted as its text, so `version: 1.5` means
// "1.5"; ok is false when the field is unset or not a scalar.
func (d *decoder) str(n *yaml.Node, what string) (string, bool) {
	if isNull(n) {
		return "", false
	}
	if n.Kind != yaml.ScalarNode {
		d.errorf(n, "%s must be a string, got %s", what, describe(n))
		return "", false
	}
	return n.Value, true
}

// integer reads a whole number; a quoted number ("2") is accepted as well.
func (d *decoder) integer(n *yaml.Node, what string) (int, bool) {
	if isNull(n) {
		return 0, false
	}
	if n.Kind == yaml.ScalarNode {
		var i int
		if n.Tag == "!!int" && n.Decode(&i) == nil {
			return i, true
		}
		if i, err := strconv.Atoi(n.Value); n.Tag == "!!str" && err == nil {
			return i, true
		}
	}
	d.errorf(n, "%s must be a whole number, got %s", what, describe(n))
	return 0, false
}

// count reads a whole number that must not be negative.
func (d *decoder) count(n *yaml.Node, what string) (int, bool) {
	i, ok := d.integer(n, what)
	if ok && i < 0 {
		d.errorf(n, "%s must be 0 or more, got %d", what, i)
		return 0, false
	}
	return i, ok
}

func (d *decoder) boolean(n *yaml.Node, what string) (bool, bool) {
	if isNull(n) {
		return false, false
	}
	var b bool
	if n.Kind == yaml.ScalarNode && n.Decode(&b) == nil {
		return b, true
	}
	d.errorf(n, "%s must be true or false, got %s", what, describe(n))
	return false, false
}

// list reads a list of non-empty strings, returning each value with its node so later
// checks can point at the entry's own line. An empty list gives a non-nil empty slice.
func (d *decoder) list(n *yaml.Node, what string) ([]string, []*yaml.Node, bool) {
	if isNull(n) {
		return nil, nil, false
	}
	if n.Kind != yaml.SequenceNode {
		if n.Kind == yaml.ScalarNode {
			d.errorf(n, "%s must be a list, got %s; write [%s]", what, describe(n), n.Value)
		} else {
			d.errorf(n, "%s must be a list, got %s", what, describe(n))
		}
		return nil, nil, false
	}
	vals, nodes := []string{}, []*yaml.Node{}
	for _, item := range n.Content {
		item = resolve(item)
		switch {
		case item.Kind != yaml.ScalarNode:
			d.errorf(item, "%s entries must be strings, got %s", what, describe(item))
		case isNull(item) || strings.TrimSpace(item.Value) == "":
			d.errorf(item, "%s has an empty entry; remove it", what)
		default:
			vals = append(vals, item.Value)
			nodes = append(nodes, item)
		}
	}
	return vals, nodes, true
}
