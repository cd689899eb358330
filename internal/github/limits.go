package github

// GitHub's limits on what tfgate writes, in characters (runes). They are defined here only:
// render fits its text into them, the gate its status descriptions, notify checks them
// before it sends, and githubtest refuses what exceeds them as GitHub does.
const (
	// MaxCommentChars is the limit on a comment body and on an issue body.
	MaxCommentChars = 65536
	// MaxStatusDescription is the limit on a commit status description.
	MaxStatusDescription = 140
	// MaxIssueTitle is the limit on an issue title.
	MaxIssueTitle = 256
)
