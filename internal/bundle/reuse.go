package bundle

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// What a later push of a pull request needs to know of an earlier plan before reusing it
// (docs/busy-repositories.md), read from the plan file itself, and the bundle reissued for
// the new head.

// PlanBasis is what a plan file says it was made from beyond its configuration: the state
// it planned against, whether it pins providers, whether it read modules from outside the
// repository, and the backend it applies to.
type PlanBasis struct {
	// Lineage and Serial are the state's as terraform read it when planning ("" and 0: no
	// state yet).
	Lineage string
	Serial  int64
	// Providers: the plan's dependency lock file names providers.
	Providers bool
	// RemoteModules are the module calls whose source is not a path in the repository
	// (a registry, git, a URL): what they hold is not among the inputs.
	RemoteModules []string
	Backend       Backend
}

// maxBasisEntry bounds the small entries ReadPlanBasis reads (the state can be large).
const maxBasisEntry = MaxOpenBytes

// ReadPlanBasis reads the basis of the plan file at path.
func ReadPlanBasis(path string) (PlanBasis, error) {
	zr, err := zip.OpenReader(path)
	if err != nil {
		return PlanBasis{}, fmt.Errorf("read plan file: %w", err)
	}
	defer zr.Close()
	return planBasis(&zr.Reader)
}

// PlanBasisOf reads the basis of the plan an Opened holds: in memory, or at its PlanPath.
func PlanBasisOf(o Opened) (PlanBasis, error) {
	if o.Plan == nil {
		return ReadPlanBasis(o.PlanPath)
	}
	zr, err := zip.NewReader(bytes.NewReader(o.Plan), int64(len(o.Plan)))
	if err != nil {
		return PlanBasis{}, fmt.Errorf("read plan file: %w", err)
	}
	return planBasis(zr)
}

func planBasis(zr *zip.Reader) (PlanBasis, error) {
	var b PlanBasis
	tp, err := ReadTFPlan(zr)
	if err != nil {
		return b, err
	}
	b.Backend = tp.Backend
	entries := map[string][]byte{}
	for _, name := range []string{"tfstate", ".terraform.lock.hcl", snapshotManifest} {
		if entries[name], err = zipEntry(zr, name); err != nil {
			return b, err
		}
	}
	if entries["tfstate"] == nil {
		return b, errors.New("the plan file holds no state: not a terraform plan file")
	}
	var st struct {
		Lineage string `json:"lineage"`
		Serial  int64  `json:"serial"`
	}
	if err := json.Unmarshal(entries["tfstate"], &st); err != nil {
		return b, fmt.Errorf("the plan file's state: %w", err)
	}
	b.Lineage, b.Serial = st.Lineage, st.Serial
	b.Providers = bytes.Contains(entries[".terraform.lock.hcl"], []byte("provider \""))
	var mods []ModuleRecord
	if m := entries[snapshotManifest]; m != nil {
		if err := json.Unmarshal(m, &mods); err != nil {
			return b, fmt.Errorf("the plan file's %s: %w", snapshotManifest, err)
		}
	}
	for _, m := range mods {
		if m.Key != "" && !strings.HasPrefix(m.Source, "./") && !strings.HasPrefix(m.Source, "../") {
			b.RemoteModules = append(b.RemoteModules, m.Key)
		}
	}
	return b, nil
}

// zipEntry is the content of the entry called name, nil when there is none.
func zipEntry(z *zip.Reader, name string) ([]byte, error) {
	for _, f := range z.File {
		if f.Name != name {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return nil, err
		}
		defer rc.Close()
		data, err := io.ReadAll(io.LimitReader(rc, maxBasisEntry+1))
		if err != nil {
			return nil, fmt.Errorf("plan file entry %s: %w", name, err)
		}
		if len(data) > maxBasisEntry {
			return nil, fmt.Errorf("plan file entry %s is larger than %d bytes", name, maxBasisEntry)
		}
		return data, nil
	}
	return nil, nil
}

// StateSerial reads the lineage and serial of a state file (terraform.tfstate). A missing
// file is no state yet: "" and 0, as a plan made without one records.
func StateSerial(path string) (lineage string, serial int64, err error) {
	data, err := readLimited(path, maxBasisEntry)
	if errors.Is(err, os.ErrNotExist) {
		return "", 0, nil
	}
	if err != nil {
		return "", 0, err
	}
	var st struct {
		Lineage string `json:"lineage"`
		Serial  int64  `json:"serial"`
	}
	if err := json.Unmarshal(data, &st); err != nil {
		return "", 0, fmt.Errorf("state file %s: %w", path, err)
	}
	return st.Lineage, st.Serial, nil
}

// Reissue writes into dst (a new, empty bundle directory) the plan o opened (Open or
// Artifact.Open verified its sha256, and the sealed manifest against the clear one) under the manifest edit
// makes of o's: the plan file is the same bytes, so its sha256 and changes digest are too.
// With passphrase it is sealed again, as Write and Seal make a bundle.
func Reissue(ctx context.Context, o Opened, dst, passphrase string, edit func(Manifest) Manifest) (Manifest, error) {
	if err := ctx.Err(); err != nil {
		return Manifest{}, err
	}
	data := o.Plan
	if data == nil {
		var err error
		if data, err = os.ReadFile(o.PlanPath); err != nil {
			return Manifest{}, fmt.Errorf("reissue bundle of %s: %w", o.Manifest.Project, err)
		}
	}
	// dst is new and empty, read by no one before the run ends: its two files are
	// written once each, in place, rather than through a rename (WriteAtomic).
	err := os.Mkdir(dst, 0o700)
	if errors.Is(err, fs.ErrNotExist) { // its parent is missing
		err = os.MkdirAll(dst, 0o700)
	}
	if err != nil && !errors.Is(err, fs.ErrExist) {
		return Manifest{}, err
	}
	if err := writeNew(filepath.Join(dst, PlanFile), data); err != nil {
		return Manifest{}, fmt.Errorf("reissue bundle of %s: %w", o.Manifest.Project, err)
	}
	// The sum of the bytes written, which are those read: a plan file changed on disk
	// while it was read no longer matches what Open verified.
	sum := sha256.Sum256(data)
	m := edit(o.Manifest)
	w, err := complete(dst, m, hex.EncodeToString(sum[:]), func(dir string, m Manifest) error {
		b, err := marshalManifest(m)
		if err == nil {
			err = writeNew(filepath.Join(dir, ManifestFile), b)
		}
		return err
	})
	if err != nil {
		return w, err
	}
	if w.PlanSHA256 != o.Manifest.PlanSHA256 {
		return w, fmt.Errorf("reissue bundle of %s: the plan file changed while it was copied: %w", m.Project, ErrTampered)
	}
	if passphrase != "" {
		if err := Seal(ctx, dst, passphrase); err != nil {
			return w, err
		}
		w.Encrypted = true
	}
	return w, nil
}

// writeNew writes a file that must not exist yet (0600).
func writeNew(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	return errors.Join(err, f.Close())
}
