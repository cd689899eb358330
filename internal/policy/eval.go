package policy

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/tfgate/tfgate/internal/astjson"
)

// Eval evaluates every rule against one plan (`terraform show -json`
// output). The plan is decoded once and shared by all rules. An unreadable
// plan or a rule that fails to evaluate gives VerdictError, which blocks like
// a deny.
func (e *Engine) Eval(ctx context.Context, planJSON []byte, p Project) Result {
	v, err := e.Decode(planJSON)
	if err != nil {
		r := Result{Err: fmt.Errorf("read plan JSON: %w", err)}
		r.finish()
		return r
	}
	return e.EvalValue(ctx, v, p)
}

// Decode converts plan JSON into the value EvalValue takes. Top-level keys
// no policy can read (typically prior_state and planned_values when policies
// only look at resource_changes) are skipped, which saves most of the time
// and memory of a large plan.
func (e *Engine) Decode(planJSON []byte) (ast.Value, error) {
	var keep func(string) bool
	if e.inputKeys != nil {
		keep = func(k string) bool { return e.inputKeys[k] }
	}
	return astjson.DecodeKeeping(planJSON, keep)
}

// Reads reports whether the policies may read the top-level plan key: a plan decoded
// for them (plan.Open) needs only those members. Every key, when some policy reads input
// as a whole or by a computed key.
func (e *Engine) Reads(key string) bool {
	return e.inputPaths.Has(key)
}

// InputPaths is the part of the plan the policies may read, down to the attributes they
// look at (see inputPathsRead): a plan decoded for them (plan.Open) need hold no more.
// Nil is the whole plan.
func (e *Engine) InputPaths() *astjson.Paths { return e.inputPaths }

// EvalValue is Eval for a plan already decoded with Decode (or astjson, or plan.Open),
// so one decoded plan can be evaluated for several projects or repeatedly.
// It stops after the engine's EvalTimeout, or when the heap passes the memory limit
// (SetMemoryLimit).
func (e *Engine) EvalValue(ctx context.Context, plan ast.Value, p Project) Result {
	ctx, cancel := context.WithTimeoutCause(ctx, e.timeout, errTimeout)
	defer cancel()
	ctx, stop := watchMemory(ctx)
	defer stop()
	prints := e.newPrints(p)
	ctx, opts := e.evalInput(ctx, plan, p, prints)
	res := e.evalValue(ctx, opts, prints)
	if len(e.approvals) > 0 && e.stopped(ctx) == nil {
		var err error
		res.Approval, err = e.evalApprovals(ctx, opts)
		if cerr := e.stopped(ctx); cerr != nil {
			res.Err = errors.Join(res.Err, cerr)
		} else if err != nil {
			res.Err = errors.Join(res.Err, err)
		}
	}
	if err := prints.flush(); err != nil {
		res.Err = errors.Join(res.Err, err)
	}
	res.finish()
	return res
}

// errTimeout is the cause of an evaluation's context when EvalTimeout ends it.
var errTimeout = errors.New("policy evaluation timed out")

// risk counts the plan's risk facts when a policy may read them; a plan of 10,000 changes
// takes 15 ms of its evaluation to count. Unread, they stay zero.
func (e *Engine) risk(plan ast.Value) Risk {
	if !e.readsRisk {
		return Risk{ResourceTypes: []string{}}
	}
	return RiskOf(plan)
}

// evalInput puts the plan, the project, the author and the plan's risk facts where the
// queries take them from: the plan as input and the others in ctx for the store, or all
// in input for the `with` modifiers of evalWith.
func (e *Engine) evalInput(ctx context.Context, plan ast.Value, p Project, prints *evalPrints) (context.Context, []rego.EvalOption) {
	docs := [][2]*ast.Term{
		{ast.StringTerm("project"), projectTerm(p)},
		{ast.StringTerm("author"), ast.StringTerm(p.Author)},
		{ast.StringTerm("risk"), riskTerm(e.risk(plan))},
	}
	input := plan
	if e.withDocs {
		input = ast.NewObject(append(docs, [2]*ast.Term{ast.StringTerm("plan"), ast.NewTerm(plan)})...)
	} else {
		ctx = withDocs(ctx, ast.NewObject(docs...))
	}
	opts := []rego.EvalOption{rego.EvalParsedInput(input)}
	if prints != nil {
		opts = append(opts, rego.EvalPrintHook(prints))
	}
	return ctx, opts
}

