package bundle

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/tfgate/tfgate/internal/github"
)

// An artifact read where it lies: what a push reusing the previous push's plans reads of
// them (docs/busy-repositories.md). Unpacking dozens of bundles to disk, only to copy
// their plan files again into --out and remove them, was most of what reuse cost: the
// archive is read in memory instead, under the same checks as Unzip (every entry's name
// and kind before anything is read, MaxBytes counted while decompressing), and a bundle
// in it opens under the same proofs as Open.

// Artifact is a downloaded artifact (a zip archive of an --out directory), unpacked.
type Artifact struct {
	name  string // for messages: "plan artifact tfgate-plan-<sha>"
	files map[string]*zip.File

	mu   sync.Mutex
	left int64 // the bytes still allowed to decompress (Limits.MaxBytes)
}

// FetchArtifact finds the plan artifact w wants as GitHubStore's Fetch does (the same
// name, the same trust in who uploaded it) and downloads it, without unpacking it.
func FetchArtifact(ctx context.Context, api ArtifactAPI, repo github.Repo, w Want) (*Artifact, error) {
	s := &githubStore{api: api, repo: repo}
	name, a, err := s.find(ctx, w)
	if err != nil {
		return nil, err
	}
	data, err := api.DownloadArtifact(ctx, repo, a.ID)
	if err != nil {
		return nil, fmt.Errorf("fetch plan artifact %q (id %d): %w", name, a.ID, err)
	}
	art, err := ReadArtifact(data, fmt.Sprintf("plan artifact %q", name), Limits{})
	if err != nil {
		return nil, fmt.Errorf("plan artifact %q (id %d, run %d): %w", name, a.ID, a.RunID, err)
	}
	return art, nil
}

// ReadArtifact reads the zip archive data, refusing it whole as Unzip does (ErrUnsafeArchive,
// ErrMalformed); name says what it is in messages.
func ReadArtifact(data []byte, name string, lim Limits) (*Artifact, error) {
	lim = lim.withDefaults()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) { // checkEntries is stricter
		return nil, fmt.Errorf("not a zip archive (%v): %w", err, ErrMalformed)
	}
	if len(zr.File) > lim.MaxFiles {
		return nil, unsafeArchive("", "%d entries, more than the %d allowed", len(zr.File), lim.MaxFiles)
	}
	names, err := checkEntries(zr.File, lim)
	if err != nil {
		return nil, err
	}
	a := &Artifact{name: name, files: map[string]*zip.File{}, left: lim.MaxBytes}
	for i, f := range zr.File {
		if !f.Mode().IsDir() {
			a.files[names[i]] = f
		}
	}
	return a, nil
}

// String names the artifact.
func (a *Artifact) String() string { return a.name }

// ReadFile is the content of the regular file name ("dir/file"), at most max bytes
// (ErrMalformed beyond); fs.ErrNotExist-like errors say it is missing.
func (a *Artifact) ReadFile(name string, max int64) ([]byte, error) {
	f, ok := a.files[name]
	if !ok {
		return nil, fmt.Errorf("%s holds no %s: %w", a.name, name, errMissing)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %v: %w", a.name, name, err, ErrMalformed)
	}
	defer rc.Close()
	data, err := io.ReadAll(&limitedReader{r: rc, left: max})
	switch {
	case errors.Is(err, errTooLarge):
		return nil, fmt.Errorf("%s: %s is larger than %d MiB: %w", a.name, name, max>>20, ErrMalformed)
	case err != nil:
		return nil, fmt.Errorf("%s: %s: damaged (%v): %w", a.name, name, err, ErrMalformed)
	}
	return data, a.spend(name, int64(len(data)))
}

// spend counts n decompressed bytes against the artifact's limit.
func (a *Artifact) spend(name string, n int64) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.left -= n; a.left < 0 {
		return unsafeArchive(name, "more than the bytes allowed uncompressed in all")
	}
	return nil
}

// errMissing: the artifact holds no such file.
var errMissing = errors.New("no such file")

// Has reports whether the artifact holds the regular file name.
func (a *Artifact) Has(name string) bool {
	_, ok := a.files[name]
	return ok
}

