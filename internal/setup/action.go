package setup

import (
	"fmt"
	"regexp"
	"strings"

	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
)

// Action is the ref of tfgate's action the written workflows use:
// `uses: tfgate/tfgate@<Ref>`, followed by ` # <Comment>` when Comment is set.
type Action struct {
	Ref     string
	Comment string
	// Dev is set for a development build of tfgate (no release version): the workflows use
	// the examples' ref, the newest release of its major version, not this build.
	Dev bool
}

// How the workflows pin the action (init's --pin).
const (
	PinTag = "tag" // the running tfgate's release tag: tfgate/tfgate@v1.4.2
	PinSHA = "sha" // its commit, with the tag in a comment: tfgate/tfgate@<sha> # v1.4.2
)

// ExampleRef is the ref the example workflows use: the newest v1 release, as
// actions/checkout@v4 is the newest v4 one. A development build of tfgate writes it.
const ExampleRef = "v1"

// exampleUses is the examples' `uses:` of the action, which init rewrites.
const exampleUses = "uses: tfgate/tfgate@" + ExampleRef + "\n"

var commitSHA = regexp.MustCompile(`^[0-9a-f]{40}$`)

// ActionFor is the action a tfgate of version (internal/cli's, e.g. v1.4.2), built from
// commit, writes into the workflows: its own release, pinned as pin says. A development
// build (a version that is no release: "dev", a Go pseudo-version, a snapshot, a build with
// +metadata) writes ExampleRef, and cannot pin a SHA: its commit is no release's.
func ActionFor(version, commit, pin string) (Action, error) {
	if pin != PinTag && pin != PinSHA {
		return Action{}, fmt.Errorf("--pin %q: want %s (the release tag, tfgate/tfgate@v1.4.2) or %s (its commit, tfgate/tfgate@<sha> # v1.4.2)", pin, PinTag, PinSHA)
	}
	if !IsRelease(version) {
		if pin == PinSHA {
			return Action{}, fmt.Errorf("--pin sha needs a released tfgate, whose commit bears the release's tag; this is a development build (%s): install a release, or run init without --pin and pin the action by hand", version)
		}
		return Action{Ref: ExampleRef, Dev: true}, nil
	}
	if pin == PinTag {
		return Action{Ref: version}, nil
	}
	if !commitSHA.MatchString(commit) {
		return Action{}, fmt.Errorf("--pin sha: this tfgate %s does not know the commit it was built from (built with go install?): install it from the release's archive, or run init without --pin", version)
	}
	return Action{Ref: commit, Comment: version}, nil
}

// IsRelease reports whether version is a release's tag, vMAJOR.MINOR.PATCH with an optional
// -prerelease, rather than a development build's: no Go pseudo-version, no goreleaser
// snapshot, no +build metadata (Go's +dirty).
func IsRelease(version string) bool {
	return semver.Canonical(version) == version && version != "" &&
		!module.IsPseudoVersion(version) && !strings.Contains(semver.Prerelease(version), "snapshot")
}

// uses is the `uses:` line of the action in a written workflow.
func (a Action) uses() string {
	line := "uses: tfgate/tfgate@" + a.Ref
	if a.Comment != "" {
		line += " # " + a.Comment
	}
	return line + "\n"
}

// String is the action as the workflows name it, for init's summary.
func (a Action) String() string {
	return strings.TrimSuffix(strings.TrimPrefix(a.uses(), "uses: "), "\n")
}
