package plan

import (
	tfjson "github.com/hashicorp/terraform-json"
)

// The fast path's typed sections: resource changes and output changes (the bulk of what
// tfgate reads), and the small parts of planned_values, prior_state and configuration that
// leanPlan keeps. Each follows encoding/json's rules for its Go type: null leaves a field
// as it is (nil for pointers, slices and maps), an empty array or object makes an empty
// non-nil slice or map, a null element of a slice of pointers is a nil pointer.

var (
	fastResourceChangeFields = []string{
		"address", "previous_address", "module_address", "mode", "type", "name", "index",
		"provider_name", "deposed", "change", "action_reason",
	}
	fastChangeFields = []string{
		"actions", "before", "after", "after_unknown", "before_sensitive", "after_sensitive",
		"importing", "generated_config", "replace_paths", "before_identity", "after_identity",
	}
	fastImportingFields = []string{"id", "unknown", "identity"}
	fastOutputsFields   = []string{"outputs"}
	fastValuesFields    = []string{"values"}
	fastRootFields      = []string{"root_module"}
	fastVariablesFields = []string{"variables"}
	fastSensitiveFields = []string{"sensitive"}
)

func (f *fastDecoder) resourceChanges(p *[]*tfjson.ResourceChange) error {
	if null, err := f.null(); null || err != nil {
		return err
	}
	out := []*tfjson.ResourceChange{}
	err := f.elements(func() error {
		if null, err := f.null(); null || err != nil {
			out = append(out, nil)
			return err
		}
		if len(f.rcs) == 0 {
			f.rcs = make([]tfjson.ResourceChange, 128)
		}
		rc := &f.rcs[0]
		f.rcs = f.rcs[1:]
		out = append(out, rc)
		return f.resourceChange(rc)
	})
	*p = out
	return err
}

// elements reads the array at Next, fn reading each element.
func (f *fastDecoder) elements(fn func() error) error {
	l := f.l
	if l.Next() != '[' {
		return errFallback
	}
	if empty, err := l.ArrayStart(); err != nil || empty {
		return err
	}
	for {
		if err := fn(); err != nil {
			return err
		}
		if last, err := l.ElementEnd(); err != nil || last {
			return err
		}
	}
}

func (f *fastDecoder) resourceChange(rc *tfjson.ResourceChange) error {
	return f.members(fastResourceChangeFields, func(name string) error {
		var err error
		switch name {
		case "address":
			return f.str(&rc.Address)
		case "previous_address":
			return f.str(&rc.PreviousAddress)
		case "module_address":
			return f.str(&rc.ModuleAddress)
		case "mode":
			return f.str((*string)(&rc.Mode))
		case "type":
			return f.str(&rc.Type)
		case "name":
			return f.str(&rc.Name)
		case "index":
			rc.Index, err = f.value()
		case "provider_name":
			return f.str(&rc.ProviderName)
		case "deposed":
			return f.str(&rc.DeposedKey)
		case "action_reason":
			return f.str((*string)(&rc.ActionReason))
		case "change":
			return f.changePtr(&rc.Change)
		}
		return err
	})
}

func (f *fastDecoder) changePtr(p **tfjson.Change) error {
	if null, err := f.null(); null || err != nil {
		return err
	}
	if len(f.changes) == 0 {
		f.changes = make([]tfjson.Change, 128)
	}
	c := &f.changes[0]
	f.changes = f.changes[1:]
	*p = c
	return f.change(c)
}

func (f *fastDecoder) change(c *tfjson.Change) error {
	return f.members(fastChangeFields, func(name string) error {
		var err error
		switch name {
		case "actions":
			return f.actions(&c.Actions)
		case "before":
			c.Before, err = f.value()
		case "after":
			c.After, err = f.value()
		case "after_unknown":
			c.AfterUnknown, err = f.value()
		case "before_sensitive":
			c.BeforeSensitive, err = f.value()
		case "after_sensitive":
			c.AfterSensitive, err = f.value()
		case "importing":
			return f.importing(&c.Importing)
		case "generated_config":
			return f.str(&c.GeneratedConfig)
		case "replace_paths":
			if null, err := f.null(); null || err != nil {
				return err
			}
			c.ReplacePaths, err = f.array()
		case "before_identity":
			c.BeforeIdentity, err = f.value()
		case "after_identity":
			c.AfterIdentity, err = f.value()
		}
		return err
	})
}

func (f *fastDecoder) actions(p *tfjson.Actions) error {
	if null, err := f.null(); null || err != nil {
		return err
	}
	out := tfjson.Actions{}
	err := f.elements(func() error {
		var s string
		err := f.str(&s)
		out = append(out, tfjson.Action(s))
		return err
	})
	*p = out
	return err
}

func (f *fastDecoder) importing(p **tfjson.Importing) error {
	if null, err := f.null(); null || err != nil {
		return err
	}
	im := &tfjson.Importing{}
	*p = im
	return f.members(fastImportingFields, func(name string) error {
		var err error
		switch name {
		case "id":
			return f.str(&im.ID)
		case "unknown":
			return f.boolean(&im.Unknown)
		}
		im.Identity, err = f.value() // "identity"
		return err
	})
}

func (f *fastDecoder) outputChanges(p *map[string]*tfjson.Change) error {
	if null, err := f.null(); null || err != nil {
		return err
	}
	out := map[string]*tfjson.Change{}
	*p = out
	return f.mapMembers(func(name string) error {
		if _, dup := out[name]; dup {
			return errFallback // encoding/json would decode into the first's Change
		}
		var c *tfjson.Change
		err := f.changePtr(&c)
		out[name] = c
		return err
	})
}

// mapMembers reads the object at Next as a map: fn reads the value of each key.
func (f *fastDecoder) mapMembers(fn func(key string) error) error {
	l := f.l
	if l.Next() != '{' {
		return errFallback
	}
	if empty, err := l.ObjectStart(); err != nil || empty {
		return err
	}
	for {
		key, exact, err := l.Key()
		if err != nil || !exact {
			return errFallback
		}
		if err := fn(f.intern.str(key)); err != nil {
			return err
		}
		if last, err := l.MemberEnd(); err != nil || last {
			return err
		}
	}
}
