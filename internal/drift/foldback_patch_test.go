package drift

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPatchHunks(t *testing.T) {
	t.Parallel()
	var src strings.Builder
	for i := 1; i <= 20; i++ {
		fmt.Fprintf(&src, "  a%d = \"x\"\n", i)
	}
	root := t.TempDir()
	write(t, root, "m.tf", src.String()+"  last = 1") // no newline at the end
	edit := func(line int, old, new string) Suggestion {
		return Suggestion{Address: "t.x", Attribute: "a", File: "m.tf", Line: line, Old: old, New: new}
	}
	s := []Suggestion{
		edit(2, `"x"`, `"y"`),
		edit(6, `"x"`, "[\n    1,\n  ]"), // 3 lines between it and line 2: the same hunk
		edit(15, `"x"`, `"z"`),           // a hunk of its own
		edit(21, `1`, `2`),               // 5 lines between it and line 15: the same hunk
		{Address: "t.x", Attribute: "b", Reason: "set by an expression"},
	}
	diff, err := Patch(root, s)
	if err != nil {
		t.Fatal(err)
	}
	want := `diff --git a/m.tf b/m.tf
--- a/m.tf
+++ b/m.tf
@@ -1,9 +1,11 @@
   a1 = "x"
-  a2 = "x"
+  a2 = "y"
   a3 = "x"
   a4 = "x"
   a5 = "x"
-  a6 = "x"
+  a6 = [
+    1,
+  ]
   a7 = "x"
   a8 = "x"
   a9 = "x"
@@ -12,10 +14,10 @@
   a12 = "x"
   a13 = "x"
   a14 = "x"
-  a15 = "x"
+  a15 = "z"
   a16 = "x"
   a17 = "x"
   a18 = "x"
   a19 = "x"
   a20 = "x"
-  last = 1
\ No newline at end of file
+  last = 2
\ No newline at end of file
`
	if diff != want {
		t.Errorf("patch:\n%s\nwant:\n%s", diff, want)
	}
	gitApply(t, root, diff)
	data, err := os.ReadFile(filepath.Join(root, "m.tf"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(string(data), "  a20 = \"x\"\n  last = 2") || !strings.Contains(string(data), "a6 = [\n    1,\n  ]\n") {
		t.Errorf("after the patch:\n%s", data)
	}
}

func TestPatchRefusesStaleAndOverlapping(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write(t, root, "m.tf", "a = \"v1\"\nb = \"v1\"\n")
	if _, err := Patch(root, []Suggestion{{File: "m.tf", Line: 2, Old: `"v9"`, New: `"v2"`}}); err == nil || !strings.Contains(err.Error(), "m.tf:2:") {
		t.Errorf("stale suggestion: err = %v, want one naming m.tf:2", err)
	}
	overlap := []Suggestion{{File: "m.tf", Line: 1, Old: `a = "v1"`, New: `a = 1`}, {File: "m.tf", Line: 1, Old: `"v1"`, New: `"v2"`}}
	if _, err := Patch(root, overlap); err == nil || !strings.Contains(err.Error(), "overlap") {
		t.Errorf("overlapping suggestions: err = %v", err)
	}
	if diff, err := Patch(root, []Suggestion{{Address: "t.x", Reason: "sensitive: edit it by hand"}}); diff != "" || err != nil {
		t.Errorf("nothing to fold: %q, %v", diff, err)
	}
}
