package notify

import (
	"fmt"

	"github.com/tfgate/tfgate/internal/github"
)

// OpDuplicate closes a record that duplicates the one kept, with a note naming it.
const OpDuplicate Op = "close duplicate"

// Duplicates are the changes that leave a project one record of a kind: every open record
// after the first (Records' order: the one a Tracker acts on) is a copy tfgate itself left
// — an older version, or an answer GitHub lost after the write — and is closed with a note
// pointing to the one kept. Closed extras are history and are left alone. Only tfgate's own
// issues are records (marker and author), so nothing anyone else wrote is touched.
func Duplicates(issues []github.Issue, kind, project string, id github.Identity) []Change {
	rs := Records(issues, kind, project, id)
	if len(rs) < 2 || rs[0].State != "open" {
		return nil
	}
	keep := rs[0]
	var out []Change
	for _, d := range rs[1:] {
		if d.State != "open" {
			continue
		}
		out = append(out, Change{Op: OpDuplicate, Number: d.Number, Body: d.Body,
			Note: fmt.Sprintf("Duplicate of #%d: tfgate keeps one issue per project and closes the others. Follow #%d.", keep.Number, keep.Number)})
	}
	return out
}

// DuplicateNote is what the run's report says about a duplicate closed.
func DuplicateNote(kind, project string, closed, kept int) string {
	return fmt.Sprintf("closed #%d, a duplicate of %s issue #%d for %s (tfgate keeps one issue per project)", closed, kind, kept, project)
}
