package githubtest

// AddStatus seeds a commit status on sha as creator set it (someone other than tfgate, for
// a test that tfgate trusts only its own).
func (s *Server) AddStatus(fullName, sha string, creator User, state, context, description string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(splitRepo(fullName))
	rp.statuses[sha] = append(rp.statuses[sha], &Status{ID: s.newID(), SHA: sha, State: state, Context: context,
		Description: description, Creator: creator, CreatedAt: s.tick()})
}
