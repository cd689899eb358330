package terraform

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/mod/sumdb/dirhash"

	"github.com/tfgate/tfgate/internal/fileio"
)

// The shared provider cache.
//
// Terraform's own plugin cache (TF_PLUGIN_CACHE_DIR) is not safe for concurrent use, and
// serialising inits does not make it safe: an init overwrites a cached package in place
// whenever the project's .terraform.lock.hcl does not vouch for it (no lock file, a
// provider the lock file lacks, a checksum that does not match), while other projects'
// plans execute that very binary through their links to it. So terraform never writes the
// shared cache here. Each init gets a view of its own as TF_PLUGIN_CACHE_DIR (viewDir):
// links to exactly the cached packages its lock file vouches for (their h1: checksum is
// in it), which terraform links into .terraform/providers without writing anything;
// whatever else it needs it installs into the view, a directory of the project. After a
// successful init tfgate copies each package terraform installed, when the lock file now
// vouches for it, into the shared cache with one atomic rename of a complete directory.
// The cache is thus only ever added to, a package at a time and complete, by any number of
// inits and processes at once, without locks; and the lock file is never changed by it:
// terraform links only packages whose checksums the lock file already records.
//
// The cache has terraform's layout, HOSTNAME/NAMESPACE/TYPE/VERSION/OS_ARCH/, so that a
// TF_PLUGIN_CACHE_DIR the user set can be the shared cache as it is.

// viewName is the init's view of the shared cache, in terraform's data directory
// (RunnerOptions.DataDir, else .terraform): the packages terraform installs there stay
// with that directory, which keeps working with a plain `terraform plan` after tfgate is
// done when it is the project's own.
const viewName = "tfgate-plugin-cache"

// providerLock is one provider of a dependency lock file.
type providerLock struct {
	version string
	hashes  []string
}

// lockFileName is terraform's dependency lock file, in the project directory.
const lockFileName = ".terraform.lock.hcl"

// preparePluginView makes view hold links to the packages of cache the lock file vouches
// for, and no other link: a link terraform does not accept it would unpack a package into,
// through the link, inside the shared cache. Packages terraform installed into the view
// before are the project's own and stay.
func preparePluginView(view, cache string, locks map[string]providerLock) error {
	if err := removeLinks(view); err != nil {
		return err
	}
	if err := os.MkdirAll(view, 0o755); err != nil {
		return err
	}
	for addr, lock := range locks {
		entries, err := os.ReadDir(filepath.Join(cache, filepath.FromSlash(addr), lock.version))
		if err != nil {
			continue // not cached (yet)
		}
		for _, e := range entries {
			platform := filepath.Join(filepath.FromSlash(addr), lock.version, e.Name())
			if !safeName(e.Name()) || !vouched(filepath.Join(cache, platform), lock) {
				continue
			}
			link := filepath.Join(view, platform)
			if _, err := os.Lstat(link); err == nil {
				continue // installed by terraform into the view before: the project's own
			}
			if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
				return err
			}
			// Where links cannot be made (Windows without the privilege), terraform
			// downloads the provider as if it were not cached.
			_ = os.Symlink(filepath.Join(cache, platform), link)
		}
	}
	return nil
}

// removeLinks removes the package links of a view (HOSTNAME/NAMESPACE/TYPE/VERSION/OS_ARCH).
func removeLinks(view string) error {
	return walkPackages(view, func(rel string, d fs.DirEntry) error {
		if d.Type()&fs.ModeSymlink == 0 {
			return nil
		}
		return os.Remove(filepath.Join(view, rel))
	})
}

// promotePackages copies every package terraform installed into view, and the lock file
// vouches for, into cache: a copy in a temporary directory of the cache, renamed into
// place. A package already in the cache is left as it is (another init got there first;
// cached packages never change).
func promotePackages(view, cache string, locks map[string]providerLock) error {
	return walkPackages(view, func(rel string, d fs.DirEntry) error {
		if !d.IsDir() {
			return nil // a link: to the cache, or to an unpacked filesystem mirror
		}
		parts := strings.Split(filepath.ToSlash(rel), "/")
		lock, ok := locks[strings.Join(parts[:3], "/")]
		if !ok || lock.version != parts[3] || !vouched(filepath.Join(view, rel), lock) {
			return nil
		}
		target := filepath.Join(cache, rel)
		if _, err := os.Lstat(target); err == nil {
			return nil
		}
		return promote(filepath.Join(view, rel), target, cache)
	})
}

