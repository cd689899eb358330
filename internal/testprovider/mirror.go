package testprovider

import (
	"archive/zip"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// CLIConfig is the terraform (or tofu) CLI configuration, for a test's own
// TF_CLI_CONFIG_FILE, that installs fakecloud from the filesystem mirror at pluginsDir —
// `make fakecloud` builds one at .bin/plugins, exported to tests as TFGATE_TEST_PLUGINS —
// and every other provider directly, so `init` never asks a registry for fakecloud. It names
// every one of Addresses: terraform and tofu read "tfgate/fakecloud" under different hosts.
func CLIConfig(pluginsDir string) string {
	quoted := make([]string, len(Addresses))
	for i, a := range Addresses {
		quoted[i] = fmt.Sprintf("%q", a)
	}
	list := strings.Join(quoted, ", ")
	return fmt.Sprintf(`provider_installation {
  filesystem_mirror {
    path    = %q
    include = [%s]
  }
  direct {
    exclude = [%s]
  }
}
`, pluginsDir, list, list)
}

// Packed is a packed filesystem mirror of fakecloud: one zip per version and platform, as a
// registry serves it.
type Packed struct {
	Dir      string   // the mirror, for CLIConfig
	Zip      string   // the one package
	Version  string   // its version, e.g. "0.1.0"
	Platform string   // its OS_ARCH, e.g. "linux_amd64"
	Binary   string   // the provider's file name inside the zip (and in an installed package)
	SHA256   [32]byte // of the provider binary
}

// WritePacked writes a packed mirror of the fakecloud build in the unpacked mirror
// pluginsDir (.bin/plugins) into dir. Tests of terraform's plugin cache need it: installing
// from an unpacked mirror, terraform puts a symlink to the mirror into the cache, where a
// registry's (or a packed mirror's) package is unpacked into a real copy.
func WritePacked(pluginsDir, dir string) (Packed, error) {
	base := filepath.Join(pluginsDir, filepath.FromSlash(Address))
	versions, err := os.ReadDir(base)
	if err != nil {
		return Packed{}, err
	}
	if len(versions) != 1 {
		return Packed{}, fmt.Errorf("%s: want one version of fakecloud, found %d", base, len(versions))
	}
	version := versions[0].Name()
	platforms, err := os.ReadDir(filepath.Join(base, version))
	if err != nil {
		return Packed{}, err
	}
	if len(platforms) != 1 {
		return Packed{}, fmt.Errorf("%s: want one platform, found %d", filepath.Join(base, version), len(platforms))
	}
	platform := platforms[0].Name() // OS_ARCH
	name := "terraform-provider-fakecloud_v" + version
	bin, err := os.ReadFile(filepath.Join(base, version, platform, name))
	if err != nil {
		return Packed{}, err
	}
	p := Packed{Dir: dir, Version: version, Platform: platform, Binary: name, SHA256: sha256.Sum256(bin)}
	p.Zip = filepath.Join(dir, filepath.FromSlash(Address), fmt.Sprintf("terraform-provider-fakecloud_%s_%s.zip", version, platform))
	if err := os.MkdirAll(filepath.Dir(p.Zip), 0o755); err != nil {
		return Packed{}, err
	}
	f, err := os.Create(p.Zip)
	if err != nil {
		return Packed{}, err
	}
	zw := zip.NewWriter(f)
	h := &zip.FileHeader{Name: name, Method: zip.Deflate}
	h.SetMode(0o755)
	w, err := zw.CreateHeader(h)
	if err == nil {
		_, err = w.Write(bin)
	}
	err = errors.Join(err, zw.Close(), f.Close())
	return p, err
}

// ZipSHA256 is the sha256 of the provider binary inside the package at zipPath.
func ZipSHA256(zipPath string) ([32]byte, error) {
	zr, err := zip.OpenReader(zipPath)
	if err != nil {
		return [32]byte{}, err
	}
	defer zr.Close()
	if len(zr.File) != 1 {
		return [32]byte{}, fmt.Errorf("%s: want one file, found %d", zipPath, len(zr.File))
	}
	rc, err := zr.File[0].Open()
	if err != nil {
		return [32]byte{}, err
	}
	defer rc.Close()
	h := sha256.New()
	if _, err := io.Copy(h, rc); err != nil {
		return [32]byte{}, err
	}
	var sum [32]byte
	copy(sum[:], h.Sum(nil))
	return sum, nil
}
