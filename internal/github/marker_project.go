package github

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// An issue tfgate keeps for one project (a drift issue) starts with a hidden marker naming
// what it is and the project:
//
//	<!-- tfgate:drift project=envs/prod/network -->
//
// As with Marker, it counts only on an issue whose author is tfgate's identity.
type ProjectMarker struct {
	Kind    string // [a-z][a-z0-9-]*
	Project string
}

var projectMarkerRE = regexp.MustCompile(`^<!-- tfgate:([a-z][a-z0-9-]*) project=([A-Za-z0-9._~/@+=:%-]+) -->(?:\r?\n|$)`)

func (m ProjectMarker) String() string {
	return fmt.Sprintf("<!-- tfgate:%s project=%s -->", m.Kind, escapeProject(m.Project))
}

// ParseProjectMarker reads the project marker at the very start of a body.
func ParseProjectMarker(body string) (ProjectMarker, bool) {
	g := projectMarkerRE.FindStringSubmatch(body)
	if g == nil {
		return ProjectMarker{}, false
	}
	name, err := url.PathUnescape(g[2])
	if err != nil || name == "" {
		return ProjectMarker{}, false
	}
	return ProjectMarker{Kind: g[1], Project: name}, true
}

// escapeProject percent-encodes every byte outside a safe set, so that no project name
// (autodetected ones are paths, which may hold spaces or "-->") can end the comment early.
func escapeProject(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("._~/@+=:-", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}
