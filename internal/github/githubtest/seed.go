package githubtest

import (
	"slices"
)

// routes registers every API route the fake serves.
func (s *Server) routes() {
	s.commentRoutes()
	s.issueRoutes()
	s.pullRoutes()
	s.pullWriteRoutes()
	s.statusRoutes()
	s.artifactRoutes()
	s.teamRoutes()
	s.refRoutes()
	s.gitDataRoutes()
	s.ruleRoutes()
	s.releaseRoutes()
	s.labelRoutes()
	s.dispatchRoutes()
	s.runRoutes()
}

// SetPermission gives login a permission (admin, maintain, write, triage, read, none) in
// the repository "owner/name".
func (s *Server) SetPermission(fullName, login, permission string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.repoLocked(splitRepo(fullName)).perms[login] = permission
}

// AddPull seeds a pull request and returns its number.
func (s *Server) AddPull(fullName string, p Pull) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(splitRepo(fullName))
	if p.Number == 0 {
		p.Number = rp.nextNumber
	}
	rp.nextNumber = max(rp.nextNumber, p.Number+1)
	if p.State == "" {
		p.State = "open"
	}
	if p.Author.Login == "" {
		p.Author = Alice
	}
	if p.Title == "" {
		p.Title = "change"
	}
	now := s.tick()
	if p.Merged && p.MergedAt.IsZero() {
		p.MergedAt = now
	}
	rp.issues[p.Number] = &issueState{
		Issue: Issue{Number: p.Number, Title: p.Title, State: p.State, Author: p.Author, CreatedAt: now, UpdatedAt: now, Pull: true},
		pull:  &pullState{Pull: p, files: slices.Clone(p.Files)},
	}
	return p.Number
}

// MergePull merges pull request number (which must exist) as GitHub does: closed, merged,
// with mergeSHA its merge commit, so GET /commits/{mergeSHA}/pulls finds it.
func (s *Server) MergePull(fullName string, number int, mergeSHA string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	is := s.repoLocked(splitRepo(fullName)).issues[number]
	if is == nil || is.pull == nil {
		panic("githubtest: MergePull on a pull request that was not added")
	}
	now := s.tick()
	is.State, is.UpdatedAt = "closed", now
	is.pull.State, is.pull.Merged, is.pull.MergeCommitSHA, is.pull.MergedAt = "closed", true, mergeSHA, now
}

// PullState is pull request number as the fake holds it now (ok false: none).
func (s *Server) PullState(fullName string, number int) (Pull, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	is := s.repoLocked(splitRepo(fullName)).issues[number]
	if is == nil || is.pull == nil {
		return Pull{}, false
	}
	return is.pull.Pull, true
}

// MergePullCommits merges pull request number as MergePull does, and records the other
// commits its merge brought into the base branch (a rebase merge's replayed commits), which
// GET /commits/{sha}/pulls then associates with it, as GitHub does.
func (s *Server) MergePullCommits(fullName string, number int, mergeSHA string, introduced []string) {
	s.MergePull(fullName, number, mergeSHA)
	s.mu.Lock()
	defer s.mu.Unlock()
	is := s.repoLocked(splitRepo(fullName)).issues[number]
	is.pull.introduced = slices.Clone(introduced)
}

// AddReview seeds a review on pull request number and returns its id.
func (s *Server) AddReview(fullName string, number int, rv Review) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	is := s.repoLocked(splitRepo(fullName)).issues[number]
	if is == nil || is.pull == nil {
		panic("githubtest: AddReview on a pull request that was not added")
	}
	rv.ID = s.newID()
	if rv.SubmittedAt.IsZero() {
		rv.SubmittedAt = s.tick()
	}
	is.pull.reviews = append(is.pull.reviews, &rv)
	return rv.ID
}

// AddComment seeds a comment by author on issue or pull request number (which must exist)
// and returns its id.
func (s *Server) AddComment(fullName string, number int, author User, body string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(splitRepo(fullName))
	if rp.issues[number] == nil {
		panic("githubtest: AddComment on an issue or pull request that was not added")
	}
	now := s.tick()
	c := &Comment{ID: s.newID(), Number: number, Body: body, Author: author, CreatedAt: now, UpdatedAt: now}
	rp.comments = append(rp.comments, c)
	return c.ID
}

// Comments is a copy of the comments on issue or pull request number, oldest first.
func (s *Server) Comments(fullName string, number int) []Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Comment
	for _, c := range s.repoLocked(splitRepo(fullName)).comments {
		if c.Number == number {
			out = append(out, *c)
		}
	}
	return out
}

// Statuses is a copy of the statuses set on sha, oldest first.
func (s *Server) Statuses(fullName, sha string) []Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Status
	for _, st := range s.repoLocked(splitRepo(fullName)).statuses[sha] {
		out = append(out, *st)
	}
	return out
}

// Issues is a copy of the repository's issues (pull requests excluded), by number.
func (s *Server) Issues(fullName string) []Issue {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(splitRepo(fullName))
	var out []Issue
	for n := 1; n < rp.nextNumber; n++ {
		if is := rp.issues[n]; is != nil && !is.Pull {
			c := is.Issue
			c.Labels = slices.Clone(c.Labels)
			out = append(out, c)
		}
	}
	return out
}

// Labels is a copy of the repository's labels.
func (s *Server) Labels(fullName string) []Label {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Label
	for _, l := range s.repoLocked(splitRepo(fullName)).labels {
		out = append(out, *l)
	}
	return out
}

// AddIssue seeds an issue (not a pull request) and returns its number; labels it names are
// created.
func (s *Server) AddIssue(fullName string, is Issue) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(splitRepo(fullName))
	is.Number, is.Pull = rp.nextNumber, false
	rp.nextNumber++
	if is.State == "" {
		is.State = "open"
	}
	now := s.tick()
	is.CreatedAt, is.UpdatedAt = now, now
	is.Labels = s.ensureLabelsLocked(rp, is.Labels)
	rp.issues[is.Number] = &issueState{Issue: is}
	return is.Number
}
