package terraform

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/hashicorp/go-version"

	"github.com/tfgate/tfgate/internal/fileio"
)

// versionCacheEntries bounds the cache file: a machine has a handful of terraform and
// tofu binaries, and entries of binaries that changed or went away are never read again.
const versionCacheEntries = 32

// versionCache remembers what `version -json` printed for a binary, so that a run does
// not start terraform once more (tens of milliseconds, a large part of a small plan) only
// to learn what it learnt last time. An entry holds for the binary's resolved path, size
// and modification time: replacing or upgrading the binary changes one of them and the
// binary is asked again. The file is a convenience, never a source of truth that can fail
// a run: a missing, unreadable or corrupt file is an empty cache, and it is replaced
// atomically so that concurrent runs read either the old file or the new one.
type versionCache struct {
	file string // "" = no cache: every binary is probed
	mu   sync.Mutex
}

// versionCacheFile is the cache's on-disk form.
type versionCacheFile struct {
	Binaries map[string]versionCacheEntry `json:"binaries"` // by resolved path
}

type versionCacheEntry struct {
	Size    int64  `json:"size"`
	ModTime int64  `json:"mtime_ns"`
	Version string `json:"version"`
	Used    int64  `json:"used_ns"` // when the entry was last written, to drop the oldest
}

// cacheKey returns the path the entry is filed under (symlinks resolved: a link retargeted
// to another binary must not inherit the old one's version) and the binary's identity.
func cacheKey(path string) (string, versionCacheEntry, bool) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", versionCacheEntry{}, false
	}
	fi, err := os.Stat(real)
	if err != nil || !fi.Mode().IsRegular() {
		return "", versionCacheEntry{}, false
	}
	return real, versionCacheEntry{Size: fi.Size(), ModTime: fi.ModTime().UnixNano()}, true
}

// version returns the binary's version from the cache, or probes it and records the
// answer. Only successful probes are recorded: a binary that failed is asked every time.
func (c *versionCache) version(ctx context.Context, path, pathEnv string) (*version.Version, error) {
	key, id, ok := "", versionCacheEntry{}, false
	if c != nil && c.file != "" {
		key, id, ok = cacheKey(path)
	}
	if ok {
		if e, hit := c.read().Binaries[key]; hit && e.Size == id.Size && e.ModTime == id.ModTime {
			if v, err := version.NewVersion(e.Version); err == nil {
				return v, nil
			}
		}
	}
	v, err := probeVersion(ctx, path, pathEnv)
	if err != nil || !ok {
		return v, err
	}
	// The binary may have been replaced while it answered: record it only if it is
	// still the one that was stat'ed.
	if _, after, ok := cacheKey(path); ok && after == id {
		id.Version = v.Original()
		c.store(key, id)
	}
	return v, nil
}

func (c *versionCache) read() versionCacheFile {
	var f versionCacheFile
	data, err := os.ReadFile(c.file)
	if err != nil || json.Unmarshal(data, &f) != nil {
		return versionCacheFile{}
	}
	return f
}

// store adds one entry and rewrites the file; failures are ignored (the next run probes).
func (c *versionCache) store(key string, e versionCacheEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f := c.read()
	if f.Binaries == nil {
		f.Binaries = map[string]versionCacheEntry{}
	}
	e.Used = time.Now().UnixNano()
	f.Binaries[key] = e
	if len(f.Binaries) > versionCacheEntries {
		keys := make([]string, 0, len(f.Binaries))
		for k := range f.Binaries {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { return f.Binaries[keys[i]].Used > f.Binaries[keys[j]].Used })
		for _, k := range keys[versionCacheEntries:] {
			delete(f.Binaries, k)
		}
	}
	data, err := json.Marshal(f)
	if err != nil {
		return
	}
	if os.MkdirAll(filepath.Dir(c.file), 0o755) == nil {
		_ = fileio.WriteAtomic(c.file, data, 0o600)
	}
}
