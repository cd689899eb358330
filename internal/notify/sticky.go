package notify

import (
	"context"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/tfgate/tfgate/internal/github"
)

// Published is what PublishComment left on the pull request.
type Published struct {
	Comments []github.Comment // the parts, in order
	Created  int
	Edited   int
	Same     int // parts already up to date, not sent again
	Deleted  int
	// Duplicates are the parts deleted because an earlier part carried the same marker
	// (a copy tfgate itself left: an older version, an answer lost after the write).
	Duplicates int
}

// PublishComment makes parts the pull request's sticky comment of kind marker ("plan"):
// part i is a comment whose first line is CommentMarker{marker, pr, i, len(parts)}.
//
// tfgate's earlier parts are Own's; anything else, even quoting the marker, is never
// edited, deleted or read. Earlier parts are reused in the order they were created (so the parts
// keep reading top to bottom), edited only when their text changed; missing parts are
// created after them; surplus ones (the plan shrank, or a duplicate) are deleted.
//
// Calls: one list per 100 comments on the pull request, then one per part created or
// changed and one per part deleted — none of it depends on how many projects the parts
// describe.
func PublishComment(ctx context.Context, api github.API, repo github.Repo, pr int, marker string, parts []string, identity github.Identity) (Published, error) {
	var out Published
	if !kindRE.MatchString(marker) {
		return out, fmt.Errorf("comment kind %q: want lowercase letters, digits and dashes", marker)
	}
	if identity.Login == "" {
		return out, errors.New("publish comment: tfgate's identity is unknown")
	}
	if len(parts) == 0 {
		return out, errors.New("publish comment: nothing to publish")
	}
	bodies := make([]string, len(parts))
	for i, p := range parts {
		bodies[i] = CommentMarker{Kind: marker, PR: pr, Part: i + 1, Parts: len(parts)}.String() + "\n" + p
		if n := utf8.RuneCountInString(bodies[i]); n > github.MaxCommentChars {
			return out, fmt.Errorf("comment part %d/%d on %s#%d has %d characters; GitHub allows %d",
				i+1, len(parts), repo, pr, n, github.MaxCommentChars)
		}
	}

	all, err := api.ListIssueComments(ctx, repo, pr)
	if err != nil {
		return out, err
	}
	ours := Own(all, marker, pr, identity)

	for i, body := range bodies {
		if i < len(ours) {
			if ours[i].Body == body {
				out.Same++
				out.Comments = append(out.Comments, ours[i])
				continue
			}
			c, err := api.EditIssueComment(ctx, repo, ours[i].ID, body)
			if err != nil {
				return out, fmt.Errorf("update part %d/%d: %w", i+1, len(bodies), err)
			}
			out.Edited++
			out.Comments = append(out.Comments, c)
			continue
		}
		c, err := api.CreateIssueComment(ctx, repo, pr, body)
		if err != nil {
			return out, fmt.Errorf("post part %d/%d: %w", i+1, len(bodies), err)
		}
		out.Created++
		out.Comments = append(out.Comments, c)
	}
	seen := map[CommentMarker]bool{}
	for _, c := range ours {
		m, _ := ParseCommentMarker(c.Body)
		if seen[m] {
			out.Duplicates++
		}
		seen[m] = true
	}
	for _, c := range ours[min(len(ours), len(bodies)):] {
		if err := api.DeleteIssueComment(ctx, repo, c.ID); err != nil {
			return out, fmt.Errorf("remove surplus part: %w", err)
		}
		out.Deleted++
	}
	out.Duplicates = min(out.Duplicates, out.Deleted)
	return out, nil
}

// Own is the one rule for which comments are tfgate's: those that start with a
// CommentMarker of this kind and pull request AND are written by identity (anyone can type
// a marker). They keep GitHub's order, oldest first, so Own(...)[0] is part 1 of the
// sticky comment whenever there is one.
func Own(comments []github.Comment, kind string, pr int, identity github.Identity) []github.Comment {
	var ours []github.Comment
	for _, c := range comments {
		if m, ok := ParseCommentMarker(c.Body); ok && m.Kind == kind && m.PR == pr && identity.Is(c.Author) {
			ours = append(ours, c)
		}
	}
	return ours
}
