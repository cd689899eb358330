package render

import (
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/tfgate/tfgate/internal/policy"
	"github.com/tfgate/tfgate/internal/report"
	"github.com/tfgate/tfgate/internal/wfcmd"
)

// AnnotationLevel is the workflow command an annotation is written with.
type AnnotationLevel string

const (
	AnnotationError   AnnotationLevel = "error"
	AnnotationWarning AnnotationLevel = "warning"
)

// MaxAnnotations is how many annotations of one level GitHub shows for a step.
const MaxAnnotations = 10

// Annotation is a GitHub Actions annotation: on a file and line when File is set (shown on
// the pull request's diff), else on the run.
type Annotation struct {
	Level     AnnotationLevel
	File      string // relative to the repository root; "" for none
	Line, Col int    // 0 when unknown
	Title     string
	Message   string
}

// Annotations are the run's terraform errors that carry a source range, its policy
// denies and evaluation errors (level error) and its policy warnings (level warning).
// GitHub shows MaxAnnotations per level, so past that the last one shown summarises the
// rest instead of being lost among them.
func Annotations(r report.Run) []Annotation {
	var errs, warns []Annotation
	for _, p := range r.Projects {
		name := projectLabel(p)
		for _, d := range diagnostics(p) {
			d.Title = "terraform: " + name + ": " + d.Title
			if d.Level == AnnotationWarning {
				warns = append(warns, d)
			} else {
				errs = append(errs, d)
			}
		}
	}
	for _, p := range r.Projects {
		if p.Policy == nil {
			continue
		}
		name := projectLabel(p)
		for _, f := range p.Policy.Findings {
			a := Annotation{Level: AnnotationWarning, Title: "policy " + f.Policy() + " warns about " + name, Message: f.Text()}
			if f.Level == policy.LevelDeny {
				a.Level, a.Title = AnnotationError, "policy "+f.Policy()+" denies "+name
				errs = append(errs, a)
			} else {
				warns = append(warns, a)
			}
		}
		if p.Policy.Err != nil {
			errs = append(errs, Annotation{Level: AnnotationError, Title: "policy error in " + name,
				Message: p.Policy.Err.Error() + "\n(a policy that cannot be evaluated blocks like a deny)"})
		}
	}
	return append(capAnnotations(errs, "error"), capAnnotations(warns, "warning")...)
}

func capAnnotations(as []Annotation, what string) []Annotation {
	if len(as) <= MaxAnnotations {
		return as
	}
	shown, rest := as[:MaxAnnotations-1], as[MaxAnnotations-1:]
	titles := make([]string, len(rest))
	for i, a := range rest {
		titles[i] = "- " + a.Title
	}
	return append(shown[:len(shown):len(shown)], Annotation{
		Level: rest[0].Level,
		Title: fmt.Sprintf("%d more %ss", len(rest), what),
		Message: fmt.Sprintf("GitHub shows %d %s annotations per step; these %d are in the job summary and the CI log:\n%s",
			MaxAnnotations, what, len(rest), strings.Join(titles, "\n")),
	})
}

// diagnostics are the terraform errors and warnings in a project's error text that name a
// source file. The text is terraform's own for init, and tfgate's rendering of terraform's
// JSON diagnostics for plan and apply (terraform.Diagnostic.Text), which adds the column;
// the error is carried as text (masked, and through `tfgate publish`), so it is read here.
func diagnostics(p report.Project) []Annotation {
	if p.Error == "" {
		return nil
	}
	var out []Annotation
	var cur *Annotation
	var body []string
	flush := func() {
		if cur != nil && cur.File != "" {
			cur.Message = strings.TrimSpace(strings.Join(body, "\n"))
			if cur.Message == "" {
				cur.Message = cur.Title
			}
			out = append(out, *cur)
		}
		cur, body = nil, nil
	}
	for _, raw := range strings.Split(strings.ReplaceAll(p.Error, "\r\n", "\n"), "\n") {
		l := strings.TrimLeft(raw, " │╷╵")
		l = strings.TrimRight(l, " ")
		switch {
		case strings.HasPrefix(l, "Error: "):
			flush()
			cur = &Annotation{Level: AnnotationError, Title: strings.TrimPrefix(l, "Error: ")}
		case strings.HasPrefix(l, "Warning: "):
			flush()
			cur = &Annotation{Level: AnnotationWarning, Title: strings.TrimPrefix(l, "Warning: ")}
		case cur == nil:
		case cur.File == "" && sourceRange.MatchString(l):
			m := sourceRange.FindStringSubmatch(l)
			cur.File = path.Join(p.Dir, m[1])
			cur.Line, _ = strconv.Atoi(m[2])
			cur.Col, _ = strconv.Atoi(m[3])
			body = append(body, l)
		case strings.Trim(raw, " ╷╵") == "": // the box terraform draws around a diagnostic
		default:
			body = append(body, strings.TrimPrefix(strings.TrimPrefix(raw, "│"), " "))
		}
	}
	flush()
	return out
}

// sourceRange is terraform's "on main.tf line 5, in resource …:" line, with the column
// when tfgate rendered it from terraform's JSON ("on main.tf line 5, column 3, in …:").
var sourceRange = regexp.MustCompile(`^on (\S(?:.*\S)?) line (\d+)(?:, column (\d+))?(?:,.*|:)?$`)

// WorkflowCommand writes a as a workflow command (`::error file=…,line=…::message`),
// escaped by GitHub's rules: %, CR and LF in the message; also : and , in properties.
// Other control characters are shown escaped, as on a terminal, and so is the `[` of a
// legacy `##[` command (see NeutralizeCommands).
func WorkflowCommand(a Annotation) string {
	var props []string
	prop := func(k, v string) {
		if v != "" {
			props = append(props, k+"="+escapeProperty(v))
		}
	}
	prop("file", a.File)
	if a.Line > 0 {
		prop("line", strconv.Itoa(a.Line))
	}
	if a.Col > 0 {
		prop("col", strconv.Itoa(a.Col))
	}
	prop("title", a.Title)
	level := a.Level
	if level != AnnotationWarning {
		level = AnnotationError
	}
	cmd := "::" + string(level)
	if len(props) > 0 {
		cmd += " " + strings.Join(props, ",")
	}
	return cmd + "::" + escapeData(a.Message)
}

func escapeData(s string) string {
	ls := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	for i, l := range ls {
		ls[i] = wfcmd.NeutralizeLegacy(clean(l))
	}
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(strings.Join(ls, "\n"))
}

func escapeProperty(s string) string {
	return strings.NewReplacer(":", "%3A", ",", "%2C").Replace(escapeData(s))
}
