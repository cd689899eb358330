package render

import (
	"strings"

	"github.com/tfgate/tfgate/internal/english"
	"github.com/tfgate/tfgate/internal/report"
)

// GateLine is the gate's verdict as one markdown line, for the sticky plan comment:
//
//	**Gate:** ⏳ needs 1 more approval on `a1b2c3d` (has: @bob)
//	**Gate:** ✅ allowed — 2 approvals on `a1b2c3d`; policies pass
//	**Gate:** ❌ envs/prod/network denied by policy; needs approval from a policy owner
//
// The description is escaped (a login in it shows as @bob but pings nobody); the
// reviewed commit in it is set as code. Without a verdict it is derived from the projects.
func GateLine(r report.Run) string {
	v := verdictOf(r)
	desc := mdDescription(fit(v.Description, maxCellRunes), r.Reviewed)
	line := "**Gate:** " + stateIcon(v.State) + " "
	switch v.State {
	case report.GateAllowed:
		line += "allowed"
		if desc != "" {
			line += " — " + desc
		}
		return line
	case report.GatePending, report.GateBlocked:
		if desc != "" {
			return line + desc
		}
	}
	line += mdText(stateWord(v.State))
	if desc != "" {
		line += " — " + desc
	}
	return line
}

// mdDescription escapes one line of the gate's own prose for markdown, setting the
// reviewed commit (its full sha or its first 7 characters, as a word) in code.
func mdDescription(desc, reviewed string) string {
	desc = strings.Join(strings.Fields(desc), " ") // one line
	if !isHex(reviewed) || len(reviewed) < 7 {
		return mdText(desc)
	}
	shas := []string{reviewed, reviewed[:7]}
	var b strings.Builder
	for desc != "" {
		at, sha := -1, ""
		for _, s := range shas {
			for from := 0; ; {
				i := strings.Index(desc[from:], s)
				if i < 0 {
					break
				}
				i += from
				if standsAlone(desc, i, len(s)) {
					if at < 0 || i < at {
						at, sha = i, s
					}
					break
				}
				from = i + 1
			}
		}
		if at < 0 {
			b.WriteString(mdText(desc))
			break
		}
		b.WriteString(mdText(desc[:at]))
		b.WriteString(mdCode(sha))
		desc = desc[at+len(sha):]
	}
	return b.String()
}

// standsAlone reports whether s[i:i+n] is a word: no letter or digit right before or after.
func standsAlone(s string, i, n int) bool {
	alnum := func(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
	return (i == 0 || !alnum(s[i-1])) && (i+n == len(s) || !alnum(s[i+n]))
}

// gateSections is a gate run as markdown (the job summary, `tfgate gate --format
// markdown`): the verdict, a row per project, then why each project is not allowed.
func gateSections(r report.Run) []mdSection {
	head := mdSection{}
	items := []string{english.Plural(len(r.Projects), "project", "projects")}
	if len(r.Projects) == 0 {
		items = []string{"no projects"}
	}
	head.prose("## " + kindTitle(r.Kind) + " — " + strings.Join(append(items, outcomeCounts(r, true)...), " · "))
	head.prose(GateLine(r))
	if len(r.Projects) > 0 {
		h, sep := "| project | gate | approved by |", "|---|---|---|"
		t := mdBlock{open: []string{h, sep}, reopen: []string{h, sep}}
		for _, p := range r.Projects {
			t.lines = append(t.lines, "| "+mdCellCode(fit(projectLabel(p), maxCellRunes))+" | "+applyResultCell(r, p)+" | "+approversCell(p.Gate)+" |")
		}
		head.blocks = append(head.blocks, t)
	}
	head.blocks = append(head.blocks, mdRunNotes(r)...)
	out := []mdSection{head}
	for _, p := range r.Projects {
		if !outcomeOf(r, p).ok() {
			out = append(out, reviewSection(r, p))
		}
	}
	return out
}
