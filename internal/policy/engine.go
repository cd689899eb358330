// Package policy evaluates Terraform plans against OPA (Rego) policies: it
// loads and compiles policies once, evaluates many plans with them
// concurrently, runs the policies' own unit tests, and formats results.
//
// Conventions follow conftest so existing policy libraries work: in any
// package, rules named deny, violation or warn, optionally with a suffix
// (deny_public_ingress), produce findings; a rule's value is a string, an
// object with "msg" (other keys become metadata, "address" names the
// resource), a set of those, or true. The plan JSON is `input`; the project
// being evaluated is `data.tfgate.project`. Policies run sandboxed (see
// blockedBuiltins) and every failure is closed: what cannot be evaluated denies.
package policy

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
	"github.com/tfgate/tfgate/internal/astjson"
	"github.com/tfgate/tfgate/internal/secret"
)

// Options tune Load.
type Options struct {
	// PrintWriter receives the output of print() calls in policies, one line
	// per call prefixed with the project and the call's file:line, masked
	// with the project's Masker. An evaluation's lines are written together
	// when it ends, each once (see evalPrints). Nil compiles print() away.
	PrintWriter io.Writer
	// EvalTimeout bounds each evaluation of one plan (Eval, EvalValue); 0
	// (or less) means DefaultEvalTimeout. A policy can be made arbitrarily
	// expensive (numbers.range(1, 3e7) takes most of a minute and gigabytes),
	// and an evaluation that runs out of time gives VerdictError.
	EvalTimeout time.Duration
}

// DefaultEvalTimeout is the EvalTimeout used when Options leaves it 0.
const DefaultEvalTimeout = 60 * time.Second

// Project identifies the plan being evaluated; policies read it as
// data.tfgate.project.
type Project struct {
	Name         string   `json:"name"`
	Dir          string   `json:"dir"`
	Workspace    string   `json:"workspace"`
	ChangedFiles []string `json:"changed_files"`
	// Author is the login of the pull request's author (data.tfgate.author); "" when the
	// plan is of no pull request.
	Author string `json:"-"`
	// Masker hides the plan's sensitive values in the output of print() calls
	// (policies read the raw plan, so anything they print may quote a secret).
	Masker *secret.Masker `json:"-"`
}

// Engine holds compiled, prepared policies. Eval is safe for concurrent use.
type Engine struct {
	rules      []rule
	exceptions []rule
	approvals  []rule // approval rules (approval.go), evaluated after the others
	// all evaluates every exception and rule in one query, in that order.
	all   rego.PreparedEvalQuery
	files []string
	// inputKeys are the top-level plan keys the policies read; nil means the
	// whole plan (some policy reads input as a whole or by a computed key).
	inputKeys map[string]bool
	// inputPaths is the part of the plan the policies read (inputPathsRead); nil is the
	// whole plan.
	inputPaths *astjson.Paths
	// readsRisk is false when no policy can read data.tfgate.risk: it is then not counted.
	readsRisk bool
	// withDocs puts the plan and data.tfgate's documents in place with `with` modifiers
	// (evalWith), for policies that define rules where those documents go; otherwise the
	// plan is the input and the store serves the documents (evalStore).
	withDocs bool
	printer  *printer
	timeout  time.Duration
}

type rule struct {
	pkg   string // "data.tfgate.rules.protected_resources"
	name  string // "deny_delete"
	ref   ast.Ref
	level Level
	// query evaluates this rule alone, to tell which rule failed when the
	// combined query fails.
	query rego.PreparedEvalQuery
}

// ruleName matches the rule names conftest evaluates.
var ruleName = regexp.MustCompile(`^(deny|violation|warn)(_[a-zA-Z0-9]+)*$`)

// evalWith ends every query of policies that define rules at data.tfgate.project, author
// or risk (see evalStore). The plan and the project then travel together in input so one
// immutable store serves every evaluation; the with modifiers put them where policies
// expect them, over those rules.
const evalWith = " with input as input.plan with data.tfgate.project as input.project" +
	" with data.tfgate.author as input.author with data.tfgate.risk as input.risk"

