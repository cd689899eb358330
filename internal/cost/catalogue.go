package cost

import (
	"fmt"
	"path"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

// Catalogue is a price list read from policy data (data.tfgate.prices): a monthly price
// per resource type, narrowed by attribute values. Entries are tried in order; the first
// whose type and selectors all match prices the resource.
type Catalogue struct {
	File     string // the data file it was read from
	Where    string // where the file was read ("base commit 3f2c1aa (origin/main)"); "" for the working tree
	Currency string
	Entries  []Entry
}

// Entry prices the resources of one type (a glob: "aws_iam_*") whose attributes match.
type Entry struct {
	Type    string
	Match   []Selector
	Monthly Money
	Line    int
}

// Selector requires an attribute (a path into the resource's values, "input.instance_type",
// "tags.size", "disks.0.type") to hold a value, compared as text.
type Selector struct {
	Path  string
	Value string
}

var currencyCode = regexp.MustCompile(`^[A-Z]{3}$`)

// maxEntries bounds a catalogue: thousands of entries are tried for every resource.
const maxEntries = 10000

// parseCatalogue reads the catalogue node (the value of tfgate.prices) of file. Every
// problem names the file, its line and the key.
func parseCatalogue(file string, n *yaml.Node) (*Catalogue, error) {
	c := &Catalogue{File: file}
	where := func(n *yaml.Node, key string) string { return fmt.Sprintf("%s:%d: tfgate.prices%s", file, n.Line, key) }
	if n.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s must be an object (currency, resources)", where(n, ""))
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i].Value, n.Content[i+1]
		seen[k] = true
		switch k {
		case "currency":
			if v.Kind != yaml.ScalarNode || !currencyCode.MatchString(v.Value) {
				return nil, fmt.Errorf("%s must be a currency code such as \"USD\", got %s", where(v, ".currency"), show(v))
			}
			c.Currency = v.Value
		case "note":
			if v.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("%s must be a string", where(v, ".note"))
			}
		case "resources":
			if v.Kind != yaml.SequenceNode {
				return nil, fmt.Errorf("%s must be a list of entries", where(v, ".resources"))
			}
			if len(v.Content) > maxEntries {
				return nil, fmt.Errorf("%s has %d entries (at most %d)", where(v, ".resources"), len(v.Content), maxEntries)
			}
			for j, e := range v.Content {
				entry, err := parseEntry(e, func(n *yaml.Node, key string) string {
					return where(n, fmt.Sprintf(".resources[%d]%s", j, key))
				})
				if err != nil {
					return nil, err
				}
				c.Entries = append(c.Entries, entry)
			}
		default:
			return nil, fmt.Errorf("%s: %q is not a catalogue key (currency, resources, note)", where(n.Content[i], ""), k)
		}
	}
	for _, k := range []string{"currency", "resources"} {
		if !seen[k] {
			return nil, fmt.Errorf("%s has no %q", where(n, ""), k)
		}
	}
	return c, nil
}

func parseEntry(n *yaml.Node, where func(*yaml.Node, string) string) (Entry, error) {
	e := Entry{Line: n.Line}
	if n.Kind != yaml.MappingNode {
		return e, fmt.Errorf("%s must be an object (type, match, monthly)", where(n, ""))
	}
	var hasType, hasMonthly bool
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i].Value, n.Content[i+1]
		switch k {
		case "type":
			if !isString(v) || v.Value == "" {
				return e, fmt.Errorf("%s must be a resource type, got %s", where(v, ".type"), show(v))
			}
			if _, err := path.Match(v.Value, ""); err != nil {
				return e, fmt.Errorf("%s: %q is not a valid pattern", where(v, ".type"), v.Value)
			}
			e.Type, hasType = v.Value, true
		case "match":
			sel, err := parseMatch(v, where)
			if err != nil {
				return e, err
			}
			e.Match = sel
		case "monthly":
			m, err := monthly(v)
			if err != nil {
				return e, fmt.Errorf("%s %w", where(v, ".monthly"), err)
			}
			e.Monthly, hasMonthly = m, true
		default:
			return e, fmt.Errorf("%s: %q is not an entry key (type, match, monthly)", where(n.Content[i], ""), k)
		}
	}
	if !hasType || !hasMonthly {
		return e, fmt.Errorf("%s needs a \"type\" and a \"monthly\" price", where(n, ""))
	}
	return e, nil
}

func parseMatch(v *yaml.Node, where func(*yaml.Node, string) string) ([]Selector, error) {
	if v.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s must be an object of attribute paths and values", where(v, ".match"))
	}
	var out []Selector
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i].Value, v.Content[i+1]
		key := fmt.Sprintf(".match[%q]", k)
		if k == "" || strings.Contains(k, "..") || strings.HasPrefix(k, ".") || strings.HasSuffix(k, ".") {
			return nil, fmt.Errorf("%s: the attribute path must be names joined by dots", where(v.Content[i], key))
		}
		if val.Kind != yaml.ScalarNode || val.Tag == "!!null" {
			return nil, fmt.Errorf("%s must be a string, number or boolean, got %s", where(val, key), show(val))
		}
		out = append(out, Selector{Path: k, Value: val.Value})
	}
	return out, nil
}

// monthly reads a price: a JSON number or a decimal string, at least 0, to the cent.
func monthly(v *yaml.Node) (Money, error) {
	if v.Kind != yaml.ScalarNode || (v.Tag != "!!int" && v.Tag != "!!float" && v.Tag != "!!str") {
		return 0, fmt.Errorf("must be a number, got %s", show(v))
	}
	m, err := parseMoney(v.Value, true)
	if err != nil {
		return 0, fmt.Errorf("must be a price to the cent: %w", err)
	}
	if m < 0 {
		return 0, errNegative
	}
	return m, nil
}

func isString(v *yaml.Node) bool { return v.Kind == yaml.ScalarNode && v.Tag == "!!str" }

// show describes a node in a message: its value when it is a short scalar, else its kind.
func show(v *yaml.Node) string {
	switch v.Kind {
	case yaml.MappingNode:
		return "an object"
	case yaml.SequenceNode:
		return "a list"
	}
	if v.Tag == "!!null" {
		return "no value"
	}
	s := v.Value
	if len(s) > 40 {
		s = s[:37] + "..."
	}
	return fmt.Sprintf("%q", s)
}
