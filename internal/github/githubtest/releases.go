package githubtest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Release is a GitHub release of a repository as a test seeds it: a tag and its assets.
type Release struct {
	Tag        string
	Name       string // default: the tag
	Draft      bool   // drafts are neither the latest release nor found by tag
	Prerelease bool   // never the latest release
	Commit     string // when set, the tag refs/tags/<Tag> points at this commit (listed by the tags API)
	Assets     []Asset
}

// Asset is a file attached to a release.
type Asset struct {
	Name        string
	ContentType string // default application/octet-stream
	Data        []byte
}

type releaseState struct {
	Release
	id      int64
	created time.Time
	assets  []*assetState
}

type assetState struct {
	Asset
	id      int64
	created time.Time
}

// Release assets are served outside the REST API, as GitHub serves them: the browser URL
// (github.com/{owner}/{repo}/releases/download/{tag}/{name}) and the API asset URL asked
// for application/octet-stream both redirect to storage that needs no token.
const (
	releaseDownloadPrefix = "/_githubtest/github.com/"
	releaseBlobPrefix     = "/_githubtest/release-assets/"
)

func (s *Server) releaseRoutes() {
	s.handle("GET /repos/{owner}/{repo}/releases", s.listReleases)
	s.handle("GET /repos/{owner}/{repo}/releases/latest", s.getLatestRelease)
	s.handle("GET /repos/{owner}/{repo}/releases/tags/{tag}", s.getReleaseByTag)
	s.handle("GET /repos/{owner}/{repo}/releases/assets/{asset_id}", s.getReleaseAsset)
}

// AddRelease publishes a release of "owner/name" and returns its id. A later release is
// newer: the latest is the last added that is neither a draft nor a prerelease.
func (s *Server) AddRelease(fullName string, rel Release) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(splitRepo(fullName))
	for _, r := range rp.releases {
		if r.Tag == rel.Tag {
			panic(fmt.Sprintf("githubtest: %s already has a release %s", fullName, rel.Tag))
		}
	}
	st := &releaseState{Release: rel, id: s.newID(), created: s.tick()}
	for _, a := range rel.Assets {
		if a.ContentType == "" {
			a.ContentType = "application/octet-stream"
		}
		st.assets = append(st.assets, &assetState{Asset: a, id: s.newID(), created: st.created})
	}
	rp.releases = append(rp.releases, st)
	if rel.Commit != "" {
		if rp.refs == nil {
			rp.refs = map[string]string{}
		}
		rp.refs["refs/tags/"+rel.Tag] = rel.Commit
	}
	return st.id
}

func (s *Server) releaseJSON(rp *repo, rel *releaseState) map[string]any {
	api := fmt.Sprintf("%s/repos/%s/releases/%d", s.srv.URL, rp.fullName(), rel.id)
	html := fmt.Sprintf("https://github.com/%s/releases/tag/%s", rp.fullName(), url.PathEscape(rel.Tag))
	name := rel.Name
	if name == "" {
		name = rel.Tag
	}
	assets := []map[string]any{}
	for _, a := range rel.assets {
		assets = append(assets, s.assetJSON(rp, rel, a))
	}
	var published any
	if !rel.Draft {
		published = ts(rel.created)
	}
	return map[string]any{
		"url": api, "html_url": html, "assets_url": api + "/assets",
		"upload_url":  fmt.Sprintf("https://uploads.github.com/repos/%s/releases/%d/assets{?name,label}", rp.fullName(), rel.id),
		"tarball_url": fmt.Sprintf("%s/repos/%s/tarball/%s", s.srv.URL, rp.fullName(), url.PathEscape(rel.Tag)),
		"zipball_url": fmt.Sprintf("%s/repos/%s/zipball/%s", s.srv.URL, rp.fullName(), url.PathEscape(rel.Tag)),
		"id":          rel.id, "node_id": fmt.Sprintf("RE_%d", rel.id), "tag_name": rel.Tag,
		"target_commitish": "main", "name": name, "body": "", "draft": rel.Draft, "prerelease": rel.Prerelease,
		"created_at": ts(rel.created), "published_at": published, "author": s.userJSON(Bot), "assets": assets,
	}
}

func (s *Server) assetJSON(rp *repo, rel *releaseState, a *assetState) map[string]any {
	sum := sha256.Sum256(a.Data)
	return map[string]any{
		"url": fmt.Sprintf("%s/repos/%s/releases/assets/%d", s.srv.URL, rp.fullName(), a.id),
		"browser_download_url": fmt.Sprintf("%s%s%s/releases/download/%s/%s", s.srv.URL, releaseDownloadPrefix,
			rp.fullName(), url.PathEscape(rel.Tag), url.PathEscape(a.Name)),
		"id": a.id, "node_id": fmt.Sprintf("RA_%d", a.id), "name": a.Name, "label": nil, "state": "uploaded",
		"content_type": a.ContentType, "size": len(a.Data), "digest": "sha256:" + hex.EncodeToString(sum[:]),
		"download_count": 0, "created_at": ts(a.created), "updated_at": ts(a.created), "uploader": s.userJSON(Bot),
	}
}

