package policy

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
	"github.com/open-policy-agent/opa/v1/tester"
)

// testTimeout bounds each Rego test.
const testTimeout = 2 * time.Minute

// Test runs the policies' unit tests (rules named test_*, usually in
// *_test.rego files beside the policies) like `opa test`: same sandbox as
// evaluation, built-in errors raised, and a report written to w in opa's
// format (every test with verbose, otherwise failures and the summary).
// Results are reported in file order so the output is stable. It returns an
// error when the policies do not compile or there are no tests.
func Test(ctx context.Context, src Source, w io.Writer, verbose bool) (passed, failed int, err error) {
	caps := sandboxCapabilities()
	l, err := loadSource(src, caps, true)
	if err != nil {
		return 0, 0, err
	}
	store := inmem.NewFromObjectWithOpts(l.docs, inmem.OptRoundTripOnWrite(false), inmem.OptReturnASTValuesOnRead(true))
	txn, err := store.NewTransaction(ctx)
	if err != nil {
		return 0, 0, fmt.Errorf("test policies: %w", err)
	}
	defer store.Abort(ctx, txn)

	compiler := ast.NewCompiler().WithCapabilities(caps).WithEnablePrintStatements(true)
	runner := tester.NewRunner().
		SetCompiler(compiler).
		SetStore(store).
		SetModules(l.modules).
		CapturePrintOutput(true).
		RaiseBuiltinErrors(true).
		EnableTracing(true). // so failures show the failing expression
		// opa test's 5 s default fails slow tests on a loaded CI machine (tracing and -race
		// slow them down); a test that is really stuck still ends.
		SetTimeout(testTimeout)
	// A test can build a value as huge as a policy can: the same memory limit stops it.
	ctx, stop := watchMemory(ctx)
	defer stop()
	ch, err := runner.RunTests(ctx, txn)
	if err != nil {
		var astErrs ast.Errors
		if errors.As(err, &astErrs) {
			err = compileErrors(astErrs)
		}
		return 0, 0, fmt.Errorf("compile policies%s:\n%w", src.where(), err)
	}

	var results []*tester.Result
	for r := range ch {
		results = append(results, r)
	}
	var mem errMemory
	if errors.As(context.Cause(ctx), &mem) {
		return 0, 0, fmt.Errorf("test policies: %w", mem)
	}
	if len(results) == 0 {
		return 0, 0, fmt.Errorf("test policies: no tests (rules named test_*) found in %s", src.place())
	}
	slices.SortFunc(results, func(a, b *tester.Result) int {
		return cmp.Or(
			cmp.Compare(a.Location.File, b.Location.File),
			cmp.Compare(a.Location.Row, b.Location.Row),
			cmp.Compare(a.Name, b.Name),
		)
	})
	for _, r := range results {
		switch {
		case r.Skip:
		case r.Pass():
			passed++
		default:
			failed++
		}
	}

	sorted := make(chan *tester.Result, len(results))
	for _, r := range results {
		sorted <- r
	}
	close(sorted)
	rep := tester.PrettyReporter{Output: w, Verbose: verbose, FailureLine: true}
	if err := rep.Report(sorted); err != nil {
		return passed, failed, fmt.Errorf("report policy tests: %w", err)
	}
	return passed, failed, nil
}

// place names where the policies are, in a sentence: "policies", "a and b (base commit
// 3f2c1aa)", or only the name when the paths are the whole of FS ("pols", not ". (pols)").
func (s Source) place() string {
	if len(s.Paths) == 1 && path.Clean(s.Paths[0]) == "." && s.Name != "" {
		return s.Name
	}
	return joinPaths(s.Paths) + s.where()
}

// joinPaths names policy paths in a sentence: "policies", "a and b", "a, b and c".
func joinPaths(paths []string) string {
	if len(paths) < 2 {
		return strings.Join(paths, "")
	}
	return strings.Join(paths[:len(paths)-1], ", ") + " and " + paths[len(paths)-1]
}
