package stage

import (
	"fmt"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tfgate/tfgate/internal/english"
	"github.com/tfgate/tfgate/internal/project"
)

// explain adds to a failed stage's error, for each file it names that the checkout has but
// the tree does not, why terraform could not read it and how to bring it into the review;
// and for a file it names by its path in the checkout, that terraform cannot reach the
// checkout.
func (s *scope) explain(err error, root string, p project.Project) error {
	if s == nil {
		return err
	}
	var missing, byCheckout []string
	seen := map[string]bool{}
	for _, word := range strings.FieldsFunc(err.Error(), func(c rune) bool {
		return strings.ContainsRune(" \t\n\"'`:,;()[]{}", c)
	}) {
		f, checkout, ok := s.mentioned(word, root, p)
		if !ok || seen[f] || f == ".git" || strings.HasPrefix(f, ".git/") || !regularFile(filepath.Join(root, filepath.FromSlash(f))) {
			continue
		}
		seen[f] = true
		switch {
		case !regularFile(s.path(f)):
			missing = append(missing, f)
		case checkout:
			byCheckout = append(byCheckout, f)
		}
	}
	var notes []string
	if len(missing) > 0 {
		sort.Strings(missing)
		notes = append(notes, outOfScope(missing, p.Name))
	}
	if len(byCheckout) > 0 {
		sort.Strings(byCheckout)
		notes = append(notes, fmt.Sprintf("%s %s read by %s path in the checkout, which terraform cannot reach: it runs in a copy of what the review covers; read %s relative to the project (path.module)",
			strings.Join(byCheckout, ", "), english.Agree(len(byCheckout), "was", "were"), english.Agree(len(byCheckout), "its", "their"), english.Agree(len(byCheckout), "it", "them")))
	}
	if len(notes) == 0 {
		return err
	}
	return fmt.Errorf("%w\n%s", err, strings.Join(notes, "\n"))
}

// mentioned is the root-relative file a word of terraform's output names: relative to the
// project's directory, or an absolute path in the tree or in the checkout (checkout).
func (s *scope) mentioned(word, root string, p project.Project) (f string, checkout, ok bool) {
	if !strings.ContainsAny(word, "/.") || strings.Contains(word, "://") {
		return "", false, false
	}
	if !filepath.IsAbs(word) {
		f := path.Clean(path.Join(p.Dir, word))
		return f, false, f != "." && f != ".."
	}
	for _, base := range []string{s.root, root} {
		if rel, err := filepath.Rel(base, filepath.Clean(word)); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(rel), base == root, true
		}
	}
	return "", false, false
}

// outOfScope says why terraform found none of files (root-relative) in project's tree.
func outOfScope(files []string, project string) string {
	return fmt.Sprintf("%s %s in the repository but not in what a review of %s covers, so terraform cannot read %s: a change to %s would not need this project's approvals. Make %s an input of the project (put it in the project's directory or a local module it uses, or list it in var_files), or, outside every project, take it out of ignore: so that a change to it needs a review",
		strings.Join(files, ", "), english.Agree(len(files), "is", "are"), project,
		english.Agree(len(files), "it", "them"), english.Agree(len(files), "it", "them"), english.Agree(len(files), "it", "them"))
}
