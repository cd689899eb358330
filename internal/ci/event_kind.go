package ci

// IsPullRequest reports whether an event is about one pull request: the events on which
// tfgate plans for review and publishes the sticky comment.
func IsPullRequest(event string) bool {
	return event == "pull_request" || event == "pull_request_target" || event == "pull_request_review"
}
