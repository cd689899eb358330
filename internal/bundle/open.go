package bundle

import (
	"archive/tar"
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"filippo.io/age"
)

// MaxOpenBytes bounds the decrypted archive of one bundle (manifest, plan file and tar
// framing), counted while decrypting, so a hostile bundle.age cannot fill the disk.
const MaxOpenBytes = 512 << 20

var maxOpen int64 = MaxOpenBytes // tests lower it

// Opened is a bundle ready to apply: its checked manifest and the verified plan file.
type Opened struct {
	Manifest Manifest // for a sealed bundle, the manifest sealed with the plan
	Dir      string   // the directory holding the plan file: the bundle's, or one under scratch
	PlanPath string   // the plan file whose sha256 equals Manifest.PlanSHA256
	// Plan is the plan file itself, when it was opened in memory (Artifact.Open; no
	// PlanPath, no Dir).
	Plan []byte
}

// Open makes the bundle in dir ready to apply and proves its plan file is the one planned.
//
// A sealed bundle needs passphrase (ErrNoKey without one, ErrWrongKey when it does not
// decrypt); it is decrypted into a new directory under scratch, which must be a private
// (0700) directory the caller owns and removes; the sealed manifest must equal the clear
// one field by field (ErrTampered). A plain bundle is used in place, but refused with
// ErrUnencrypted when a passphrase is given: with a key configured, only a bundle that
// decrypts with it can come from tfgate's own plan run.
//
// Either way the plan file's sha256 must equal the manifest's (ErrTampered).
func Open(ctx context.Context, dir, passphrase, scratch string) (Opened, error) {
	m, err := Read(ctx, dir)
	if err != nil {
		return Opened{}, err
	}
	if !m.Encrypted {
		return openPlain(m, dir, passphrase)
	}
	if passphrase == "" {
		return Opened{}, fmt.Errorf("the bundle of project %s in %s is encrypted: TFGATE_PLAN_KEY is needed to open it (the key the plan run sealed it with): %w",
			m.Project, dir, ErrNoKey)
	}
	if err := privateDir(scratch); err != nil {
		return Opened{}, fmt.Errorf("open bundle of %s: %w", m.Project, err)
	}
	out, err := os.MkdirTemp(scratch, "bundle-")
	if err != nil {
		return Opened{}, fmt.Errorf("open bundle of %s: %w", m.Project, err)
	}
	o, err := openSealed(ctx, m, dir, passphrase, out)
	if err != nil {
		os.RemoveAll(out)
		return Opened{}, err
	}
	return o, nil
}

func openPlain(m Manifest, dir, passphrase string) (Opened, error) {
	if _, err := os.Lstat(filepath.Join(dir, SealedFile)); err == nil {
		return Opened{}, fmt.Errorf("bundle of project %s in %s: the manifest says plain but %s is there: the manifest was edited: %w",
			m.Project, dir, SealedFile, ErrTampered)
	}
	if passphrase != "" {
		return Opened{}, fmt.Errorf("bundle of project %s in %s is not encrypted, but TFGATE_PLAN_KEY is set: refusing a plan anyone able to upload an artifact could have made; plan again with TFGATE_PLAN_KEY set: %w",
			m.Project, dir, ErrUnencrypted)
	}
	planPath := filepath.Join(dir, PlanFile)
	if err := verifyPlan(m, planPath); err != nil {
		return Opened{}, err
	}
	return Opened{Manifest: m, Dir: dir, PlanPath: planPath}, nil
}

func openSealed(ctx context.Context, clear Manifest, dir, passphrase, out string) (Opened, error) {
	what := fmt.Sprintf("bundle of project %s in %s", clear.Project, dir)
	f, err := os.Open(filepath.Join(dir, SealedFile))
	if err != nil {
		return Opened{}, fmt.Errorf("open %s: %w", what, err)
	}
	defer f.Close()
	planPath := filepath.Join(out, PlanFile)
	inner, err := unseal(ctx, clear, dir, bufio.NewReaderSize(f, 64<<10), passphrase, func(r io.Reader) error {
		return copyToFile(planPath, r)
	})
	if err != nil {
		return Opened{}, err
	}
	if err := verifyPlan(inner, planPath); err != nil {
		return Opened{}, err
	}
	return Opened{Manifest: inner, Dir: out, PlanPath: planPath}, nil
}

// unseal decrypts sealed, the bundle.age of the bundle in dir (its clear manifest:
// clear), hands its plan file to plan, and returns the sealed manifest, which must equal
// the clear one field by field (ErrTampered). The caller verifies the plan file's sha256.
func unseal(ctx context.Context, clear Manifest, dir string, sealed io.Reader, passphrase string, plan func(io.Reader) error) (Manifest, error) {
	what := fmt.Sprintf("bundle of project %s in %s", clear.Project, dir)
	id, err := age.NewScryptIdentity(passphrase)
	if err != nil {
		return Manifest{}, fmt.Errorf("open %s: %w", what, err)
	}
	id.SetMaxWorkFactor(workFactor)
	dec, err := age.Decrypt(sealed, id)
	var noMatch *age.NoIdentityMatchError
	switch {
	case errors.As(err, &noMatch):
		return Manifest{}, fmt.Errorf("TFGATE_PLAN_KEY does not decrypt the bundle of project %s (wrong key?) in %s: %w", clear.Project, dir, ErrWrongKey)
	case err != nil:
		return Manifest{}, fmt.Errorf("%s: %s is damaged or not tfgate's: %v: %w", what, SealedFile, err, ErrTampered)
	}

	lim := &limitedReader{r: ctxReader{ctx, dec}, left: maxOpen}
	manifest, err := untarTo(lim, plan)
	if err != nil {
		if ctx.Err() != nil {
			return Manifest{}, ctx.Err()
		}
		return Manifest{}, fmt.Errorf("%s: %s: %w", what, SealedFile, err)
	}
	inner, err := parseManifest(manifest)
	if err != nil {
		return Manifest{}, fmt.Errorf("%s: the sealed manifest: %w", what, err)
	}
	diff, err := diffFields(inner, clear)
	if err != nil {
		return Manifest{}, err
	}
	if len(diff) > 0 {
		verb := "differs"
		if len(diff) > 1 {
			verb = "differ"
		}
		return Manifest{}, fmt.Errorf("%s: manifest.json was altered after sealing (%s %s from the sealed copy); plan again for a bundle to trust: %w",
			what, strings.Join(diff, ", "), verb, ErrTampered)
	}
	return inner, nil
}

