package matrixresult

import "github.com/tfgate/tfgate/internal/report"

// Scope is the result's account of why its projects were chosen (report.Scope): publish
// merges the results' scopes into the graph one plan of every project would have drawn.
type Scope struct {
	Files   []string  `json:"files"`
	Touches []Touch   `json:"touches"`
	Shared  []string  `json:"shared"`
	Dropped []Dropped `json:"dropped"`
}

// Touch is report.Touch.
type Touch struct {
	Project   string `json:"project"`
	Workspace string `json:"workspace"`
	File      string `json:"file"`
	Module    string `json:"module,omitempty"`
}

// Dropped is report.Dropped.
type Dropped struct {
	Name  string   `json:"name"`
	How   string   `json:"how"`
	Files []string `json:"files"`
}

func encodeScope(s *report.Scope) *Scope {
	if s == nil {
		return nil
	}
	w := &Scope{Files: s.Files, Shared: s.Shared, Touches: []Touch{}, Dropped: []Dropped{}}
	for _, t := range s.Touches {
		w.Touches = append(w.Touches, Touch(t))
	}
	for _, d := range s.Dropped {
		w.Dropped = append(w.Dropped, Dropped{Name: d.Name, How: string(d.How), Files: d.Files})
	}
	return w
}

func decodeScope(w *Scope) *report.Scope {
	if w == nil {
		return nil
	}
	s := &report.Scope{Files: w.Files, Shared: w.Shared}
	for _, t := range w.Touches {
		s.Touches = append(s.Touches, report.Touch(t))
	}
	for _, d := range w.Dropped {
		s.Dropped = append(s.Dropped, report.Dropped{Name: d.Name, How: report.DropKind(d.How), Files: d.Files})
	}
	return s
}
