// Package render turns a run (internal/report) into what people and programs read: terminal
// text, JSON and markdown (the pull-request comment, the job summary). It never sees a raw
// plan value, only the redacted model from internal/plan, and it escapes every string it
// prints — one escaper per medium — so that text from a plan, a policy or a repository
// cannot drive the terminal or break the markdown.
package render

// TextOptions tune the text renderers.
type TextOptions struct {
	Color bool // ANSI colours; only for a terminal
	// Width is the terminal's width. 0 means not a terminal (or unknown): lines are laid
	// out for 80 columns, and long values are wrapped whole instead of shortened.
	Width int
}

func (o TextOptions) width() int {
	if o.Width <= 0 {
		return 80
	}
	return o.Width
}