func (e *Engine) evalValue(ctx context.Context, opts []rego.EvalOption, prints *evalPrints) Result {
	var res Result
	rs, err := e.all.Eval(ctx, opts...)
	if cerr := e.stopped(ctx); cerr != nil {
		// A stopped evaluation may have returned early without an error, or
		// with one from wherever it stopped: neither tells anything.
		res.Err = cerr
		return res
	}
	values, ok := combinedValues(rs, len(e.exceptions)+len(e.rules))
	if err != nil || !ok {
		// Evaluate rule by rule to report which rules failed and keep the
		// findings of the others.
		prints.retry()
		res = e.evalEach(ctx, opts)
		if cerr := e.stopped(ctx); cerr != nil {
			res.Err = errors.Join(cerr, res.Err)
		}
		return res
	}
	excepted := map[string]map[string]bool{}
	for i, x := range e.exceptions {
		names := map[string]bool{}
		collectStrings(values[i], names)
		excepted[x.pkg] = names
	}
	var errs []error
	for i, r := range e.rules {
		if excepted[r.pkg][exceptionName(r.name)] {
			res.Excepted = append(res.Excepted, r.pkg+"."+r.name)
			continue
		}
		v := values[len(e.exceptions)+i]
		if len(v) == 0 {
			continue // undefined: the rule did not fire
		}
		fs, err := findings(v[0], r)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		res.Findings = append(res.Findings, fs...)
	}
	res.Err = errors.Join(errs...)
	return res
}

// stopped explains why ctx ended, if it did: the engine's time limit, the memory
// limit, or the caller's cancellation.
func (e *Engine) stopped(ctx context.Context) error {
	if ctx.Err() == nil {
		return nil
	}
	var mem errMemory
	if errors.As(context.Cause(ctx), &mem) {
		return mem
	}
	if context.Cause(ctx) == errTimeout {
		return fmt.Errorf("policy evaluation exceeded %s; a policy is too expensive for this plan", formatDuration(e.timeout))
	}
	return fmt.Errorf("evaluate policies: %w", ctx.Err())
}

// formatDuration writes whole seconds as "60s" rather than "1m0s".
func formatDuration(d time.Duration) string {
	if d%time.Second == 0 {
		return fmt.Sprintf("%ds", d/time.Second)
	}
	return d.String()
}

// combinedValues unpacks the combined query's result: one array per rule,
// empty when the rule is undefined, else holding its value.
func combinedValues(rs rego.ResultSet, n int) ([][]any, bool) {
	if len(rs) != 1 || len(rs[0].Expressions) != 1 {
		return nil, false
	}
	all, ok := rs[0].Expressions[0].Value.([]any)
	if !ok || len(all) != n {
		return nil, false
	}
	out := make([][]any, n)
	for i, v := range all {
		if out[i], ok = v.([]any); !ok {
			return nil, false
		}
	}
	return out, true
}

// evalEach evaluates rules one query at a time: slower, but a failing rule
// only costs its own findings. It stops when ctx ends, leaving the caller to
// say why.
func (e *Engine) evalEach(ctx context.Context, opts []rego.EvalOption) Result {
	var (
		res  Result
		errs []error
	)
	excepted := map[string]map[string]bool{}
	for _, x := range e.exceptions {
		rs, err := x.query.Eval(ctx, opts...)
		if ctx.Err() != nil {
			break
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s.%s: %w", x.pkg, x.name, err))
			continue
		}
		names := map[string]bool{}
		if len(rs) > 0 {
			collectStrings(rs[0].Expressions[0].Value, names)
		}
		excepted[x.pkg] = names
	}
	for _, r := range e.rules {
		if excepted[r.pkg][exceptionName(r.name)] {
			res.Excepted = append(res.Excepted, r.pkg+"."+r.name)
			continue
		}
		rs, err := r.query.Eval(ctx, opts...)
		if ctx.Err() != nil {
			break
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s.%s: %w", r.pkg, r.name, err))
			continue
		}
		if len(rs) == 0 {
			continue
		}
		fs, err := findings(rs[0].Expressions[0].Value, r)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		res.Findings = append(res.Findings, fs...)
	}
	res.Err = errors.Join(errs...)
	return res
}