// Bundles are the artifact's bundle directories, as List finds them in an --out
// directory: each top-level directory, not hidden, holding manifest.json; sorted.
func (a *Artifact) Bundles() []string {
	var dirs []string
	for name := range a.files {
		dir, file := path.Split(name)
		dir = strings.TrimSuffix(dir, "/")
		if file == ManifestFile && dir != "" && !strings.Contains(dir, "/") && dir[0] != '.' {
			dirs = append(dirs, dir)
		}
	}
	sort.Strings(dirs)
	return dirs
}

// Manifest loads and checks the manifest of the bundle in dir, as Read does.
func (a *Artifact) Manifest(ctx context.Context, dir string) (Manifest, error) {
	if err := ctx.Err(); err != nil {
		return Manifest{}, err
	}
	data, err := a.ReadFile(dir+"/"+ManifestFile, maxManifestBytes)
	if err != nil {
		return Manifest{}, fmt.Errorf("read bundle: %w", err)
	}
	m, err := parseManifest(data)
	if err != nil {
		return Manifest{}, fmt.Errorf("read bundle %s/%s in %s: %w", dir, ManifestFile, a.name, err)
	}
	return m, nil
}

// Open proves the bundle in dir as Open proves one on disk — a plain bundle refused with
// a key (ErrUnencrypted) or beside a bundle.age (ErrTampered), a sealed one decrypted with
// the key and its sealed manifest equal to the clear one, the plan file's sha256 the
// manifest's — and returns it with the plan file in memory (Opened.Plan; no PlanPath).
func (a *Artifact) Open(ctx context.Context, dir, passphrase string) (Opened, error) {
	m, err := a.Manifest(ctx, dir)
	if err != nil {
		return Opened{}, err
	}
	where := a.name + " " + dir
	if !m.Encrypted {
		return a.openPlain(m, dir, where, passphrase)
	}
	if passphrase == "" {
		return Opened{}, fmt.Errorf("the bundle of project %s in %s is encrypted: TFGATE_PLAN_KEY is needed to open it (the key the plan run sealed it with): %w",
			m.Project, where, ErrNoKey)
	}
	sealed, err := a.ReadFile(dir+"/"+SealedFile, maxOpen)
	if err != nil {
		return Opened{}, fmt.Errorf("open bundle of %s: %w", m.Project, err)
	}
	var plan []byte
	inner, err := unseal(ctx, m, where, bytes.NewReader(sealed), passphrase, func(r io.Reader) (rerr error) {
		plan, rerr = io.ReadAll(r)
		return rerr
	})
	if err != nil {
		return Opened{}, err
	}
	return planInMemory(inner, where, plan)
}

func (a *Artifact) openPlain(m Manifest, dir, where, passphrase string) (Opened, error) {
	if a.Has(dir + "/" + SealedFile) {
		return Opened{}, fmt.Errorf("bundle of project %s in %s: the manifest says plain but %s is there: the manifest was edited: %w",
			m.Project, where, SealedFile, ErrTampered)
	}
	if passphrase != "" {
		return Opened{}, fmt.Errorf("bundle of project %s in %s is not encrypted, but TFGATE_PLAN_KEY is set: refusing a plan anyone able to upload an artifact could have made; plan again with TFGATE_PLAN_KEY set: %w",
			m.Project, where, ErrUnencrypted)
	}
	plan, err := a.ReadFile(dir+"/"+PlanFile, maxOpen)
	if err != nil {
		return Opened{}, fmt.Errorf("plan file of project %s: %w", m.Project, err)
	}
	return planInMemory(m, where, plan)
}

// planInMemory is the bundle m with its plan file plan, once its sha256 is m's.
func planInMemory(m Manifest, where string, plan []byte) (Opened, error) {
	sum := sha256.Sum256(plan)
	if err := checkPlanSum(m, where+"/"+PlanFile, hex.EncodeToString(sum[:])); err != nil {
		return Opened{}, err
	}
	return Opened{Manifest: m, Plan: plan}, nil
}
