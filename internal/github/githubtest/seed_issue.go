package githubtest

// EditIssueByHand changes an issue as a person does in the browser (its title, body or
// state; not its number, author or labels) and moves its updated_at on. It reports
// whether the issue exists.
func (s *Server) EditIssueByHand(fullName string, number int, edit func(*Issue)) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	is := s.repoLocked(splitRepo(fullName)).issues[number]
	if is == nil || is.Pull {
		return false
	}
	c := is.Issue
	edit(&c)
	is.Title, is.Body, is.State = c.Title, c.Body, c.State
	is.UpdatedAt = s.tick()
	return true
}
