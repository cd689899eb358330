package github

import (
	"fmt"
	"regexp"
	"strconv"
)

// A sticky comment's first line is a hidden marker naming what it is, for which pull
// request, and which part of how many:
//
//	<!-- tfgate:plan pr=42 part=1/3 -->
//
// The marker alone proves nothing (anyone can type it); it counts only on a comment whose
// author is tfgate's identity.
type Marker struct {
	Kind  string // what the comment is: plan, gate, apply…; [a-z][a-z0-9-]*
	PR    int
	Part  int // 1-based
	Parts int
}

var (
	kindRE   = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)
	markerRE = regexp.MustCompile(`^<!-- tfgate:([a-z][a-z0-9-]*) pr=([1-9][0-9]*) part=([1-9][0-9]*)/([1-9][0-9]*) -->(?:\r?\n|$)`)
)

func (m Marker) String() string {
	return fmt.Sprintf("<!-- tfgate:%s pr=%d part=%d/%d -->", m.Kind, m.PR, m.Part, m.Parts)
}

// ParseMarker reads the marker at the very start of a comment body.
func ParseMarker(body string) (Marker, bool) {
	g := markerRE.FindStringSubmatch(body)
	if g == nil {
		return Marker{}, false
	}
	pr, err1 := strconv.Atoi(g[2])
	part, err2 := strconv.Atoi(g[3])
	parts, err3 := strconv.Atoi(g[4])
	if err1 != nil || err2 != nil || err3 != nil || part > parts {
		return Marker{}, false
	}
	return Marker{Kind: g[1], PR: pr, Part: part, Parts: parts}, true
}

// MarkerReserve is how many characters of a comment the marker line may take: a part
// given to PublishComment must fit in MaxCommentChars - MarkerReserve.
const MarkerReserve = 100

// MaxCommentChars is GitHub's limit on a comment body, in characters.
const MaxCommentChars = 65536
