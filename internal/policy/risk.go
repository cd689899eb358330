package policy

import (
	"slices"

	"github.com/open-policy-agent/opa/v1/ast"
)

// Risk is what a plan does, counted by tfgate for the policies (data.tfgate.risk), so that
// an approval rule need not count resource changes itself.
type Risk struct {
	Creates  int `json:"creates"`
	Updates  int `json:"updates"`
	Deletes  int `json:"deletes"`  // deleted, not replaced
	Replaces int `json:"replaces"` // deleted and created again, in either order
	// Destroys is Deletes + Replaces: every object the plan destroys.
	Destroys int `json:"destroys"`
	// ResourceTypes are the types of the managed resources that change, sorted.
	ResourceTypes []string `json:"resource_types"`
	// TagsOnly is true when something changes and every change is an in-place update of
	// tags or labels alone (tags, tags_all, labels, effective_labels, terraform_labels): nothing created, destroyed or
	// otherwise modified, and no other value unknown until apply. Any other change the
	// plan makes (otherChange: a resource forgotten, imported or moved, an output changed,
	// an action invoked, a change deferred) makes it false.
	TagsOnly bool `json:"tags_only"`
}

// tagKeys are the attributes a tags-only update may change.
var tagKeys = map[string]bool{"tags": true, "tags_all": true, "labels": true, "effective_labels": true, "terraform_labels": true}

// RiskOf counts the managed resource changes of a plan (`terraform show -json` as a
// value). Data sources, no-ops and reads are not changes.
func RiskOf(plan ast.Value) Risk {
	r := Risk{ResourceTypes: []string{}}
	obj, _ := plan.(ast.Object)
	var changes *ast.Array
	if obj != nil {
		if t := obj.Get(ast.StringTerm("resource_changes")); t != nil {
			changes, _ = t.Value.(*ast.Array)
		}
	}
	tagsOnly := !otherChange(obj)
	seen := map[string]bool{}
	for i := 0; changes != nil && i < changes.Len(); i++ {
		rc, _ := changes.Elem(i).Value.(ast.Object)
		if rc == nil || str(rc, "mode") != "managed" {
			continue
		}
		change, _ := get(rc, "change").(ast.Object)
		acts := actions(change)
		tagsOnly = tagsOnly && !stateChange(rc, change)
		switch {
		case len(acts) == 2 && slices.Contains(acts, "delete") && slices.Contains(acts, "create"):
			r.Replaces++
		case slices.Equal(acts, []string{"create"}):
			r.Creates++
		case slices.Equal(acts, []string{"update"}):
			r.Updates++
			tagsOnly = tagsOnly && tagsOnlyUpdate(change)
		case slices.Equal(acts, []string{"delete"}):
			r.Deletes++
		case slices.Equal(acts, []string{"no-op"}) || slices.Equal(acts, []string{"read"}):
			continue // not a change
		default:
			tagsOnly = false // forget, create then forget, or unknown: not counted, never tags only
			continue
		}
		if t := str(rc, "type"); !seen[t] {
			seen[t] = true
			r.ResourceTypes = append(r.ResourceTypes, t)
		}
	}
	slices.Sort(r.ResourceTypes)
	r.Destroys = r.Deletes + r.Replaces
	r.TagsOnly = tagsOnly && r.Updates > 0 && r.Creates+r.Destroys == 0
	return r
}

// tagsOnlyUpdate reports whether an update changes nothing but tag attributes.
func tagsOnlyUpdate(change ast.Object) bool {
	before, ok1 := get(change, "before").(ast.Object)
	after, ok2 := get(change, "after").(ast.Object)
	if change == nil || !ok1 || !ok2 {
		return false
	}
	if unknown, ok := get(change, "after_unknown").(ast.Object); ok {
		for _, k := range unknown.Keys() {
			if s, _ := k.Value.(ast.String); !tagKeys[string(s)] && anyTrue(unknown.Get(k).Value) {
				return false
			}
		}
	}
	keys := map[string]bool{}
	for _, o := range []ast.Object{before, after} {
		for _, k := range o.Keys() {
			if s, ok := k.Value.(ast.String); ok {
				keys[string(s)] = true
			} else {
				return false
			}
		}
	}
	for k := range keys {
		if tagKeys[k] {
			continue
		}
		b, a := before.Get(ast.StringTerm(k)), after.Get(ast.StringTerm(k))
		if (b == nil) != (a == nil) || (b != nil && b.Value.Compare(a.Value) != 0) {
			return false
		}
	}
	return true
}

// anyTrue reports whether v (an after_unknown value) marks anything unknown.
func anyTrue(v ast.Value) bool {
	switch x := v.(type) {
	case ast.Boolean:
		return bool(x)
	case ast.Object:
		for _, k := range x.Keys() {
			if anyTrue(x.Get(k).Value) {
				return true
			}
		}
	case *ast.Array:
		for i := 0; i < x.Len(); i++ {
			if anyTrue(x.Elem(i).Value) {
				return true
			}
		}
	}
	return false
}

func get(o ast.Object, key string) ast.Value {
	if o == nil {
		return nil
	}
	if t := o.Get(ast.StringTerm(key)); t != nil {
		return t.Value
	}
	return nil
}

func str(o ast.Object, key string) string {
	s, _ := get(o, key).(ast.String)
	return string(s)
}

func actions(change ast.Object) []string {
	arr, _ := get(change, "actions").(*ast.Array)
	var out []string
	for i := 0; arr != nil && i < arr.Len(); i++ {
		s, _ := arr.Elem(i).Value.(ast.String)
		out = append(out, string(s))
	}
	return out
}

// riskTerm is r as policies read it.
func riskTerm(r Risk) *ast.Term {
	return ast.ObjectTerm(
		[2]*ast.Term{ast.StringTerm("creates"), ast.IntNumberTerm(r.Creates)},
		[2]*ast.Term{ast.StringTerm("updates"), ast.IntNumberTerm(r.Updates)},
		[2]*ast.Term{ast.StringTerm("deletes"), ast.IntNumberTerm(r.Deletes)},
		[2]*ast.Term{ast.StringTerm("replaces"), ast.IntNumberTerm(r.Replaces)},
		[2]*ast.Term{ast.StringTerm("destroys"), ast.IntNumberTerm(r.Destroys)},
		[2]*ast.Term{ast.StringTerm("resource_types"), stringsTerm(r.ResourceTypes)},
		[2]*ast.Term{ast.StringTerm("tags_only"), ast.BooleanTerm(r.TagsOnly)},
	)
}
