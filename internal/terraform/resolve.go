package terraform

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/hashicorp/go-version"
)

// Flavors of binary tfgate can drive.
const (
	FlavorTerraform = "terraform"
	FlavorTofu      = "tofu"
)

// MinVersion is the oldest terraform (or tofu) tfgate supports.
var MinVersion = version.Must(version.NewVersion("1.5.0"))

// Binary is a terraform or tofu executable whose version has been checked.
type Binary struct {
	Path    string
	Version *version.Version
	Flavor  string // FlavorTerraform or FlavorTofu
}

// String is for logs and bundle manifests: "terraform 1.5.7 (/usr/bin/terraform)".
func (b Binary) String() string {
	return fmt.Sprintf("%s %s (%s)", b.Flavor, b.Version, b.Path)
}

// ResolveOptions says where to look for a binary and what it must satisfy.
type ResolveOptions struct {
	Override   string // value of TFGATE_TERRAFORM (a path or a name on PATH); wins when set
	Constraint string // config terraform.version, e.g. "~> 1.5" or "1.5.7"; "" = any >= 1.5
	Binary     string // config terraform.binary: "terraform" (default) or "tofu"
	Install    bool   // allowed to download with hc-install (--install / terraform.install)
	InstallDir string // where downloads go
	PathEnv    string // the PATH to search (passed in; domain code never reads env)
	// ReleasesURL replaces https://releases.hashicorp.com for downloads, for
	// organisations that mirror it; the mirror must keep the same layout and
	// the HashiCorp signatures, which are still verified.
	ReleasesURL string
	// VersionCache is a file remembering the versions of binaries already probed (see
	// versionCache); "" probes every candidate.
	VersionCache string
}

// ErrNotFound is returned (wrapped) when no terraform or tofu binary exists at all.
var ErrNotFound = errors.New("no terraform or tofu binary found on PATH")

// Resolve finds the binary to run. The order is:
//
//  1. Override (TFGATE_TERRAFORM), which is the only candidate when set;
//  2. the configured flavor on PathEnv, first match of the constraint in PATH order;
//  3. terraform versions already downloaded into InstallDir, newest first;
//  4. a download with hc-install, only when Install is set;
//  5. OpenTofu on PathEnv, when the configured flavor is terraform.
//
// Every candidate's version is read with `<bin> version -json` (or from
// VersionCache, when the same binary answered before) and must be >= 1.5 and
// satisfy Constraint. The PATH lookup is done here rather than
// with hc-install's fs finders because those search the process PATH and run
// the binary with the process environment; Resolve must honour PathEnv only.
func Resolve(ctx context.Context, opts ResolveOptions) (Binary, error) {
	r, err := newResolver(opts)
	if err != nil {
		return Binary{}, err
	}
	if opts.Override != "" {
		return r.override(ctx)
	}

	if b, ok := r.firstOnPath(ctx, r.flavor); ok {
		return b, nil
	}
	if r.flavor == FlavorTerraform {
		if b, ok := r.installed(ctx); ok {
			return b, nil
		}
		if opts.Install {
			if b, ok := r.download(ctx); ok {
				return b, nil
			}
		}
		if b, ok := r.firstOnPath(ctx, FlavorTofu); ok {
			return b, nil
		}
	}
	return Binary{}, r.failure()
}

// resolver carries the parsed options and what was seen and rejected, so the
// final error can say exactly what was found where.
type resolver struct {
	opts       ResolveOptions
	flavor     string
	constraint version.Constraints // nil = any version >= MinVersion
	rejected   []string
	found      bool
	versions   *versionCache
}

func newResolver(opts ResolveOptions) (*resolver, error) {
	r := &resolver{opts: opts, flavor: opts.Binary, versions: &versionCache{file: opts.VersionCache}}
	switch opts.Binary {
	case "", FlavorTerraform:
		r.flavor = FlavorTerraform
	case FlavorTofu:
	default:
		return nil, fmt.Errorf("terraform.binary %q: must be %q or %q", opts.Binary, FlavorTerraform, FlavorTofu)
	}
	if c := strings.TrimSpace(opts.Constraint); c != "" {
		cs, err := version.NewConstraint(c)
		if err != nil {
			return nil, fmt.Errorf("terraform.version %q: not a version constraint (examples: \"~> 1.5\", \">= 1.5, < 2.0\", \"1.5.7\"): %w", c, err)
		}
		r.constraint = cs
	}
	return r, nil
}

