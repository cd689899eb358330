package drift

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tfgate/tfgate/internal/plan"
)

// Edited returns the whole new content of every file the foldable suggestions edit (paths
// relative to root, as in Patch), the same edits Patch writes as a diff; nil when there is
// none. It fails as Patch does.
func Edited(root string, s []Suggestion) (map[string][]byte, error) {
	byFile := map[string][]Suggestion{}
	for _, sg := range s {
		if sg.Foldable() && sg.Old != sg.New {
			byFile[sg.File] = append(byFile[sg.File], sg)
		}
	}
	if len(byFile) == 0 {
		return nil, nil
	}
	out := map[string][]byte{}
	for file, ss := range byFile {
		src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(file)))
		if err != nil {
			return nil, fmt.Errorf("patch %s: %w", file, err)
		}
		edits, err := placeEdits(file, src, ss)
		if err != nil {
			return nil, err
		}
		var b strings.Builder
		at := 0
		for _, e := range edits {
			b.Write(src[at:e.off])
			b.WriteString(e.new)
			at = e.off + len(e.old)
		}
		b.Write(src[at:])
		out[file] = []byte(b.String())
	}
	return out, nil
}

// Unfoldable says why a project's drift cannot be folded back whole — the code made to say
// what the infrastructure is, so that a plan of it proposes nothing: a resource created or
// deleted outside Terraform, or an attribute without an edit (Suggestion.Reason). "" when
// every drifted attribute has its edit.
func Unfoldable(drifted []plan.Resource, s []Suggestion) string {
	var why []string
	for _, r := range drifted {
		if r.Mode != "data" && r.Action != plan.ActionUpdate && r.Action != plan.ActionNoop {
			why = append(why, fmt.Sprintf("%s: %s outside Terraform", r.Address, pastTense(r.Action)))
		}
	}
	for _, sg := range s {
		if !sg.Foldable() {
			why = append(why, sg.String())
		}
	}
	sort.Strings(why)
	return strings.Join(why, "; ")
}

func pastTense(a plan.Action) string {
	switch a {
	case plan.ActionDelete:
		return "deleted"
	case plan.ActionCreate:
		return "created"
	case plan.ActionReplace:
		return "replaced"
	}
	return string(a)
}
