package render

import "github.com/tfgate/tfgate/internal/english"

// ReusedNote is what a run says of a plan a push reused rather than planned again
// (docs/busy-repositories.md): `reused from abc1234 (nothing it depends on changed)`; ""
// for a project planned in the run (commit "").
func ReusedNote(commit string) string {
	if commit == "" {
		return ""
	}
	return "reused from " + english.ShortSHA(commit) + " (nothing it depends on changed)"
}
