package doctor

import (
	"strings"
	"testing"
)

// A drift job that opens fold-back pull requests needs contents: write and pull-requests:
// write besides issues: write; without the flag, drift's own permissions suffice.
func TestFoldBackPermissions(t *testing.T) {
	for _, c := range []struct {
		steps string
		want  []string
	}{
		{"      - uses: tfgate/tfgate@v1\n        with:\n          command: drift\n          args: --report github --fold-back-pr\n",
			[]string{"(tfgate drift --fold-back-pr) needs contents: write, has read", "(tfgate drift --fold-back-pr) needs pull-requests: write, has none"}},
		{"      - run: tfgate drift --fold-back-pr\n", []string{"(tfgate drift --fold-back-pr) needs contents: write, has read"}},
		{"      - uses: tfgate/tfgate@v1\n        with:\n          command: drift\n          args: --report github\n", nil},
	} {
		wf := parseWorkflow("drift.yml", []byte("on: schedule\npermissions:\n  contents: read\n  issues: write\njobs:\n  drift:\n    steps:\n"+c.steps))
		if wf.err != nil {
			t.Fatal(wf.err)
		}
		msg := ""
		for _, f := range checkWorkflows(Options{}, workflows{files: []workflow{wf}}) {
			if f.Check == "permissions" {
				msg = f.Message
			}
		}
		for _, w := range c.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%q: permissions %q lack %q", c.steps, msg, w)
			}
		}
		if c.want == nil && strings.Contains(msg, "drift") {
			t.Errorf("%q: %q", c.steps, msg)
		}
	}
}
