package githubtest

import (
	"fmt"
	"net/http"
	"strings"
)

// Workflow runs as GitHub records them (GET /repos/{owner}/{repo}/actions/runs/{run_id}):
// what started a run, for which commit of which branch, and how it ended. GitHub sets
// these itself; a workflow cannot write them.

// Run is a workflow run of a repository.
type Run struct {
	ID         int64
	Workflow   string // its file name under .github/workflows, e.g. apply.yml
	HeadSHA    string
	HeadBranch string
	Event      string // push, pull_request, workflow_dispatch, …
	Status     string // queued, in_progress, completed; "" = completed
	Conclusion string // success, failure, cancelled, …; "" while not completed
}

// AddRun seeds a workflow run of the repository "owner/name" (replacing one of the same ID).
func (s *Server) AddRun(fullName string, r Run) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.Status == "" {
		r.Status = "completed"
	}
	if s.runs == nil {
		s.runs = map[string]Run{}
	}
	s.runs[runKey(fullName, r.ID)] = r
}

func runKey(fullName string, id int64) string {
	return fmt.Sprintf("%s/%d", strings.ToLower(fullName), id)
}

func (s *Server) runRoutes() {
	s.handle("GET /repos/{owner}/{repo}/actions/runs/{run_id}", s.getRun)
}

func (s *Server) getRun(w http.ResponseWriter, r *request) {
	id, ok := pathInt(w, r, "run_id")
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	full := r.param("owner") + "/" + r.param("repo")
	run, ok := s.runs[runKey(full, id)]
	if !ok {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	writeJSON(w, http.StatusOK, s.runJSON(full, run))
}

// runJSON is GitHub's workflow-run object. The caller holds s.mu.
func (s *Server) runJSON(fullName string, run Run) map[string]any {
	api := fmt.Sprintf("%s/repos/%s/actions/runs/%d", s.srv.URL, fullName, run.ID)
	wf := run.Workflow
	if wf == "" {
		wf = "apply.yml"
	}
	var conclusion any
	if run.Conclusion != "" {
		conclusion = run.Conclusion
	}
	stamp := ts(s.clock)
	person := map[string]any{"name": "Test", "email": "test@example.com"}
	return map[string]any{
		"id": run.ID, "name": wf, "node_id": fmt.Sprintf("WFR_%d", run.ID), "check_suite_id": run.ID + 7,
		"check_suite_node_id": fmt.Sprintf("CS_%d", run.ID+7), "head_branch": run.HeadBranch, "head_sha": run.HeadSHA,
		"path": ".github/workflows/" + wf, "display_title": wf, "run_number": run.ID % 10000, "run_attempt": 1,
		"event": run.Event, "status": run.Status, "conclusion": conclusion, "workflow_id": 161335,
		"url": api, "html_url": fmt.Sprintf("https://github.com/%s/actions/runs/%d", fullName, run.ID),
		"pull_requests": []any{}, "created_at": stamp, "updated_at": stamp, "run_started_at": stamp,
		"actor": s.userJSON(Bot), "triggering_actor": s.userJSON(Bot),
		"jobs_url": api + "/jobs", "logs_url": api + "/logs", "check_suite_url": fmt.Sprintf("%s/repos/%s/check-suites/%d", s.srv.URL, fullName, run.ID+7),
		"artifacts_url": api + "/artifacts", "cancel_url": api + "/cancel", "rerun_url": api + "/rerun",
		"previous_attempt_url": nil, "workflow_url": fmt.Sprintf("%s/repos/%s/actions/workflows/161335", s.srv.URL, fullName),
		"head_commit": map[string]any{"id": run.HeadSHA, "tree_id": strings.Repeat("0", 40), "message": "merge",
			"timestamp": stamp, "author": person, "committer": person},
		"repository": s.repoJSON(fullName, false), "head_repository": s.repoJSON(fullName, false),
	}
}

// AddLinkedStatus seeds a commit status on sha as creator set it, linking targetURL: what
// any workflow of the repository can write with its GITHUB_TOKEN (as github-actions[bot]),
// a writer's branch workflow included.
func (s *Server) AddLinkedStatus(fullName, sha string, creator User, state, context, description, targetURL string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(splitRepo(fullName))
	rp.statuses[sha] = append(rp.statuses[sha], &Status{ID: s.newID(), SHA: sha, State: state, Context: context,
		Description: description, TargetURL: targetURL, Creator: creator, CreatedAt: s.tick()})
}