func collectStrings(v any, into map[string]bool) {
	switch x := v.(type) {
	case string:
		into[x] = true
	case []any:
		for _, el := range x {
			collectStrings(el, into)
		}
	}
}

// exceptionName is the name conftest exceptions use for a rule.
func exceptionName(rule string) string {
	for _, p := range []string{"deny_", "violation_", "warn_"} {
		if s, ok := strings.CutPrefix(rule, p); ok {
			return s
		}
	}
	return rule
}

func projectTerm(p Project) *ast.Term {
	return ast.ObjectTerm(
		[2]*ast.Term{ast.StringTerm("name"), ast.StringTerm(p.Name)},
		[2]*ast.Term{ast.StringTerm("dir"), ast.StringTerm(p.Dir)},
		[2]*ast.Term{ast.StringTerm("workspace"), ast.StringTerm(p.Workspace)},
		[2]*ast.Term{ast.StringTerm("changed_files"), stringsTerm(p.ChangedFiles)},
	)
}

// findings turns a rule's value into findings. Sets (and arrays) hold one
// finding per element; a single string or object is one finding; true is one
// finding named after the rule; false is none.
func findings(v any, r rule) ([]Finding, error) {
	var out []Finding
	var add func(el any, top bool) error
	add = func(el any, top bool) error {
		f := Finding{Level: r.level, Rule: r.name, Package: r.pkg}
		switch x := el.(type) {
		case string:
			f.Msg = x
		case map[string]any:
			msg, ok := x["msg"].(string)
			if !ok {
				return fmt.Errorf("%s.%s: an object value needs a string \"msg\" key, got %s", r.pkg, r.name, describeKeys(x))
			}
			f.Msg = msg
			a, hasAddress := x["address"].(string)
			f.Address = a
			for k, mv := range x {
				if k == "msg" || (k == "address" && hasAddress) {
					continue
				}
				if f.Metadata == nil {
					f.Metadata = map[string]any{}
				}
				f.Metadata[k] = mv
			}
		case bool:
			if !top {
				return fmt.Errorf("%s.%s: set elements must be strings or objects with \"msg\", got a boolean", r.pkg, r.name)
			}
			if !x {
				return nil
			}
			f.Msg = strings.TrimPrefix(r.pkg, "data.") + "." + r.name
		case []any:
			if !top {
				return fmt.Errorf("%s.%s: set elements must be strings or objects with \"msg\", got an array", r.pkg, r.name)
			}
			for _, sub := range x {
				if err := add(sub, false); err != nil {
					return err
				}
			}
			return nil
		default:
			return fmt.Errorf("%s.%s: value must be a string, an object with \"msg\", or a set of them, got %T", r.pkg, r.name, el)
		}
		out = append(out, f)
		return nil
	}
	if err := add(v, true); err != nil {
		return nil, err
	}
	return out, nil
}

func describeKeys(m map[string]any) string {
	if len(m) == 0 {
		return "an empty object"
	}
	if _, ok := m["msg"]; ok {
		return fmt.Sprintf("msg of type %T", m["msg"])
	}
	return "no msg key"
}

// stringsTerm is ss as a Rego array of strings.
func stringsTerm(ss []string) *ast.Term {
	terms := make([]*ast.Term, len(ss))
	for i, v := range ss {
		terms[i] = ast.StringTerm(v)
	}
	return ast.ArrayTerm(terms...)
}
