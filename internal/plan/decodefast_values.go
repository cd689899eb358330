package plan

import ()

// value reads any JSON value as encoding/json with UseNumber decodes it into an interface{}:
// map[string]interface{}, []interface{}, string, json.Number, bool or nil. A key repeated
// in an object keeps its last value, as encoding/json's does.
func (f *fastDecoder) value() (any, error) {
	l := f.l
	switch c := l.Next(); {
	case c == '{':
		m := map[string]any{}
		err := f.mapMembers(func(key string) error {
			v, err := f.value()
			m[key] = v
			return err
		})
		return m, err
	case c == '[':
		return f.array()
	case c == '"':
		return f.anyString()
	case c == '-' || c >= '0' && c <= '9':
		return f.number()
	case c == 't' || c == 'f' || c == 'n':
		c, err := l.Literal()
		if c == 'n' || err != nil {
			return nil, err
		}
		return c == 't', nil
	}
	return nil, errFallback
}

// array reads the array at Next as an []interface{}, never nil.
func (f *fastDecoder) array() ([]any, error) {
	out := []any{}
	err := f.elements(func() error {
		v, err := f.value()
		out = append(out, v)
		return err
	})
	return out, err
}

func (f *fastDecoder) anyString() (any, error) {
	b, exact, err := f.l.String()
	if err != nil || !exact {
		return nil, errFallback
	}
	return f.intern.box(b, false), nil
}

func (f *fastDecoder) number() (any, error) {
	b, err := f.l.Number()
	if err != nil {
		return nil, err
	}
	return f.intern.box(b, true), nil
}

// plannedValues reads planned_values: its outputs, to encoding/json (they are few).
func (f *fastDecoder) plannedValues(lp *leanPlan) error {
	if null, err := f.null(); null || err != nil {
		return err
	}
	pv := &leanValues{}
	lp.PlannedValues = pv
	return f.members(fastOutputsFields, func(string) error { return f.std(&pv.Outputs) })
}

// priorState reads prior_state: the outputs of its values, to encoding/json.
func (f *fastDecoder) priorState(lp *leanPlan) error {
	if null, err := f.null(); null || err != nil {
		return err
	}
	lp.PriorState = &struct {
		Values *leanPriorValues `json:"values"`
	}{}
	return f.members(fastValuesFields, func(string) error {
		if null, err := f.null(); null || err != nil {
			return err
		}
		v := &leanPriorValues{}
		lp.PriorState.Values = v
		return f.members(fastOutputsFields, func(string) error { return f.std(&v.Outputs) })
	})
}

// configuration reads configuration as leanConfig.UnmarshalJSON does: which root variables
// are declared sensitive.
func (f *fastDecoder) configuration(c *leanConfig) error {
	if null, err := f.null(); null || err != nil {
		return err
	}
	c.present = true
	return f.members(fastRootFields, func(string) error {
		if null, err := f.null(); null || err != nil {
			return err
		}
		return f.members(fastVariablesFields, func(string) error {
			if null, err := f.null(); null || err != nil {
				return err
			}
			return f.sensitiveVariables(c)
		})
	})
}

// sensitiveVariables reads configuration.root_module.variables.
func (f *fastDecoder) sensitiveVariables(c *leanConfig) error {
	seen := map[string]bool{}
	return f.mapMembers(func(name string) error {
		if seen[name] {
			return errFallback
		}
		seen[name] = true
		if null, err := f.null(); null || err != nil {
			return err
		}
		var sensitive bool
		err := f.members(fastSensitiveFields, func(string) error { return f.boolean(&sensitive) })
		if sensitive {
			if c.Variables == nil {
				c.Variables = map[string]bool{}
			}
			c.Variables[name] = true
		}
		return err
	})
}
