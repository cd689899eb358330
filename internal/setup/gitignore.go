package setup

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// GitignoreLines keep what terraform writes as it runs out of git: its data directory,
// state files (and their backups and lock info), crash logs and plan files. tfgate never
// counts them as a change (git.ChangedFiles); ignored, they also never reach a commit.
var GitignoreLines = []string{".terraform/", "*.tfstate", "*.tfstate.*", "crash.log", "crash.*.log", "*.tfplan", "tfplan"}

// sameAsLine are other spellings of a GitignoreLines entry that ignore the same files.
var sameAsLine = map[string]string{
	".terraform":       ".terraform/",
	"**/.terraform":    ".terraform/",
	"**/.terraform/":   ".terraform/",
	"**/.terraform/*":  ".terraform/",
	"**/.terraform/**": ".terraform/",
}

// gitignoreHeader opens the .gitignore init writes.
const gitignoreHeader = "# terraform's own files (written by `tfgate init`): never commit them.\n"

// OfferGitignore writes root's .gitignore with GitignoreLines when it has none, or says on w
// which of them an existing one lacks; it never changes a .gitignore that exists.
func OfferGitignore(root string, w io.Writer) error {
	path := filepath.Join(root, ".gitignore")
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return writeGitignore(path, w)
	}
	if err != nil {
		return fmt.Errorf("read .gitignore: %w", err)
	}
	missing := MissingGitignoreLines(data)
	if len(missing) == 0 {
		return nil
	}
	_, err = fmt.Fprintf(w, "\nAdd to .gitignore, so that terraform's own files stay out of git:\n  %s\n", strings.Join(missing, "\n  "))
	return err
}

// MissingGitignoreLines are the GitignoreLines that the .gitignore data lacks, compared line
// by line (so a pattern that happens to cover one, such as *, does not count).
func MissingGitignoreLines(data []byte) []string {
	have := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if same, ok := sameAsLine[l]; ok {
			l = same
		}
		have[l] = true
	}
	var missing []string
	for _, l := range GitignoreLines {
		if !have[l] {
			missing = append(missing, l)
		}
	}
	return missing
}

// writeGitignore creates path (failing, not overwriting, should one appear meanwhile).
func writeGitignore(path string, w io.Writer) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("write .gitignore: %w", err)
	}
	_, err = f.WriteString(gitignoreHeader + strings.Join(GitignoreLines, "\n") + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write .gitignore: %w", err)
	}
	_, err = fmt.Fprintln(w, "\nWrote .gitignore: terraform's own files (.terraform/, state, plan files, crash logs) stay out of git.")
	return err
}
