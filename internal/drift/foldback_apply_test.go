package drift

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tfgate/tfgate/internal/plan"
	"github.com/tfgate/tfgate/internal/testenv"
)

// Edited makes the same edits Patch writes as a diff: applying the diff to the files gives
// Edited's content.
func TestEditedIsThePatch(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		testenv.Missing(t, fmt.Errorf("git: %v (install git)", err))
	}
	root := t.TempDir()
	write(t, root, "a/m.tf", "  a = \"x\"\n  b = 1\n  c = [\n    1,\n  ]\n")
	write(t, root, "b.tf", "  d = true")
	s := []Suggestion{
		{Address: "t.x", Attribute: "a", File: "a/m.tf", Line: 1, Old: `"x"`, New: `"y"`},
		{Address: "t.x", Attribute: "c", File: "a/m.tf", Line: 3, Old: "[\n    1,\n  ]", New: "[]"},
		{Address: "t.y", Attribute: "d", File: "b.tf", Line: 1, Old: "true", New: "false"},
		{Address: "t.z", Attribute: "e", Reason: "set by an expression"},
	}
	got, err := Edited(root, s)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || string(got["a/m.tf"]) != "  a = \"y\"\n  b = 1\n  c = []\n" || string(got["b.tf"]) != "  d = false" {
		t.Fatalf("Edited = %q", got)
	}
	diff, err := Patch(root, s)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("git", "apply", "--unsafe-paths", "--directory=.", "-")
	cmd.Dir, cmd.Stdin = root, strings.NewReader(diff)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git apply: %v\n%s", err, out)
	}
	for f, content := range got {
		on, err := os.ReadFile(filepath.Join(root, f))
		if err != nil || string(on) != string(content) {
			t.Errorf("%s: the patch gives %q, Edited %q", f, on, content)
		}
	}
	if none, err := Edited(root, s[3:]); none != nil || err != nil {
		t.Errorf("no edit: %v, %v", none, err)
	}
}

// Unfoldable: a resource created or deleted outside Terraform, or an attribute without an
// edit, keeps the drift from being folded back whole.
func TestUnfoldable(t *testing.T) {
	t.Parallel()
	update := plan.Resource{Address: "t.x", Mode: "managed", Action: plan.ActionUpdate}
	edit := Suggestion{Address: "t.x", Attribute: "a", File: "m.tf", Line: 1, Old: "1", New: "2"}
	for _, c := range []struct {
		drifted []plan.Resource
		s       []Suggestion
		want    string
	}{
		{[]plan.Resource{update}, []Suggestion{edit}, ""},
		{[]plan.Resource{update, {Address: "t.gone", Mode: "managed", Action: plan.ActionDelete}}, []Suggestion{edit}, "t.gone: deleted outside Terraform"},
		{[]plan.Resource{update, {Address: "data.t.d", Mode: "data", Action: plan.ActionRead}}, []Suggestion{edit}, ""},
		{[]plan.Resource{update}, []Suggestion{edit, {Address: "t.x", Attribute: "secret", Reason: "sensitive: edit it by hand"}},
			"t.x.secret: sensitive: edit it by hand"},
	} {
		if got := Unfoldable(c.drifted, c.s); got != c.want {
			t.Errorf("Unfoldable = %q, want %q", got, c.want)
		}
	}
}