// listReleases answers the releases newest first, paged, as GitHub answers a token without
// push access to the repository (a workflow's token of another repository): drafts left out.
func (s *Server) listReleases(w http.ResponseWriter, r *request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(r.param("owner"), r.param("repo"))
	out := []map[string]any{}
	for i := len(rp.releases) - 1; i >= 0; i-- {
		if rel := rp.releases[i]; !rel.Draft {
			out = append(out, s.releaseJSON(rp, rel))
		}
	}
	writeJSON(w, http.StatusOK, page(w, r.Request, out))
}

// getLatestRelease answers the most recent published release that is not a prerelease.
func (s *Server) getLatestRelease(w http.ResponseWriter, r *request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(r.param("owner"), r.param("repo"))
	for i := len(rp.releases) - 1; i >= 0; i-- {
		if rel := rp.releases[i]; !rel.Draft && !rel.Prerelease {
			writeJSON(w, http.StatusOK, s.releaseJSON(rp, rel))
			return
		}
	}
	writeError(w, http.StatusNotFound, "Not Found")
}

func (s *Server) getReleaseByTag(w http.ResponseWriter, r *request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(r.param("owner"), r.param("repo"))
	for _, rel := range rp.releases {
		if rel.Tag == r.param("tag") && !rel.Draft {
			writeJSON(w, http.StatusOK, s.releaseJSON(rp, rel))
			return
		}
	}
	writeError(w, http.StatusNotFound, "Not Found")
}

// getReleaseAsset answers the asset's JSON or, asked for application/octet-stream, redirects
// to its content, as GitHub does.
func (s *Server) getReleaseAsset(w http.ResponseWriter, r *request) {
	id, ok := pathInt(w, r, "asset_id")
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(r.param("owner"), r.param("repo"))
	for _, rel := range rp.releases {
		for _, a := range rel.assets {
			if a.id != id {
				continue
			}
			if strings.Contains(r.Header.Get("Accept"), "application/octet-stream") {
				w.Header().Set("Location", fmt.Sprintf("%s%s%d", s.srv.URL, releaseBlobPrefix, a.id))
				w.WriteHeader(http.StatusFound)
				return
			}
			writeJSON(w, http.StatusOK, s.assetJSON(rp, rel, a))
			return
		}
	}
	writeError(w, http.StatusNotFound, "Not Found")
}

// serveReleaseFile serves the browser download URL (a redirect) and the storage behind it;
// it reports whether the request was one of them.
func (s *Server) serveReleaseFile(w http.ResponseWriter, r *http.Request) bool {
	switch {
	case strings.HasPrefix(r.URL.Path, releaseBlobPrefix):
		s.countRequest(r.Method + " " + releaseBlobPrefix + "{id}")
		id, err := strconv.ParseInt(strings.TrimPrefix(r.URL.Path, releaseBlobPrefix), 10, 64)
		if err != nil || r.Method != http.MethodGet {
			http.NotFound(w, r)
			return true
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, rp := range s.repos {
			for _, rel := range rp.releases {
				for _, a := range rel.assets {
					if a.id == id {
						w.Header().Set("Content-Type", a.ContentType)
						w.Header().Set("Content-Length", strconv.Itoa(len(a.Data)))
						_, _ = w.Write(a.Data)
						return true
					}
				}
			}
		}
		http.NotFound(w, r)
		return true
	case strings.HasPrefix(r.URL.Path, releaseDownloadPrefix):
		s.countRequest(r.Method + " " + releaseDownloadPrefix + "{owner}/{repo}/releases/download/{tag}/{name}")
		parts := strings.Split(strings.TrimPrefix(r.URL.Path, releaseDownloadPrefix), "/")
		if len(parts) != 6 || parts[2] != "releases" || parts[3] != "download" || r.Method != http.MethodGet {
			http.NotFound(w, r)
			return true
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		rp := s.repos[strings.ToLower(parts[0]+"/"+parts[1])]
		if rp == nil {
			http.NotFound(w, r)
			return true
		}
		for _, rel := range rp.releases {
			if rel.Tag != parts[4] || rel.Draft {
				continue
			}
			for _, a := range rel.assets {
				if a.Name == parts[5] {
					http.Redirect(w, r, fmt.Sprintf("%s%s%d", s.srv.URL, releaseBlobPrefix, a.id), http.StatusFound)
					return true
				}
			}
		}
		http.NotFound(w, r)
		return true
	}
	return false
}
