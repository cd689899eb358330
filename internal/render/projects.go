package render

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/tfgate/tfgate/internal/english"
	"github.com/tfgate/tfgate/internal/project"
)

// ProjectsOptions tune the `tfgate projects` table.
type ProjectsOptions struct {
	TextOptions
	Changed bool   // the list is filtered by change detection
	Base    string // the ref it was compared with
}

// ProjectsTable lists projects as an aligned table, every cell escaped (directory names can
// hold anything). why[i], when given, is the changed file that touched project i. On a
// terminal the table keeps within its width: a long list of modules reads "3 modules" (the
// JSON has them all), and a cell that still does not fit is shortened; in a log or a file
// nothing is cut.
func ProjectsTable(w io.Writer, ps []project.Project, why []string, opts ProjectsOptions) error {
	t := newTextWriter(w, opts.TextOptions)
	if len(ps) == 0 {
		if opts.Changed {
			t.line(fmt.Sprintf("No project is affected by the change since %s.", clean(opts.Base)))
		} else {
			t.line("No projects found.")
		}
		return t.flush()
	}
	header := []string{"NAME", "DIR", "WORKSPACE", "MODE", "MODULES"}
	if len(why) > 0 {
		header = append(header, "CHANGED BY")
	}
	rows := make([][]string, len(ps))
	for i, p := range ps {
		rows[i] = []string{clean(p.Name), clean(p.Dir), clean(p.Workspace), clean(string(p.Mode)), moduleCell(p.Modules, false)}
		if len(why) > 0 {
			rows[i] = append(rows[i], clean(whyAt(why, i)))
		}
	}
	widths := columnWidths(header, rows)
	if !t.terminal { // a log or a file: nothing is cut
		t.line(tableRow(header, widths))
		for _, r := range rows {
			t.line(tableRow(r, widths))
		}
		t.problems(ps)
		return t.flush()
	}
	if sum(widths)+2*(len(widths)-1) > t.width {
		for i, p := range ps { // summarise long module lists first
			rows[i][4] = moduleCell(p.Modules, true)
		}
		widths = columnWidths(header, rows)
	}
	// Still too wide: the widest column gives way a character at a time, never below 8.
	for over := sum(widths) + 2*(len(widths)-1) - t.width; over > 0; over-- {
		col := widestShrinkable(widths)
		if col < 0 {
			break
		}
		widths[col]--
	}
	t.line(tableRow(header, widths))
	for _, r := range rows {
		t.line(tableRow(r, widths))
	}
	t.problems(ps)
	return t.flush()
}

// problems lists what was found wrong reading each project's files.
func (t *textWriter) problems(ps []project.Project) {
	for _, p := range ps {
		for _, problem := range p.Problems {
			t.line("")
			t.line("! " + clean(p.Name) + ": " + clean(problem))
		}
	}
}

func whyAt(why []string, i int) string {
	if i < len(why) {
		return why[i]
	}
	return ""
}

// moduleCell lists a project's modules, or counts them when summarising a long list.
func moduleCell(mods []string, summarise bool) string {
	switch {
	case len(mods) == 0:
		return "-"
	case summarise && len(mods) > 1:
		return english.Plural(len(mods), "module", "modules")
	}
	cleaned := make([]string, len(mods))
	for i, m := range mods {
		cleaned[i] = clean(m)
	}
	return strings.Join(cleaned, ",")
}

func columnWidths(header []string, rows [][]string) []int {
	widths := make([]int, len(header))
	for i, h := range header {
		widths[i] = runes(h)
	}
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], runes(c))
		}
	}
	return widths
}

func widestShrinkable(widths []int) int {
	best := -1
	for i, w := range widths {
		if w > 8 && (best < 0 || w > widths[best]) {
			best = i
		}
	}
	return best
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

func tableRow(cells []string, widths []int) string {
	var b strings.Builder
	for i, c := range cells {
		c = fit(c, widths[i])
		if i == len(cells)-1 {
			b.WriteString(c)
			break
		}
		b.WriteString(pad(c, widths[i]) + "  ")
	}
	return strings.TrimRight(b.String(), " ")
}

// ProjectJSON is the stable JSON shape of a project (`tfgate projects --format json`).
type ProjectJSON struct {
	Name      string   `json:"name"`
	Dir       string   `json:"dir"`
	Workspace string   `json:"workspace"`
	Mode      string   `json:"mode"`
	DependsOn []string `json:"depends_on"`
	Modules   []string `json:"modules"`
	Problems  []string `json:"problems"`             // found reading its files (file:line: …); planning it fails
	ChangedBy string   `json:"changed_by,omitempty"` // with --changed: a changed file that touches it
}

// ProjectsJSON writes the projects as a JSON array of ProjectJSON.
func ProjectsJSON(w io.Writer, ps []project.Project, why []string) error {
	out := make([]ProjectJSON, 0, len(ps))
	for i, p := range ps {
		out = append(out, ProjectJSON{Name: p.Name, Dir: p.Dir, Workspace: p.Workspace, Mode: string(p.Mode),
			DependsOn: nonNil(p.DependsOn), Modules: nonNil(p.Modules), Problems: nonNil(p.Problems), ChangedBy: whyAt(why, i)})
	}
	return writeJSON(w, out)
}

// ProjectsMatrix writes a GitHub Actions matrix: {"include":[{"project","dir","workspace"},…]}.
func ProjectsMatrix(w io.Writer, ps []project.Project) error {
	type entry struct {
		Project   string `json:"project"`
		Dir       string `json:"dir"`
		Workspace string `json:"workspace"`
	}
	m := struct {
		Include []entry `json:"include"`
	}{Include: []entry{}}
	for _, p := range ps {
		m.Include = append(m.Include, entry{p.Name, p.Dir, p.Workspace})
	}
	return json.NewEncoder(w).Encode(m)
}

// Notes writes notes about a run or a selection ("Note: the Terraform code in … was
// removed: …"), escaped and wrapped, for stderr.
func Notes(w io.Writer, notes []string, opts TextOptions) error {
	t := newTextWriter(w, opts)
	for _, n := range notes {
		t.wrapped(clean(n), t.pal.paint(ansiYellow, "Note:")+" ", "      ", "")
	}
	return t.flush()
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
