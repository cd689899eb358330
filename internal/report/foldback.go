package report

// FoldBack is a drifted project's fold-back pull request (tfgate drift --fold-back-pr): the
// branch that carries the edits accepting the drift, the pull request opened from it, and
// what this run did or why there is none.
type FoldBack struct {
	Branch string // tfgate/fold-back/<project slug>; "" when the project gets none
	PR     string // the pull request's URL; "" when there is none
	Number int
	// Done is what this run did: FoldBackOpened, FoldBackUpdated, FoldBackKept, FoldBackClosed
	// or FoldBackNone.
	Done FoldBackDone
	// Why says, for FoldBackNone and FoldBackClosed, why there is no open pull request (the
	// drift cannot be folded back whole, only checks failed, the branch is not tfgate's);
	// already masked.
	Why string
}

// FoldBackDone is what a drift run did to a project's fold-back pull request.
type FoldBackDone string

const (
	FoldBackOpened  FoldBackDone = "opened"
	FoldBackUpdated FoldBackDone = "updated" // a new commit on the branch: the drift changed
	FoldBackKept    FoldBackDone = "kept"    // the same drift: no new commit
	FoldBackClosed  FoldBackDone = "closed"
	FoldBackNone    FoldBackDone = "none"
)
