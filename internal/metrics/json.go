package metrics

import (
	"encoding/json"
	"io"
)

// WriteJSON writes m as one indented JSON document (the Metrics type is its schema).
func WriteJSON(w io.Writer, m Metrics) error {
	if m.Projects == nil {
		m.Projects = []Project{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(m)
}
