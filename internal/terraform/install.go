package terraform

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hashicorp/go-version"
	"github.com/hashicorp/hc-install/product"
	"github.com/hashicorp/hc-install/releases"
)

// installPrefix names the per-version directories under InstallDir
// ("terraform_1.5.7/terraform"). hc-install writes a bare "terraform" into the
// directory it is given, so one directory per version keeps several versions
// side by side for repositories that pin different ones.
const installPrefix = "terraform_"

// installed returns the newest version already in InstallDir that fits.
func (r *resolver) installed(ctx context.Context) (Binary, bool) {
	if r.opts.InstallDir == "" {
		return Binary{}, false
	}
	entries, err := os.ReadDir(r.opts.InstallDir)
	if err != nil {
		return Binary{}, false
	}
	type inst struct {
		v    *version.Version
		path string
	}
	var list []inst
	for _, e := range entries {
		name, ok := strings.CutPrefix(e.Name(), installPrefix)
		if !ok || !e.IsDir() {
			continue
		}
		v, err := version.NewVersion(name)
		if err != nil {
			continue
		}
		p := filepath.Join(r.opts.InstallDir, e.Name(), product.Terraform.BinaryName())
		if checkExecutable(p) == nil {
			list = append(list, inst{v, p})
		}
	}
	sort.Slice(list, func(i, j int) bool { return list[i].v.GreaterThan(list[j].v) })
	for _, in := range list {
		// The directory name is enough to skip a version; try runs the
		// binary to be sure before one is used.
		if r.constraint != nil && !r.constraint.Check(in.v) {
			r.found = true
			r.rejected = append(r.rejected, fmt.Sprintf("%s (install dir): terraform %s does not satisfy terraform.version %q", in.path, in.v, r.constraint))
			continue
		}
		if b, ok := r.try(ctx, in.path, "install dir"); ok {
			return b, true
		}
	}
	return Binary{}, false
}

// download fetches terraform from releases.hashicorp.com with hc-install,
// which verifies the release's checksums and HashiCorp's signature.
func (r *resolver) download(ctx context.Context) (Binary, bool) {
	path, err := r.fetch(ctx)
	if err != nil {
		r.rejected = append(r.rejected, fmt.Sprintf("download into %s: %v", r.opts.InstallDir, err))
		return Binary{}, false
	}
	return r.try(ctx, path, "downloaded")
}

func (r *resolver) fetch(ctx context.Context) (string, error) {
	if r.opts.InstallDir == "" {
		return "", fmt.Errorf("no install directory configured")
	}
	if err := os.MkdirAll(r.opts.InstallDir, 0o755); err != nil {
		return "", err
	}
	// Download into a scratch directory first: the version is only known
	// afterwards when the constraint is a range, and a half-written download
	// must never look installed.
	tmp, err := os.MkdirTemp(r.opts.InstallDir, ".download-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)

	var src interface {
		Install(context.Context) (string, error)
	}
	if exact := exactVersion(r.opts.Constraint); exact != nil {
		src = &releases.ExactVersion{Product: product.Terraform, Version: exact, InstallDir: tmp, ApiBaseURL: r.opts.ReleasesURL}
	} else {
		cs, _ := version.NewConstraint(">= " + MinVersion.String())
		src = &releases.LatestVersion{Product: product.Terraform, Constraints: append(cs, r.constraint...), InstallDir: tmp, ApiBaseURL: r.opts.ReleasesURL}
	}
	if _, err := src.Install(ctx); err != nil {
		return "", err
	}
	bin := filepath.Join(tmp, product.Terraform.BinaryName())
	v, err := probeVersion(ctx, bin, r.opts.PathEnv)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(r.opts.InstallDir, installPrefix+v.String())
	if err := os.Rename(tmp, dir); err != nil && !os.IsExist(err) && !isNotEmpty(err) {
		return "", err
	}
	return filepath.Join(dir, product.Terraform.BinaryName()), nil
}

// exactVersion returns the version when the constraint pins one ("1.5.7" or
// "= 1.5.7"), so the download needs no release listing.
func exactVersion(constraint string) *version.Version {
	c := strings.TrimSpace(constraint)
	c = strings.TrimSpace(strings.TrimPrefix(c, "="))
	v, err := version.NewVersion(c)
	if err != nil || c == "" {
		return nil
	}
	return v
}

// isNotEmpty reports a rename that lost a race with another tfgate process
// installing the same version: the other copy is as good as ours.
func isNotEmpty(err error) bool {
	return strings.Contains(err.Error(), "directory not empty") || strings.Contains(err.Error(), "file exists")
}