// Load reads, compiles and prepares the policies in src. It fails on any
// parse or compile error (with file:line), on a call to a blocked built-in,
// and when src holds no policy at all.
func Load(ctx context.Context, src Source, opts Options) (*Engine, error) {
	caps := sandboxCapabilities()
	l, err := loadSource(src, caps, false)
	if err != nil {
		return nil, err
	}
	store := evalStore{inmem.NewFromObjectWithOpts(l.docs, inmem.OptRoundTripOnWrite(false), inmem.OptReturnASTValuesOnRead(true))}
	compiler, err := compile(ctx, store, caps, l.modules, opts.PrintWriter != nil)
	if err != nil {
		return nil, fmt.Errorf("compile policies%s:\n%w", src.where(), err)
	}

	e := &Engine{files: l.files, timeout: opts.EvalTimeout, withDocs: definesTfgateDocs(compiler)}
	if e.timeout <= 0 {
		e.timeout = DefaultEvalTimeout
	}
	if opts.PrintWriter != nil {
		e.printer = &printer{w: opts.PrintWriter}
	}
	prepare := e.preparer(ctx, compiler, store, caps)
	if err := e.collectRules(compiler, l.files, prepare); err != nil {
		return nil, err
	}
	if len(e.rules)+len(e.approvals) == 0 {
		return nil, fmt.Errorf("load policies: %s%s define no deny, violation, warn or approval rules", strings.Join(src.Paths, ", "), src.where())
	}
	// One query evaluates every rule, so helper rules the policies share
	// (e.g. the set of changed resources) are computed once per plan.
	parts := make([]string, 0, len(e.exceptions)+len(e.rules))
	for _, r := range append(slices.Clone(e.exceptions), e.rules...) {
		parts = append(parts, fmt.Sprintf("[__v | __v := %s]", r.ref))
	}
	if e.all, err = prepare("[" + strings.Join(parts, ", ") + "]"); err != nil {
		return nil, fmt.Errorf("prepare policies: %w", err)
	}
	e.readsRisk = len(e.approvals) > 0 || readsRisk(compiler)
	e.inputKeys = inputKeysRead(compiler)
	e.inputPaths = e.pathsRead(compiler)
	if e.inputKeys != nil && e.readsRisk {
		for _, k := range riskKeys { // data.tfgate.risk is counted from them
			e.inputKeys[k] = true
		}
	}
	return e, nil
}

// preparer returns the function preparing the engine's queries.
func (e *Engine) preparer(ctx context.Context, compiler *ast.Compiler, store storage.Store, caps *ast.Capabilities) func(string) (rego.PreparedEvalQuery, error) {
	with := ""
	if e.withDocs {
		with = evalWith
	}
	return func(query string) (rego.PreparedEvalQuery, error) {
		body, err := ast.ParseBody(query + with)
		if err != nil {
			return rego.PreparedEvalQuery{}, fmt.Errorf("build query %s: %w", query, err)
		}
		return rego.New(
			rego.Compiler(compiler),
			rego.Store(store),
			rego.ParsedQuery(body),
			rego.Capabilities(caps),
			rego.StrictBuiltinErrors(true),
			rego.EnablePrintStatements(e.printer != nil),
		).PrepareForEval(ctx)
	}
}

// collectRules prepares a query for each rule of files the engine evaluates: findings
// (deny, violation, warn and their suffixed forms), conftest exceptions, approval rules.
func (e *Engine) collectRules(compiler *ast.Compiler, files []string, prepare func(string) (rego.PreparedEvalQuery, error)) error {
	seen := map[string]bool{}
	for _, name := range files {
		m := compiler.Modules[name]
		for _, r := range m.Rules {
			if len(r.Head.Args) > 0 { // functions are helpers, not findings
				continue
			}
			short := r.Head.Ref()[0].Value.(ast.Var).String()
			ref := m.Package.Path.Append(ast.StringTerm(short))
			if seen[ref.String()] || !(ruleName.MatchString(short) || short == "exception" || approvalName.MatchString(short)) {
				continue
			}
			seen[ref.String()] = true
			pq, err := prepare(ref.String())
			if err != nil {
				return fmt.Errorf("prepare %s: %w", ref, err)
			}
			rl := rule{pkg: m.Package.Path.String(), name: short, ref: ref, level: levelOf(short), query: pq}
			switch {
			case short == "exception":
				e.exceptions = append(e.exceptions, rl)
			case approvalName.MatchString(short):
				e.approvals = append(e.approvals, rl)
			default:
				e.rules = append(e.rules, rl)
			}
		}
	}
	return nil
}

func compile(ctx context.Context, store storage.Store, caps *ast.Capabilities, modules map[string]*ast.Module, enablePrint bool) (*ast.Compiler, error) {
	txn, err := store.NewTransaction(ctx)
	if err != nil {
		return nil, err
	}
	defer store.Abort(ctx, txn)
	c := ast.NewCompiler().
		WithCapabilities(caps).
		WithEnablePrintStatements(enablePrint).
		WithPathConflictsCheck(storage.NonEmpty(ctx, store, txn))
	if c.Compile(modules); c.Failed() {
		return nil, compileErrors(c.Errors)
	}
	return c, nil
}

func levelOf(name string) Level {
	if strings.HasPrefix(name, "warn") {
		return LevelWarn
	}
	return LevelDeny
}

// Files returns the policy files the engine compiled, sorted.
func (e *Engine) Files() []string { return e.files }

// Rules returns the evaluated rules as "package.rule", in evaluation order.
func (e *Engine) Rules() []string {
	out := make([]string, len(e.rules))
	for i, r := range e.rules {
		out[i] = r.pkg + "." + r.name
	}
	return out
}
