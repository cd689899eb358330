package githubtest

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// Releases answer as GitHub's do: the latest skips drafts and prereleases, a tag finds its
// release, and an asset downloads from the API URL (Accept: application/octet-stream) or
// the browser URL, both through a redirect to storage that needs no token.
func TestReleases(t *testing.T) {
	s := New(t)
	s.AddRelease("tfgate/tfgate", Release{Tag: "v1.0.0", Assets: []Asset{{Name: "checksums.txt", ContentType: "text/plain", Data: []byte("old\n")}}})
	s.AddRelease("tfgate/tfgate", Release{Tag: "v1.1.0", Assets: []Asset{
		{Name: "tfgate_1.1.0_linux_amd64.tar.gz", Data: []byte("archive")},
		{Name: "checksums.txt", ContentType: "text/plain", Data: []byte("sums\n")},
	}})
	s.AddRelease("tfgate/tfgate", Release{Tag: "v1.2.0-rc.1", Prerelease: true})
	s.AddRelease("tfgate/tfgate", Release{Tag: "v1.2.0", Draft: true})

	r := call(t, s, InstallationToken, "GET", "/repos/tfgate/tfgate/releases/latest", nil)
	want(t, r, 200)
	var rel struct {
		Tag    string `json:"tag_name"`
		Assets []struct {
			Name, URL, Digest  string
			BrowserDownloadURL string `json:"browser_download_url"`
		} `json:"assets"`
	}
	if err := json.Unmarshal(r.body, &rel); err != nil {
		t.Fatal(err)
	}
	if rel.Tag != "v1.1.0" || len(rel.Assets) != 2 {
		t.Fatalf("latest release = %s with %d assets, want v1.1.0 (no draft, no prerelease) with 2", rel.Tag, len(rel.Assets))
	}
	archive := rel.Assets[0]
	if archive.Digest != "sha256:0eb3e36bfb24dcd9bb1d1bece1531216b59539a8fde17ee80224af0653c92aa3" {
		t.Errorf("asset digest %q, want sha256:<hex>", archive.Digest)
	}

	// The API URL: JSON by default, a redirect for application/octet-stream.
	r = call(t, s, InstallationToken, "GET", archive.URL, nil)
	want(t, r, 200)
	req, _ := http.NewRequest("GET", archive.URL, nil)
	req.Header.Set("Accept", "application/octet-stream")
	req.Header.Set("Authorization", "Bearer "+InstallationToken)
	if got := download(t, req); got != "archive" {
		t.Errorf("asset download via the API URL = %q, want the archive", got)
	}
	req, _ = http.NewRequest("GET", archive.BrowserDownloadURL, nil)
	if got := download(t, req); got != "archive" {
		t.Errorf("asset download via browser_download_url = %q, want the archive", got)
	}

	for path, status := range map[string]int{
		"/repos/tfgate/tfgate/releases/tags/v1.0.0":      200,
		"/repos/tfgate/tfgate/releases/tags/v1.2.0-rc.1": 200,
		"/repos/tfgate/tfgate/releases/tags/v1.2.0":      404, // a draft
		"/repos/tfgate/tfgate/releases/tags/v9.9.9":      404,
		"/repos/acme/infra/releases/latest":              404,
		"/repos/tfgate/tfgate/releases/assets/1":         404,
	} {
		want(t, call(t, s, InstallationToken, "GET", path, nil), status)
	}
	if n := s.Count("GET /repos/{owner}/{repo}/releases/latest"); n != 2 {
		t.Errorf("counted %d latest-release requests, want 2", n)
	}
}

// download follows redirects, as curl -L does, and returns the body of a 200.
func download(t *testing.T, req *http.Request) string {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %s", req.URL, resp.StatusCode, b)
	}
	return string(b)
}

// Listing releases gives the published ones newest first, paged (drafts left out), and the
// tags API gives each release's tag, and a moved major tag, with the commit it points at:
// what the action reads to find the newest v1.x.y and the release of a pinned commit.
func TestListReleasesAndTags(t *testing.T) {
	s := New(t)
	c1, c2 := "1111111111111111111111111111111111111111", "2222222222222222222222222222222222222222"
	s.AddRelease("tfgate/tfgate", Release{Tag: "v1.0.0", Commit: c1})
	s.AddRelease("tfgate/tfgate", Release{Tag: "v1.1.0", Commit: c2})
	s.AddRelease("tfgate/tfgate", Release{Tag: "v1.2.0", Draft: true})
	s.SetRef("tfgate/tfgate", "refs/tags/v1", c2)

	var rels []struct {
		Tag string `json:"tag_name"`
	}
	r := call(t, s, InstallationToken, "GET", "/repos/tfgate/tfgate/releases?per_page=1&page=2", nil)
	want(t, r, 200)
	if err := json.Unmarshal(r.body, &rels); err != nil {
		t.Fatal(err)
	}
	if len(rels) != 1 || rels[0].Tag != "v1.0.0" {
		t.Errorf("second page of one release = %+v, want v1.0.0 (newest first, no draft)", rels)
	}
	if link := r.header.Get("Link"); !strings.Contains(link, `rel="prev"`) || strings.Contains(link, `rel="next"`) {
		t.Errorf("Link %q, want a prev and no next page", link)
	}

	r = call(t, s, InstallationToken, "GET", "/repos/tfgate/tfgate/tags", nil)
	want(t, r, 200)
	var tags []struct {
		Name   string
		Commit struct{ SHA string }
	}
	if err := json.Unmarshal(r.body, &tags); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, tag := range tags {
		got[tag.Name] = tag.Commit.SHA
	}
	if len(tags) != 3 || got["v1"] != c2 || got["v1.1.0"] != c2 || got["v1.0.0"] != c1 {
		t.Errorf("tags = %+v, want v1.1.0 and v1 on %s, v1.0.0 on %s", tags, c2, c1)
	}
}