func (r *resolver) override(ctx context.Context) (Binary, error) {
	path := r.opts.Override
	if !strings.ContainsRune(path, os.PathSeparator) && !strings.ContainsRune(path, '/') {
		found := lookPathAll(path, r.opts.PathEnv)
		if len(found) == 0 {
			return Binary{}, fmt.Errorf("TFGATE_TERRAFORM=%s: not found on PATH; set it to the path of a terraform or tofu binary, or unset it", path)
		}
		path = found[0]
	} else if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	if err := checkExecutable(path); err != nil {
		return Binary{}, fmt.Errorf("TFGATE_TERRAFORM=%s: %w; set it to the path of a terraform or tofu binary, or unset it", r.opts.Override, err)
	}
	b, err := r.check(ctx, path)
	if err != nil {
		return Binary{}, fmt.Errorf("TFGATE_TERRAFORM=%s: %w; point TFGATE_TERRAFORM at a matching binary or unset it", r.opts.Override, err)
	}
	return b, nil
}

// firstOnPath returns the first binary of the flavor on PathEnv that fits.
func (r *resolver) firstOnPath(ctx context.Context, flavor string) (Binary, bool) {
	for _, p := range lookPathAll(flavor, r.opts.PathEnv) {
		if b, ok := r.try(ctx, p, "PATH"); ok {
			return b, true
		}
	}
	return Binary{}, false
}

// try checks one candidate and records why it was rejected.
func (r *resolver) try(ctx context.Context, path, where string) (Binary, bool) {
	r.found = true
	b, err := r.check(ctx, path)
	if err != nil {
		r.rejected = append(r.rejected, fmt.Sprintf("%s (%s): %v", path, where, err))
		return Binary{}, false
	}
	return b, true
}

// check reads the binary's version and applies the minimum and the constraint.
func (r *resolver) check(ctx context.Context, path string) (Binary, error) {
	v, err := r.versions.version(ctx, path, r.opts.PathEnv)
	if err != nil {
		return Binary{}, err
	}
	b := Binary{Path: path, Version: v, Flavor: flavorOf(path)}
	if v.Core().LessThan(MinVersion) {
		return Binary{}, fmt.Errorf("%s %s is older than %s, the oldest tfgate supports", b.Flavor, v, MinVersion)
	}
	if r.constraint != nil && !r.constraint.Check(v) {
		return Binary{}, fmt.Errorf("%s %s does not satisfy terraform.version %q", b.Flavor, v, r.constraint)
	}
	return b, nil
}

func (r *resolver) failure() error {
	if !r.found && len(r.rejected) == 0 {
		if r.flavor == FlavorTofu {
			return fmt.Errorf("no tofu binary found on PATH (terraform.binary is %q); install OpenTofu >= 1.6, or set TFGATE_TERRAFORM", FlavorTofu)
		}
		if r.opts.Install {
			return fmt.Errorf("%w; install terraform >= 1.5 or OpenTofu, or set TFGATE_TERRAFORM", ErrNotFound)
		}
		return fmt.Errorf("%w; install terraform >= 1.5 or OpenTofu, set TFGATE_TERRAFORM, or pass --install to download terraform", ErrNotFound)
	}
	want := "terraform >= " + MinVersion.String()
	if r.constraint != nil {
		want = fmt.Sprintf("terraform matching %q", r.constraint)
	}
	if r.flavor == FlavorTofu {
		want = strings.Replace(want, "terraform", "tofu", 1)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "no suitable %s binary found:", r.flavor)
	for _, rej := range r.rejected {
		b.WriteString("\n  " + rej)
	}
	fmt.Fprintf(&b, "\nset TFGATE_TERRAFORM to a matching binary, install %s", want)
	if r.flavor == FlavorTerraform && !r.opts.Install {
		b.WriteString(", or pass --install to download it")
	}
	return errors.New(b.String())
}

// lookPathAll lists every executable called name in pathEnv, in PATH order.
// Relative PATH entries are skipped: running a binary picked up from the
// current directory of a checked-out pull request would let the change under
// review choose what runs.
func lookPathAll(name, pathEnv string) []string {
	if runtime.GOOS == "windows" && filepath.Ext(name) == "" {
		name += ".exe"
	}
	var out []string
	seen := map[string]bool{}
	for _, dir := range filepath.SplitList(pathEnv) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, name)
		if seen[p] || checkExecutable(p) != nil {
			continue
		}
		seen[p] = true
		out = append(out, p)
	}
	return out
}

func checkExecutable(path string) error {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return errors.New("no such file")
	}
	if err != nil {
		return err
	}
	if fi.IsDir() {
		return errors.New("is a directory")
	}
	if runtime.GOOS != "windows" && fi.Mode()&0o111 == 0 {
		return errors.New("is not executable")
	}
	return nil
}

// flavorOf tells tofu from terraform by the file name: both print the same
// `version -json` shape, and tofu is always installed as "tofu".
func flavorOf(path string) string {
	if strings.HasPrefix(strings.ToLower(filepath.Base(path)), FlavorTofu) {
		return FlavorTofu
	}
	return FlavorTerraform
}
