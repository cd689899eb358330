package setup

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A .gitignore is written when there is none; one that exists is never changed, and the
// lines it lacks (other spellings of .terraform/ count) are named.
func TestOfferGitignore(t *testing.T) {
	root := t.TempDir()
	var out bytes.Buffer
	if err := OfferGitignore(root, &out); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(root, ".gitignore"))
	if err != nil {
		t.Fatal(err)
	}
	if missing := MissingGitignoreLines(data); len(missing) != 0 || !strings.Contains(out.String(), "Wrote .gitignore") {
		t.Errorf("written .gitignore lacks %q; said %q", missing, out.String())
	}

	mine := "# mine\n**/.terraform/*\n*.tfstate\n"
	if err := os.WriteFile(filepath.Join(root, ".gitignore"), []byte(mine), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := OfferGitignore(root, &out); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(root, ".gitignore")); string(data) != mine {
		t.Errorf("an existing .gitignore was changed:\n%s", data)
	}
	want := []string{"*.tfstate.*", "crash.log", "crash.*.log", "*.tfplan", "tfplan"}
	if got := MissingGitignoreLines([]byte(mine)); !slices.Equal(got, want) {
		t.Errorf("MissingGitignoreLines = %q, want %q", got, want)
	}
	if !strings.Contains(out.String(), "Add to .gitignore") || !strings.Contains(out.String(), "\n  crash.*.log\n") || strings.Contains(out.String(), ".terraform/") {
		t.Errorf("said %q", out.String())
	}
}