// untarBundle writes the sealed archive's two files into out and returns the manifest.
func untarBundle(r io.Reader, out string) ([]byte, error) {
	return untarTo(r, func(r io.Reader) error { return copyToFile(filepath.Join(out, PlanFile), r) })
}

// untarTo reads the sealed archive, hands its plan file to plan and returns the manifest.
// It reads the decrypted stream to its end: age authenticates the last chunk only there,
// so a truncated bundle.age is noticed.
func untarTo(r io.Reader, plan func(io.Reader) error) ([]byte, error) {
	tr := tar.NewReader(r)
	var manifest []byte
	seen := map[string]bool{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, damaged(err)
		}
		if h.Typeflag != tar.TypeReg || (h.Name != ManifestFile && h.Name != PlanFile) || seen[h.Name] {
			return nil, fmt.Errorf("unexpected entry %q (type %q): %w", clip(h.Name), h.Typeflag, ErrMalformed)
		}
		seen[h.Name] = true
		// A sparse entry (GNU's, which archive/tar expands) is as large as it says with
		// next to nothing behind it: 1.5 KB of archive can write gigabytes of zeros. No
		// entry tfgate seals is sparse, and none can be larger than the stream it comes in.
		if sparse(h) {
			return nil, fmt.Errorf("entry %q is a sparse file: %w", clip(h.Name), ErrMalformed)
		}
		if h.Size > maxOpen {
			return nil, fmt.Errorf("entry %q holds more than %d MiB: %w", clip(h.Name), maxOpen>>20, ErrMalformed)
		}
		if h.Name == ManifestFile {
			if manifest, err = io.ReadAll(io.LimitReader(tr, maxManifestBytes+1)); err != nil {
				return nil, damaged(err)
			}
			if len(manifest) > maxManifestBytes {
				return nil, fmt.Errorf("sealed manifest larger than %d MiB: %w", maxManifestBytes>>20, ErrMalformed)
			}
			continue
		}
		if err := plan(&limitedReader{r: tr, left: maxOpen}); err != nil {
			return nil, damaged(err)
		}
	}
	if _, err := io.Copy(io.Discard, r); err != nil {
		return nil, damaged(err)
	}
	if !seen[ManifestFile] || !seen[PlanFile] {
		return nil, fmt.Errorf("the archive lacks %s or %s: %w", ManifestFile, PlanFile, ErrMalformed)
	}
	return manifest, nil
}

// sparse reports whether a tar header describes a sparse file, in any of GNU's formats.
func sparse(h *tar.Header) bool {
	if h.Typeflag == tar.TypeGNUSparse {
		return true
	}
	for k := range h.PAXRecords {
		if strings.HasPrefix(k, "GNU.sparse.") {
			return true
		}
	}
	return false
}

func damaged(err error) error {
	if errors.Is(err, errTooLarge) {
		return fmt.Errorf("decrypts to more than %d MiB: %w", maxOpen>>20, ErrMalformed)
	}
	return fmt.Errorf("damaged (%v): %w", err, ErrTampered)
}

func copyToFile(path string, r io.Reader) (err error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	_, err = io.Copy(f, r)
	return err
}

// privateDir: scratch exists, is a directory, and only its owner may enter it (it will
// hold a plan file in clear text).
func privateDir(dir string) error {
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("scratch directory: %w", err)
	}
	if !st.IsDir() {
		return fmt.Errorf("scratch directory %s is not a directory", dir)
	}
	if st.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("scratch directory %s has mode %v: decrypted plans need a private (0700) directory", dir, st.Mode().Perm())
	}
	return nil
}

// verifyPlan proves the plan file is the one planned.
func verifyPlan(m Manifest, planPath string) error {
	sum, err := fileSHA256(planPath)
	if err != nil {
		return fmt.Errorf("plan file of project %s: %w", m.Project, err)
	}
	return checkPlanSum(m, planPath, sum)
}

// checkPlanSum: the plan file at planPath, of sha256 sum, is the one m records.
func checkPlanSum(m Manifest, planPath, sum string) error {
	if sum != m.PlanSHA256 {
		return fmt.Errorf("plan file %s of project %s has sha256 %s, the manifest records %s: the plan file was changed after planning; plan again for a bundle to trust: %w",
			planPath, m.Project, abbrev(sum), abbrev(m.PlanSHA256), ErrTampered)
	}
	return nil
}

var errTooLarge = errors.New("too large")

// limitedReader fails, rather than stopping quietly, past its limit.
type limitedReader struct {
	r    io.Reader
	left int64
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.left <= 0 {
		// One byte more tells a stream ending exactly at the limit from a longer one.
		var one [1]byte
		n, err := l.r.Read(one[:])
		if n > 0 {
			return 0, errTooLarge
		}
		return 0, err
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	return n, err
}

// ctxReader stops a long copy when ctx is cancelled.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
