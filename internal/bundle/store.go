package bundle

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/tfgate/tfgate/internal/github"
)

// Want names the bundles apply looks for.
type Want struct {
	PR           int    // the pull request, for messages
	HeadSHA      string // the commit that was planned and reviewed
	ArtifactName string // default "tfgate-plan-" + HeadSHA
}

func (w Want) artifactName() string {
	if w.ArtifactName != "" {
		return w.ArtifactName
	}
	if w.HeadSHA == "" {
		return ""
	}
	return "tfgate-plan-" + w.HeadSHA
}

func (w Want) forWhat() string {
	s := "commit " + abbrev(w.HeadSHA)
	if w.HeadSHA == "" {
		s = "this commit"
	}
	if w.PR != 0 {
		s += fmt.Sprintf(" of pull request #%d", w.PR)
	}
	return s
}

// Store is where apply finds the bundles a plan run made.
type Store interface {
	// Fetch makes the bundles available in a local directory (dest is a scratch dir the
	// caller owns) and returns that directory: an --out directory that List reads.
	Fetch(ctx context.Context, w Want, dest string) (string, error)
	String() string // where, for messages: "directory plans/" or "GitHub artifact tfgate-plan-<sha>"
}

// DirStore is --plans DIR: the directory `plan --out DIR` wrote, used as it is.
func DirStore(path string) Store { return dirStore(path) }

type dirStore string

func (d dirStore) Fetch(ctx context.Context, _ Want, _ string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	st, err := os.Stat(string(d))
	if os.IsNotExist(err) {
		return "", fmt.Errorf("plans directory %s does not exist: pass --plans the directory `tfgate plan --out` wrote: %w", string(d), ErrNoBundle)
	}
	if err != nil {
		return "", fmt.Errorf("plans directory: %w", err)
	}
	if !st.IsDir() {
		return "", fmt.Errorf("plans directory %s is not a directory: pass --plans the directory `tfgate plan --out` wrote", string(d))
	}
	return string(d), nil
}

func (d dirStore) String() string { return "directory " + strings.TrimSuffix(string(d), "/") + "/" }

// ArtifactAPI is the subset of internal/github's API the GitHub store uses.
type ArtifactAPI interface {
	ListArtifacts(ctx context.Context, repo github.Repo, name string, runID int64) ([]github.Artifact, error)
	DownloadArtifact(ctx context.Context, repo github.Repo, id int64) ([]byte, error)
}

// GitHubStore is --plans github: the Actions artifact the plan workflow uploaded
// (actions/upload-artifact of the --out directory, so entries are
// <bundle-dir>/manifest.json and <bundle-dir>/plan.tfplan or bundle.age). Fetch takes the
// newest unexpired artifact of the wanted name in the whole repository and unpacks it with
// Unzip's default limits.
//
// After a Fetch, String names the artifact that was fetched (or looked for).
func GitHubStore(api ArtifactAPI, repo github.Repo) Store {
	return &githubStore{api: api, repo: repo}
}

type githubStore struct {
	api  ArtifactAPI
	repo github.Repo

	mu        sync.Mutex
	last      string                   // the artifact name of the last Fetch, for String
	published map[string][]Publication // by artifact name, as the last Fetch that found it listed them (history.go)
}

func (s *githubStore) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.last == "" {
		return "GitHub artifacts of " + s.repo.String()
	}
	return "GitHub artifact " + s.last
}

func (s *githubStore) Fetch(ctx context.Context, w Want, dest string) (string, error) {
	name, a, err := s.find(ctx, w)
	if err != nil {
		return "", err
	}
	return s.unpack(ctx, name, a, dest)
}

// find lists the artifacts called w's name and picks the one to fetch.
func (s *githubStore) find(ctx context.Context, w Want) (string, github.Artifact, error) {
	name := w.artifactName()
	if name == "" {
		return "", github.Artifact{}, fmt.Errorf("GitHub store: no commit SHA or artifact name to look for")
	}
	s.mu.Lock()
	s.last = name
	s.mu.Unlock()

	list, err := s.api.ListArtifacts(ctx, s.repo, name, 0)
	if err != nil {
		return "", github.Artifact{}, fmt.Errorf("look for plan artifact %q: %w", name, err)
	}
	list, foreign := trusted(list, w.HeadSHA)
	a, found, expired := newest(list, name)
	switch {
	case !found && expired > 0:
		return "", github.Artifact{}, fmt.Errorf("plan artifact %q in %s for %s has expired (the repository's artifact retention): a new plan is needed: re-run the plan workflow for that commit and have the plan reviewed: %w",
			name, s.repo, w.forWhat(), ErrNoBundle)
	case !found && foreign > 0:
		return "", github.Artifact{}, fmt.Errorf("no plan artifact %q in %s for %s from the repository's own runs: %d uploaded by a fork's run, by a run for another commit or by a run GitHub does not describe were ignored (such code chooses the name it likes); the plan workflow must run for that commit: %w",
			name, s.repo, w.forWhat(), foreign, ErrNoBundle)
	case !found:
		return "", github.Artifact{}, fmt.Errorf("no plan artifact %q in %s for %s: the plan workflow must run (again) for that commit and upload its bundles: %w",
			name, s.repo, w.forWhat(), ErrNoBundle)
	}
	s.remember(list, name, a)
	return name, a, nil
}

// unpack downloads artifact a (called name) and unzips it into dest.
func (s *githubStore) unpack(ctx context.Context, name string, a github.Artifact, dest string) (string, error) {
	if err := emptyDir(dest); err != nil {
		return "", fmt.Errorf("fetch plan artifact %q: %w", name, err)
	}
	data, err := s.api.DownloadArtifact(ctx, s.repo, a.ID)
	if err != nil {
		return "", fmt.Errorf("fetch plan artifact %q (id %d): %w", name, a.ID, err)
	}
	if err := Unzip(data, dest, Limits{}); err != nil {
		return "", fmt.Errorf("plan artifact %q (id %d, run %d): %w", name, a.ID, a.RunID, err)
	}
	return dest, nil
}

// trusted drops artifacts that a fork's workflow run uploaded, or that a run for another
// commit than headSHA did, or whose run GitHub does not say: a fork's pull_request run uploads into the base repository
// under any name it likes, and only the repository's own plan of the reviewed head counts.
func trusted(list []github.Artifact, headSHA string) ([]github.Artifact, int) {
	var out []github.Artifact
	for _, a := range list {
		// Fail closed: an artifact whose run GitHub does not describe is not trusted either.
		if a.RepositoryID == 0 || a.HeadRepositoryID != a.RepositoryID || (headSHA != "" && a.HeadSHA != headSHA) {
			continue
		}
		out = append(out, a)
	}
	return out, len(list) - len(out)
}

// newest picks the newest unexpired artifact called name, and counts the expired ones.
func newest(list []github.Artifact, name string) (best github.Artifact, found bool, expired int) {
	for _, a := range list {
		switch {
		case a.Name != name:
		case a.Expired:
			expired++
		case !found || a.CreatedAt.After(best.CreatedAt) || (a.CreatedAt.Equal(best.CreatedAt) && a.ID > best.ID):
			best, found = a, true
		}
	}
	return best, found, expired
}

// emptyDir makes dir if missing (0700) and refuses one that holds anything, so bundles of
// an earlier fetch never mix with these.
func emptyDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	if len(entries) > 0 {
		return fmt.Errorf("destination %s is not empty", dir)
	}
	return nil
}
