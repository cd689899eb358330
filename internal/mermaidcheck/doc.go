// Package mermaidcheck holds the check that every Mermaid golden (a *.mmd file under a
// testdata directory) is accepted by Mermaid itself: the npm package mermaid, at the version
// the Makefile pins, in headless Chromium, with the configuration GitHub renders with as far
// as it is knowable. Each diagram is parsed, rendered, inspected in the DOM and screenshot.
// It holds only tests; `make test` installs Mermaid and Chromium (make mermaid chromium).
package mermaidcheck
