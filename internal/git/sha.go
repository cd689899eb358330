package git

// ShortSHA is a commit's 7-character abbreviation, as GitHub shows it. It never splits a
// character, so it is safe on a value read from an event payload.
func ShortSHA(sha string) string {
	if len(sha) <= 7 {
		return sha
	}
	n := 0
	for i := range sha {
		if n == 7 {
			return sha[:i]
		}
		n++
	}
	return sha
}
