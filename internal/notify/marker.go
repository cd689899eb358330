package notify

import (
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

// Everything tfgate posts starts with a hidden marker line of one grammar,
//
//	<!-- tfgate:KIND key=value key=value -->
//
// naming what it is (KIND: [a-z][a-z0-9-]*) and for what. Two shapes are in use: a pull
// request's comment parts (CommentMarker) and the issue kept for one project
// (RecordMarker); a drift issue's second line carries its state in the same grammar. A
// marker alone proves nothing (anyone can type it): it counts only on a comment or issue
// whose author is tfgate's identity (Own, FindRecords).

var (
	kindRE = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)
	// tagRE is the grammar: the kind, then space-separated key=value fields (a value may
	// hold "=", never a space), at the very start of the text, ending its line.
	tagRE = regexp.MustCompile(`^<!-- tfgate:([a-z][a-z0-9-]*)((?: [a-z_]+=[^ \r\n]+)*) -->(?:\r?\n|$)`)
)

// field is one key=value of a marker.
type field struct{ key, value string }

// tag writes a marker line (without its newline).
func tag(kind string, fields ...field) string {
	var b strings.Builder
	b.WriteString("<!-- tfgate:" + kind)
	for _, f := range fields {
		b.WriteString(" " + f.key + "=" + f.value)
	}
	b.WriteString(" -->")
	return b.String()
}

// parseTag reads the marker at the very start of text: its kind and the values of keys,
// which must be exactly these keys in this order, each value matching its pattern.
func parseTag(text string, keys []string, values []*regexp.Regexp) (kind string, vals []string, ok bool) {
	g := tagRE.FindStringSubmatch(text)
	if g == nil {
		return "", nil, false
	}
	fs := strings.Fields(g[2])
	if len(fs) != len(keys) {
		return "", nil, false
	}
	for i, f := range fs {
		k, v, _ := strings.Cut(f, "=")
		if k != keys[i] || !values[i].MatchString(v) {
			return "", nil, false
		}
		vals = append(vals, v)
	}
	return g[1], vals, true
}

// CommentMarker is the first line of a sticky comment's part: what it is, for which pull
// request, and which part of how many:
//
//	<!-- tfgate:plan pr=42 part=1/3 -->
type CommentMarker struct {
	Kind  string // what the comment is: plan, apply…
	PR    int
	Part  int // 1-based
	Parts int
}

var (
	positiveRE = regexp.MustCompile(`^[1-9][0-9]*$`)
	partRE     = regexp.MustCompile(`^[1-9][0-9]*/[1-9][0-9]*$`)
)

func (m CommentMarker) String() string {
	return tag(m.Kind, field{"pr", strconv.Itoa(m.PR)}, field{"part", fmt.Sprintf("%d/%d", m.Part, m.Parts)})
}

// ParseCommentMarker reads the marker at the very start of a comment body.
func ParseCommentMarker(body string) (CommentMarker, bool) {
	kind, v, ok := parseTag(body, []string{"pr", "part"}, []*regexp.Regexp{positiveRE, partRE})
	if !ok {
		return CommentMarker{}, false
	}
	p, ps, _ := strings.Cut(v[1], "/")
	pr, err1 := strconv.Atoi(v[0])
	part, err2 := strconv.Atoi(p)
	parts, err3 := strconv.Atoi(ps)
	if err1 != nil || err2 != nil || err3 != nil || part > parts {
		return CommentMarker{}, false
	}
	return CommentMarker{Kind: kind, PR: pr, Part: part, Parts: parts}, true
}

// MarkerReserve is how many characters of a comment the marker line may take: a part
// given to PublishComment must fit in github.MaxCommentChars - MarkerReserve.
const MarkerReserve = 100

// RecordMarker is the first line of an issue tfgate keeps for one project (a drift issue):
//
//	<!-- tfgate:drift project=envs/prod/network -->
type RecordMarker struct {
	Kind    string
	Project string
}

var projectValueRE = regexp.MustCompile(`^[A-Za-z0-9._~/@+=:%-]+$`)

func (m RecordMarker) String() string {
	return tag(m.Kind, field{"project", escapeProject(m.Project)})
}

// ParseRecordMarker reads the project marker at the very start of a body.
func ParseRecordMarker(body string) (RecordMarker, bool) {
	kind, v, ok := parseTag(body, []string{"project"}, []*regexp.Regexp{projectValueRE})
	if !ok {
		return RecordMarker{}, false
	}
	name, err := url.PathUnescape(v[0])
	if err != nil || name == "" {
		return RecordMarker{}, false
	}
	return RecordMarker{Kind: kind, Project: name}, true
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
