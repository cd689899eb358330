// Package yamlguard checks a parsed YAML node tree for what yaml.v3 lets through but a
// decoder must not meet: an alias inside the node it names (a merge key merging its own
// mapping recurses for ever), aliases that expand a small file into an enormous one (each
// level of `&aN {<<: [*aM, *aM]}` doubles it), and keys set twice in one mapping.
package yamlguard

import (
	"fmt"

	"gopkg.in/yaml.v3"
)

// MaxExpanded bounds the values a document may hold once its aliases are expanded. A
// configuration or data file written by hand holds a few thousand at most.
const MaxExpanded = 100_000

// Problem is what is wrong, and where: Line and Column are 1-based, from the node.
type Problem struct {
	Line, Column int
	Msg          string
}

func (p *Problem) Error() string { return fmt.Sprintf("line %d: %s", p.Line, p.Msg) }

// Aliases walks n with every alias expanded, stopping at the first alias that refers to a
// node containing it, or when the expansion passes MaxExpanded values. It returns nil or a
// *Problem at the offending alias.
func Aliases(n *yaml.Node) error {
	w := &walker{onPath: map[*yaml.Node]bool{}}
	return w.walk(n)
}

type walker struct {
	onPath map[*yaml.Node]bool // the nodes being walked, from the root down
	count  int
	outer  *yaml.Node // the outermost alias being expanded, which the user wrote last
}

func (w *walker) walk(n *yaml.Node) error {
	if n == nil {
		return nil
	}
	w.count++
	if w.count > MaxExpanded {
		at := n
		if w.outer != nil {
			at = w.outer
		}
		return &Problem{Line: at.Line, Column: at.Column,
			Msg: fmt.Sprintf("aliases expand the file to more than %d values (at *%s); use fewer or smaller anchors", MaxExpanded, at.Value)}
	}
	if n.Kind == yaml.AliasNode {
		target := n.Alias
		if target == nil {
			return nil
		}
		if w.onPath[target] {
			return &Problem{Line: n.Line, Column: n.Column,
				Msg: fmt.Sprintf("*%s refers to &%s (line %d), which contains it: a recursive alias or merge; remove it", n.Value, target.Anchor, target.Line)}
		}
		if w.outer == nil {
			w.outer = n
			defer func() { w.outer = nil }()
		}
		return w.walk(target)
	}
	w.onPath[n] = true
	defer delete(w.onPath, n)
	for _, c := range n.Content {
		if err := w.walk(c); err != nil {
			return err
		}
	}
	return nil
}

// DuplicateKeys returns a *Problem for the first mapping key (in file order) that repeats
// an earlier key of the same mapping, or nil. Merge keys (<<) are not keys and are skipped;
// keys are compared by their text, the way they collide once converted to JSON.
func DuplicateKeys(n *yaml.Node) error {
	seen := map[*yaml.Node]bool{}
	var walk func(n *yaml.Node) error
	walk = func(n *yaml.Node) error {
		if n == nil || seen[n] {
			return nil
		}
		seen[n] = true
		if n.Kind == yaml.MappingNode {
			first := map[string]int{}
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i]
				if k.Kind != yaml.ScalarNode || k.Tag == "!!merge" {
					continue
				}
				if line, dup := first[k.Value]; dup {
					return &Problem{Line: k.Line, Column: k.Column,
						Msg: fmt.Sprintf("key %q is set twice in one mapping (first on line %d); keep one", k.Value, line)}
				}
				first[k.Value] = k.Line
			}
		}
		for _, c := range n.Content {
			if err := walk(c); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(n)
}