// tmpPrefix names the directories packages are copied into before their rename.
const tmpPrefix = ".tfgate-tmp-"

// staleTemp is how old a temporary directory must be to be removed as left behind by a
// process that died while copying: a copy takes seconds.
const staleTemp = 24 * time.Hour

func promote(src, target, cache string) error {
	tmp, err := os.MkdirTemp(cache, tmpPrefix)
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp) // only left when the rename failed
	if err := fileio.CopyTree(src, tmp, fileio.KeepModes); err != nil {
		return err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return err
	}
	if err := os.Rename(tmp, target); err != nil {
		if _, serr := os.Lstat(target); serr == nil {
			return nil // another init renamed the same package into place first
		}
		return err
	}
	return nil
}

// walkPackages calls fn for every HOSTNAME/NAMESPACE/TYPE/VERSION/OS_ARCH entry under dir
// (rel is relative to dir). A missing dir has none.
func walkPackages(dir string, fn func(rel string, d fs.DirEntry) error) error {
	var walk func(rel string, depth int) error
	walk = func(rel string, depth int) error {
		entries, err := os.ReadDir(filepath.Join(dir, rel))
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		for _, e := range entries {
			r := filepath.Join(rel, e.Name())
			switch {
			case depth == 4:
				err = fn(r, e)
			case e.IsDir():
				err = walk(r, depth+1)
			}
			if err != nil {
				return err
			}
		}
		return nil
	}
	return walk("", 0)
}

// vouched reports whether the package in dir has one of the lock's h1: checksums — the
// test terraform applies before it takes a package from the cache.
func vouched(dir string, lock providerLock) bool {
	sum, err := packageHash(dir)
	return err == nil && slices.Contains(lock.hashes, sum)
}

// hashMemo remembers package checksums for the process: every init of a run checks the
// same cached packages, which may be hundreds of megabytes each. An entry is recomputed
// when any file's size, mode or modification time changes.
var hashMemo = struct {
	sync.Mutex
	m map[string]*memoEntry
}{m: map[string]*memoEntry{}}

type memoEntry struct {
	mu        sync.Mutex // one computation at a time per package: the first wave of inits waits for it
	signature string
	sum       string
}

// packageHash is terraform's "h1:" checksum of an unpacked package (Go's dirhash).
func packageHash(dir string) (string, error) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", err
	}
	files, err := dirhash.DirFiles(real, "")
	if err != nil {
		return "", err
	}
	var sig strings.Builder
	for _, f := range files {
		info, err := os.Stat(filepath.Join(real, filepath.FromSlash(f)))
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&sig, "%s\x00%d\x00%v\x00%d\n", f, info.Size(), info.Mode(), info.ModTime().UnixNano())
	}
	hashMemo.Lock()
	e := hashMemo.m[real]
	if e == nil {
		e = &memoEntry{}
		hashMemo.m[real] = e
	}
	hashMemo.Unlock()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.signature == sig.String() {
		return e.sum, nil
	}
	sum, err := dirhash.HashDir(real, "", dirhash.Hash1)
	if err != nil {
		return "", err
	}
	e.signature, e.sum = sig.String(), sum
	return sum, nil
}

// safeName reports whether s can be one path element of the cache: lock files come from the
// change under review, and their addresses must not lead outside it.
func safeName(s string) bool {
	return s != "" && s != "." && s != ".." && !strings.ContainsAny(s, `/\`+"\x00")
}

// removeStaleTemp removes the temporary directories that processes which died while
// copying a package left in the cache.
func removeStaleTemp(cache string, now time.Time) {
	entries, err := os.ReadDir(cache)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), tmpPrefix) {
			continue
		}
		if info, err := e.Info(); err == nil && now.Sub(info.ModTime()) > staleTemp {
			os.RemoveAll(filepath.Join(cache, e.Name()))
		}
	}
}
