package githubtest

import (
	"archive/zip"
	"bytes"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

func (s *Server) artifactRoutes() {
	s.handle("GET /repos/{owner}/{repo}/actions/artifacts", s.listArtifacts)
	s.handle("GET /repos/{owner}/{repo}/actions/runs/{run_id}/artifacts", s.listArtifacts)
	s.handle("GET /repos/{owner}/{repo}/actions/artifacts/{artifact_id}/{archive_format}", s.downloadArtifact)
}

// AddArtifact stores an Actions artifact of run runID holding files (name → content) and
// returns its id.
func (s *Server) AddArtifact(fullName string, runID int64, name string, files map[string]string) int64 {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		f, err := zw.Create(n)
		if err != nil {
			panic(err)
		}
		_, _ = f.Write([]byte(files[n]))
	}
	if err := zw.Close(); err != nil {
		panic(err)
	}
	return s.AddArtifactZip(fullName, runID, name, buf.Bytes())
}

// AddArtifactZip stores an Actions artifact whose archive is data as given (a test's own
// zip: hostile entries, links) and returns its id.
func (s *Server) AddArtifactZip(fullName string, runID int64, name string, data []byte) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(splitRepo(fullName))
	a := &artifactState{id: s.newID(), runID: runID, name: name, zip: data, created: s.tick()}
	rp.artifacts = append(rp.artifacts, a)
	return a.id
}

// SetArtifactOrigin says which run uploaded artifact id: one for commit headSHA, in a fork
// when fork is set.
func (s *Server) SetArtifactOrigin(fullName string, id int64, headSHA string, fork bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range s.repoLocked(splitRepo(fullName)).artifacts {
		if a.id == id {
			a.headSHA, a.fork = headSHA, fork
		}
	}
}

func (s *Server) artifactRun(a *artifactState) map[string]any {
	run := map[string]any{"id": a.runID, "repository_id": 1, "head_repository_id": 1}
	if a.fork {
		run["head_repository_id"] = 2
	}
	if a.headSHA != "" {
		run["head_sha"] = a.headSHA
	}
	return run
}

// ExpireArtifacts marks every artifact called name expired, as GitHub does after the
// retention period: it is still listed, and its archive is gone (410).
func (s *Server) ExpireArtifacts(fullName, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range s.repoLocked(splitRepo(fullName)).artifacts {
		if a.name == name {
			a.expired = true
		}
	}
}

func (s *Server) artifactJSON(rp *repo, a *artifactState) map[string]any {
	api := fmt.Sprintf("%s/repos/%s/actions/artifacts/%d", s.srv.URL, rp.fullName(), a.id)
	return map[string]any{"id": a.id, "node_id": fmt.Sprintf("MDg6QXJ0aWZhY3Q%d", a.id), "name": a.name,
		"size_in_bytes": len(a.zip), "url": api, "archive_download_url": api + "/zip", "expired": a.expired,
		"created_at": ts(a.created), "updated_at": ts(a.created), "expires_at": ts(a.created.AddDate(0, 0, 90)),
		"workflow_run": s.artifactRun(a)}
}

func (s *Server) listArtifacts(w http.ResponseWriter, r *request) {
	name := r.URL.Query().Get("name")
	var runID int64
	if v := r.param("run_id"); v != "" {
		id, ok := pathInt(w, r, "run_id")
		if !ok {
			return
		}
		runID = id
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(r.param("owner"), r.param("repo"))
	var all []map[string]any
	for i := len(rp.artifacts) - 1; i >= 0; i-- { // newest first
		a := rp.artifacts[i]
		if (name == "" || a.name == name) && (runID == 0 || a.runID == runID) {
			all = append(all, s.artifactJSON(rp, a))
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"total_count": len(all), "artifacts": page(w, r.Request, all)})
}

// StorageSignature is the signature in the query of an artifact's download URL: like
// GitHub's, a credential that must appear in no message.
const StorageSignature = "githubtest-signature-0a1b2c"

// downloadArtifact redirects to the archive, as GitHub redirects to signed storage.
func (s *Server) downloadArtifact(w http.ResponseWriter, r *request) {
	id, ok := pathInt(w, r, "artifact_id")
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(r.param("owner"), r.param("repo"))
	for _, a := range rp.artifacts {
		if a.id == id && a.expired {
			writeError(w, http.StatusGone, "Artifact has expired")
			return
		}
		if a.id == id {
			// GitHub's storage URLs are signed in their query (a credential for a minute).
			w.Header().Set("Location", fmt.Sprintf("%s%s%d.zip?sv=2025-01-05&sig=%s", s.srv.URL, blobPrefix, a.id, StorageSignature))
			w.WriteHeader(http.StatusFound)
			return
		}
	}
	writeError(w, http.StatusNotFound, "Not Found")
}

func (s *Server) serveBlob(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, blobPrefix), ".zip"), 10, 64)
	if err != nil || r.Method != http.MethodGet {
		http.NotFound(w, r)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, rp := range s.repos {
		for _, a := range rp.artifacts {
			if a.id == id {
				w.Header().Set("Content-Type", "application/zip")
				_, _ = w.Write(a.zip)
				return
			}
		}
	}
	http.NotFound(w, r)
}
