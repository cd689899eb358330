package githubtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// Workflows that can be started by workflow_dispatch, and the dispatches made.

// Workflow is a workflow file of a repository as dispatch sees it.
type Workflow struct {
	File     string   // its file name under .github/workflows, e.g. plan.yml
	Dispatch bool     // it has the workflow_dispatch trigger
	Inputs   []string // the inputs it declares
	Required []string // those of Inputs without which GitHub refuses a dispatch
}

type workflowState struct {
	Workflow
	repo string
}

// Dispatch is one accepted workflow_dispatch.
type Dispatch struct {
	Repo     string
	Workflow string
	Ref      string
	Inputs   map[string]string
}

// AddWorkflow seeds a workflow file of the repository "owner/name".
func (s *Server) AddWorkflow(fullName string, wf Workflow) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.workflows == nil {
		s.workflows = map[string]*workflowState{}
	}
	s.workflows[strings.ToLower(fullName+"/"+wf.File)] = &workflowState{Workflow: wf, repo: fullName}
}

// Dispatches is a copy of the dispatches accepted so far, oldest first.
func (s *Server) Dispatches() []Dispatch {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.dispatches)
}

// ActionsReadToken is a GITHUB_TOKEN of a workflow that grants actions: read, not write.
const ActionsReadToken = "ghs_githubtest_actions_read"

func (s *Server) dispatchRoutes() {
	if _, ok := s.tokens[ActionsReadToken]; !ok {
		s.tokens[ActionsReadToken] = Token{User: Bot, Installation: true, ActionsRead: true}
	}
	s.handle("POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches", s.dispatchWorkflow)
}

// dispatchWorkflow refuses as GitHub does: a token without actions: write (403), a
// workflow that does not exist (404) or has no workflow_dispatch trigger, inputs it does not
// declare or required ones missing, a branch that does not exist (422).
func (s *Server) dispatchWorkflow(w http.ResponseWriter, r *request) {
	var in struct {
		Ref    string         `json:"ref"`
		Inputs map[string]any `json:"inputs"`
	}
	if !decode(w, r, &in) {
		return
	}
	full := r.param("owner") + "/" + r.param("repo")
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(r.param("owner"), r.param("repo"))
	if r.tok.ActionsRead || !canWrite(rp.permission(r.tok)) {
		writeError(w, http.StatusForbidden, "Resource not accessible by integration")
		return
	}
	wf := s.workflows[strings.ToLower(full+"/"+r.param("workflow_id"))]
	if wf == nil {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	if !wf.Dispatch {
		writeError(w, http.StatusUnprocessableEntity, "Workflow does not have 'workflow_dispatch' trigger")
		return
	}
	if !rp.hasBranch(strings.TrimPrefix(in.Ref, "refs/heads/")) {
		writeError(w, http.StatusUnprocessableEntity, "No ref found for: "+in.Ref)
		return
	}
	var unexpected []string
	inputs := map[string]string{}
	for k, v := range in.Inputs {
		if !slices.Contains(wf.Inputs, k) {
			unexpected = append(unexpected, k)
			continue
		}
		switch v := v.(type) {
		case string:
			inputs[k] = v
		default:
			b, _ := json.Marshal(v)
			inputs[k] = string(b)
		}
	}
	if len(unexpected) > 0 {
		slices.Sort(unexpected)
		b, _ := json.Marshal(unexpected)
		writeError(w, http.StatusUnprocessableEntity, fmt.Sprintf("Unexpected inputs provided: %s", b))
		return
	}
	for _, k := range wf.Required {
		if _, ok := inputs[k]; !ok {
			writeError(w, http.StatusUnprocessableEntity, fmt.Sprintf("Required input '%s' not provided", k))
			return
		}
	}
	s.dispatches = append(s.dispatches, Dispatch{Repo: full, Workflow: wf.File, Ref: in.Ref, Inputs: inputs})
	w.WriteHeader(http.StatusNoContent)
}

// hasBranch: the default branch (main), a branch the test set, or an open pull request's
// head branch (in the repository itself).
func (r *repo) hasBranch(name string) bool {
	if _, ok := r.refs["refs/heads/"+name]; ok || name == "main" {
		return true
	}
	for _, is := range r.issues {
		if is.pull != nil && is.State == "open" && !is.pull.Fork && is.pull.HeadRef == name {
			return true
		}
	}
	return false
}
