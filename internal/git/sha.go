package git

import "github.com/tfgate/tfgate/internal/english"

// ShortSHA is a commit's 7-character abbreviation, as GitHub shows it (english.ShortSHA).
func ShortSHA(sha string) string { return english.ShortSHA(sha) }
