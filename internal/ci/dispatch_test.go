package ci

import (
	"strings"
	"testing"
)

func TestDispatchInputs(t *testing.T) {
	sha := strings.Repeat("a", 40)
	for _, tc := range []struct {
		payload string
		pr      int
		base    string
		err     string
	}{
		{`{"inputs": {"pr": "7", "base": "` + sha + `"}}`, 7, sha, ""},
		{`{"inputs": {"pr": 12}}`, 12, "", ""},
		{`{"inputs": {}}`, 0, "", ""},
		{`{}`, 0, "", ""},
		{`{"inputs": {"pr": ""}}`, 0, "", ""},
		{`{"inputs": {"pr": "seven"}}`, 0, "", `inputs.pr "seven" is not a pull request number`},
		{`{"inputs": {"pr": "-3"}}`, 0, "", "not a pull request number"},
		{`{"inputs": {"pr": "3", "base": "main"}}`, 0, "", `inputs.base "main" is not a commit SHA`},
	} {
		ev, err := ParseEvent("workflow_dispatch", []byte(tc.payload))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want %q", tc.payload, err, tc.err)
			}
			continue
		}
		if err != nil || ev.PRNumber != tc.pr || ev.DispatchBase != tc.base {
			t.Errorf("%s: pr %d base %q, %v; want %d %q", tc.payload, ev.PRNumber, ev.DispatchBase, err, tc.pr, tc.base)
		}
	}
	ev, err := ParseEvent("pull_request", []byte(`{"number": 3, "pull_request": {"number": 3, "labels": [{"name": "tfgate:app"}, {"name": "bug"}],
		"head": {"sha": "`+sha+`", "repo": {"full_name": "a/b"}}, "base": {"sha": "`+sha+`", "repo": {"full_name": "a/b"}}}}`))
	if err != nil || strings.Join(ev.LabelList(), "|") != "tfgate:app|bug" {
		t.Errorf("pull request labels %v, %v", ev.Labels, err)
	}
}
