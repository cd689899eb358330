package notify

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"
	"time"

	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/report"
)

// A quiet night costs no write: a drift issue is edited only when what it would say
// changes. Its metadata line records two fingerprints, so that the one listing of the
// open issues (whose bodies GitHub returns) is enough to decide, without reading or
// writing each issue:
//
//   - digest: what the issue reports — its title, status, first seen and the text of its
//     body rendered without what changes on every run (when it was written, the commit and
//     the run). Another status, another diff, another error message, new wording: another
//     digest.
//   - sum: the body as written, but for the metadata line itself. A body someone edited
//     no longer matches its sum; tfgate owns the body (people comment instead), so the
//     next run writes it again, as every run did before the fingerprints.

// driftMeta is the metadata line: the state and the two fingerprints ("" when the line
// is an older tfgate's, which had none).
type driftMeta struct {
	DriftState
	digest, sum string
}

// metaReserve is what the metadata line may take of the body (it is about 150 characters).
const metaReserve = 200

func (m driftMeta) line() string {
	return tag(driftStateKind, field{"status", string(m.Status)}, field{"first_seen", m.FirstSeen.UTC().Format(time.RFC3339)},
		field{"digest", m.digest}, field{"sum", m.sum})
}

// parseDriftMeta reads the metadata line: the line after the project marker, in either
// form (with the fingerprints, or an older tfgate's without).
func parseDriftMeta(body string) (driftMeta, bool) {
	_, rest, _ := strings.Cut(body, "\n")
	line, _, _ := strings.Cut(rest, "\n")
	line = strings.TrimSuffix(line, "\r")
	kind, v, ok := parseTag(line, []string{"status", "first_seen", "digest", "sum"},
		[]*regexp.Regexp{statusValueRE, stampValueRE, hexValueRE, hexValueRE})
	if !ok {
		kind, v, ok = parseTag(line, []string{"status", "first_seen"}, []*regexp.Regexp{statusValueRE, stampValueRE})
	}
	if !ok || kind != driftStateKind {
		return driftMeta{}, false
	}
	t, err := time.Parse(time.RFC3339, v[1])
	if err != nil {
		return driftMeta{}, false
	}
	m := driftMeta{DriftState: DriftState{Status: report.Status(v[0]), FirstSeen: t}}
	if len(v) == 4 {
		m.digest, m.sum = v[2], v[3]
	}
	return m, true
}

// driftDigest fingerprints what a project's issue reports (see above).
func driftDigest(p report.Project, st DriftState) string {
	return fingerprint(DriftTitle(p), string(st.Status), st.FirstSeen.UTC().Format(time.RFC3339), driftText(p, st, DriftBodyOptions{}))
}

// textSum fingerprints a body without its metadata line: its first line and the rest.
func textSum(first, rest string) string { return fingerprint(first, rest) }

// bodySum is textSum of a body as GitHub returned it.
func bodySum(body string) string {
	first, rest, _ := strings.Cut(body, "\n")
	_, rest, _ = strings.Cut(rest, "\n")
	return textSum(first, rest)
}

func fingerprint(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// driftUnchanged tells whether the open issue is already what this run would write for
// the project: same title, same report (digest), its body as tfgate wrote it (sum).
func driftUnchanged(is github.Issue, p report.Project, st DriftState) bool {
	m, ok := parseDriftMeta(is.Body)
	return ok && m.digest != "" && is.Title == DriftTitle(p) &&
		m.digest == driftDigest(p, st) && m.sum == bodySum(is.Body)
}
