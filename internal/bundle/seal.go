package bundle

import (
	"archive/tar"
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"filippo.io/age"

	"github.com/tfgate/tfgate/internal/fileio"
)

// WorkFactor is the scrypt work factor (log2 N) Seal encrypts with, and the largest Open
// accepts. age's default, 18, costs about 0.7 s and 256 MiB per file on a CI runner; a run
// seals one bundle per project and opens as many on apply, several at once. 16 costs about
// 0.17 s and 64 MiB (measured on 2 cores, see BenchmarkSealOpen): dozens of projects stay
// within seconds and a 7 GiB runner's memory with parallel workers. It is weaker against
// guessing than 18, which is why Seal wants a long random key rather than a password.
//
// Opening accepts at most this factor, so a hostile bundle.age cannot demand 2^30 rounds
// (hours and 128 GiB). Raising it later: raise the limit in Open first, release, then raise
// what Seal writes.
const WorkFactor = 16

// workFactor is WorkFactor; tests lower it, as scrypt under the race detector is slow.
var workFactor = WorkFactor

// MinKeyLength is the shortest TFGATE_PLAN_KEY Seal accepts. Sealed bundles are readable
// by whoever may download the repository's artifacts, so the key must resist offline
// guessing: a human password at work factor 16 does not.
const MinKeyLength = 16

// Seal encrypts the bundle Write completed in dir with passphrase (TFGATE_PLAN_KEY): it
// writes bundle.age, an age (scrypt) encryption of a tar archive holding manifest.json and
// plan.tfplan, rewrites the clear manifest.json with encrypted: true (it carries no secrets,
// and lets listings and reports work without the key) and removes plan.tfplan. The
// manifest's plan_sha256 stays the sha256 of the clear plan file terraform applies.
func Seal(ctx context.Context, dir, passphrase string) error {
	m, err := Read(ctx, dir)
	if err != nil {
		return fmt.Errorf("seal: %w", err)
	}
	if m.Encrypted {
		return fmt.Errorf("seal bundle of %s in %s: already sealed", m.Project, dir)
	}
	if len(passphrase) < MinKeyLength {
		return fmt.Errorf("seal bundle of %s: TFGATE_PLAN_KEY has %d characters, want at least %d random ones (for example `openssl rand -base64 32`)",
			m.Project, len(passphrase), MinKeyLength)
	}
	planPath := filepath.Join(dir, PlanFile)
	m.Encrypted = true
	manifest, err := marshalManifest(m)
	if err != nil {
		return err
	}
	sum, err := writeSealed(ctx, filepath.Join(dir, SealedFile), passphrase, manifest, planPath, m.PlanSHA256)
	if err != nil {
		if errors.Is(err, errPlanChanged) {
			return fmt.Errorf("seal: plan file %s of project %s has sha256 %s, the manifest records %s: the plan file was changed after planning: %w",
				planPath, m.Project, abbrev(sum), abbrev(m.PlanSHA256), ErrTampered)
		}
		return fmt.Errorf("seal bundle of %s: %w", m.Project, err)
	}
	if err := fileio.WriteAtomic(filepath.Join(dir, ManifestFile), manifest, 0o600); err != nil {
		return fmt.Errorf("seal bundle of %s: %w", m.Project, err)
	}
	if err := os.Remove(planPath); err != nil {
		return fmt.Errorf("seal bundle of %s: the clear plan file stays: %w", m.Project, err)
	}
	return nil
}

var errPlanChanged = errors.New("plan file changed")

// writeSealed streams manifest and plan file through tar and age into path (0600),
// replacing it only when complete and when the plan sealed has sha256 wantSum (it returns
// the sum it saw): the plan file is read once, and what is sealed is what was checked.
func writeSealed(ctx context.Context, path, passphrase string, manifest []byte, planPath, wantSum string) (sum string, err error) {
	r, err := age.NewScryptRecipient(passphrase)
	if err != nil {
		return "", err
	}
	r.SetWorkFactor(workFactor)
	plan, err := os.Open(planPath)
	if err != nil {
		return "", err
	}
	defer plan.Close()
	st, err := plan.Stat()
	if err != nil {
		return "", err
	}

	f, err := os.CreateTemp(filepath.Dir(path), "."+SealedFile+".*")
	if err != nil {
		return "", err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(f.Name(), path)
		}
		if err != nil {
			os.Remove(f.Name())
		}
	}()
	buf := bufio.NewWriterSize(f, 64<<10)
	enc, err := age.Encrypt(buf, r)
	if err != nil {
		return "", err
	}
	tw := tar.NewWriter(enc)
	hdr := func(name string, size int64) *tar.Header {
		return &tar.Header{Name: name, Mode: 0o600, Size: size, Typeflag: tar.TypeReg, Format: tar.FormatPAX}
	}
	if err := tw.WriteHeader(hdr(ManifestFile, int64(len(manifest)))); err != nil {
		return "", err
	}
	if _, err := tw.Write(manifest); err != nil {
		return "", err
	}
	if err := tw.WriteHeader(hdr(PlanFile, st.Size())); err != nil {
		return "", err
	}
	h := sha256.New()
	if _, err := io.Copy(io.MultiWriter(tw, h), ctxReader{ctx, plan}); err != nil {
		return "", err
	}
	if sum = hex.EncodeToString(h.Sum(nil)); sum != wantSum {
		return sum, errPlanChanged
	}
	if err := tw.Close(); err != nil {
		return sum, err
	}
	if err := enc.Close(); err != nil {
		return sum, err
	}
	return sum, buf.Flush()
}
