package plan

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tfgate/tfgate/internal/golden"
	"github.com/tfgate/tfgate/internal/plan/plangen"
	"github.com/tfgate/tfgate/internal/secret"
)

// TestSummariseHostile summarises a random hostile plan (plangen.Hostile: sensitive and
// unknown markers anywhere, nested lists and maps, keys that need quoting, replace paths,
// every action). The golden was written by Summarise before its rewrite for speed
// (issue 32): the rewrite changes nothing in the model.
func TestSummariseHostile(t *testing.T) {
	masker := secret.NewMasker([]string{"s3cr3t-value 42"}).With("hunter2-secret")
	c, err := Read(plangen.Hostile(5, 50), Options{Masker: masker, MaxValueLen: 300})
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.MarshalIndent(c, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"hunter2-secret", "s3cr3t-value", "stop-commands::pw", "line two", "ünï-secret"} {
		if strings.Contains(string(got), s) {
			t.Fatalf("the summary shows the secret %q", s)
		}
	}
	golden.Check(t, golden.Path(t.Name()), got)
}
