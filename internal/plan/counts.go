package plan

import (
	"fmt"
	"strings"

	"github.com/tfgate/tfgate/internal/english"
)

// Counts is the summary as the comment's headings and the gate's reasons show it, only the
// kinds that occur: "+2 ~1 -1 ±1 <=1 2 outputs", or "no changes".
func (s Summary) Counts() string {
	var out []string
	for _, k := range []struct {
		sym string
		n   int
	}{{"+", s.Add}, {"~", s.Change}, {"-", s.Destroy}, {"±", s.Replace}, {"⇐", s.Import}, {"→", s.Move},
		{"<=", s.Read}, {"⊘", s.Forget}, {"!", s.Actions}} {
		if k.n > 0 {
			out = append(out, fmt.Sprintf("%s%d", k.sym, k.n))
		}
	}
	if s.Outputs > 0 {
		out = append(out, english.Plural(s.Outputs, "output", "outputs"))
	}
	if len(out) == 0 {
		return "no changes"
	}
	return strings.Join(out, " ")
}
