package stage

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/tfgate/tfgate/internal/bundle"
)

// A laptop's re-plan skips init. Outside CI (TerraformOptions.DataDirs set: cli leaves it
// empty in CI, where every run starts from a fresh checkout anyway, and for every command
// but plan), a project's data directory is not a new one per run but one of tfgate's own,
// kept in the user's cache directory for that checkout, project and workspace, and init
// runs only when it cannot be proven unnecessary. It is proven by a fingerprint that the
// last successful init recorded beside the directory (initRecordSuffix), where terraform
// cannot write (the read guard denies it every kept directory's parent): terraform, and
// what a configuration runs, may change the data directory in full, so a record inside it
// could be made to agree with any change (its salt is no key). Everything init reads —
// the project's inputs as copied into its tree (configuration, local modules, var files,
// the shared files), the dependency lock file as init left it, terraform's binary and
// environment, the CLI configuration, the provider cache — and what init left in the data
// directory itself (every entry's name, kind, size and link target; the contents of its
// small files). Anything else runs init in an emptied data directory, exactly as in a new
// one: a changed module source, lock file or backend block, a data directory deleted or
// changed, a lock file removed (init would choose the providers' versions), and any module that
// is not local (a registry or git module can move without the configuration changing).
// Terraform's data directory still never comes from the repository.

// initRecordSuffix names the fingerprint of the init that made a kept data directory,
// beside it.
const initRecordSuffix = ".init.json"

// dataDirLockSuffix names the lock beside each kept data directory: one run at a time
// uses it; another one at the same time gets a new data directory, as in CI.
const dataDirLockSuffix = ".lock"

// initRecord is what the record beside a kept data directory holds: hashes only (the
// environment holds secrets), salted so that no two records and no precomputed table can
// be compared (a guess at one value can still be tested by whoever reads the record and
// knows every other input: the user; terraform cannot reach it).
type initRecord struct {
	Salt   string `json:"salt"`
	Inputs string `json:"inputs"` // initInputs
	Data   string `json:"data"`   // dataDirDigest
}

// reusedDataDir is r's kept data directory.
type reusedDataDir struct {
	dir    string // the data directory
	parent string // where every kept data directory is: denied to terraform but for dir
	record string // the fingerprint of the init that made dir, beside it (initRecordSuffix)
}

// keptDataDir opens r's kept data directory under parent, locked for this run: false when
// another run holds it or it cannot be made (the caller makes a new one, as in CI).
func (r *ProjectRun) keptDataDir(parent string) (release func(), ok bool) {
	key := sha256.Sum256([]byte(strings.Join([]string{r.Opts.Root, r.Project.Name, r.Project.Dir, r.Project.Workspace}, "\x00")))
	dir := filepath.Join(parent, hex.EncodeToString(key[:16]))
	if err := os.MkdirAll(parent, 0o700); err != nil {
		return nil, false
	}
	unlock, ok := lockFile(dir + dataDirLockSuffix)
	if !ok {
		return nil, false
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		unlock()
		return nil, false
	}
	r.dataDir = dir
	r.reuse = &reusedDataDir{dir: dir, parent: parent, record: dir + initRecordSuffix}
	return unlock, true
}

// initCurrent reports whether r's kept data directory is what init would make now, and if
// not, why (for the log).
func (r *ProjectRun) initCurrent(ctx context.Context) (bool, string) {
	data, err := os.ReadFile(r.reuse.record)
	if err != nil {
		return false, "no earlier init recorded"
	}
	var rec initRecord
	if err := json.Unmarshal(data, &rec); err != nil || rec.Salt == "" {
		return false, "the earlier init's record is unreadable"
	}
	inputs, err := r.initInputs(ctx, rec.Salt)
	if err != nil {
		return false, err.Error()
	}
	if inputs != rec.Inputs {
		return false, "what init reads changed"
	}
	digest, err := dataDirDigest(r.dataDir, rec.Salt)
	if err != nil {
		return false, err.Error()
	}
	if digest != rec.Data {
		return false, "the data directory changed since init"
	}
	return true, ""
}

// resetDataDir empties r's kept data directory before init: init runs as in a new one
// (a changed backend is configured, not migrated; no module or provider is left over).
func (r *ProjectRun) resetDataDir() error {
	entries, err := os.ReadDir(r.dataDir)
	if err != nil {
		return dataDirError(r.Project.Name, r.reuse.parent, err)
	}
	// The record goes first: a reset cut off half-way leaves no record behind.
	if err := os.Remove(r.reuse.record); err != nil && !errors.Is(err, os.ErrNotExist) {
		return dataDirError(r.Project.Name, r.reuse.parent, err)
	}
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(r.dataDir, e.Name())); err != nil {
			return dataDirError(r.Project.Name, r.reuse.parent, err)
		}
	}
	return nil
}

// recordInit writes the fingerprint of the init that just succeeded; a project whose init
// cannot be proven current later (a remote module) gets none, and the reason is returned.
func (r *ProjectRun) recordInit(ctx context.Context) (string, error) {
	if why := remoteModules(r.dataDir); why != "" {
		return why, nil
	}
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	rec := initRecord{Salt: hex.EncodeToString(salt)}
	var err error
	if rec.Inputs, err = r.initInputs(ctx, rec.Salt); err != nil {
		return err.Error(), nil
	}
	if rec.Data, err = dataDirDigest(r.dataDir, rec.Salt); err != nil {
		return "", err
	}
	data, err := json.Marshal(rec)
	if err != nil {
		return "", err
	}
	return "", os.WriteFile(r.reuse.record, data, 0o600)
}

// remoteModules says which module of the data directory's record is not local ("" when
// all are): init could fetch other code for it now.
func remoteModules(dataDir string) string {
	data, err := os.ReadFile(filepath.Join(dataDir, "modules", "modules.json"))
	if errors.Is(err, os.ErrNotExist) {
		return "" // no module call
	}
	var rec struct {
		Modules []struct{ Key, Source string }
	}
	if err != nil || json.Unmarshal(data, &rec) != nil {
		return "the data directory's module record is unreadable"
	}
	for _, m := range rec.Modules {
		if m.Key != "" && !strings.HasPrefix(m.Source, "./") && !strings.HasPrefix(m.Source, "../") {
			return fmt.Sprintf("module %s comes from %s, which can change without the configuration changing", m.Key, m.Source)
		}
	}
	return ""
}

// initInputs is the salted hash of everything init reads for r: an error when something
// makes the init unprovable.
func (r *ProjectRun) initInputs(ctx context.Context, salt string) (string, error) {
	if r.scope == nil {
		return "", errors.New("no tree to compare")
	}
	files := append(r.scope.inputs[:len(r.scope.inputs):len(r.scope.inputs)], sortedKeys(r.Opts.SharedSums)...)
	lock := filepath.ToSlash(filepath.Join(r.Project.Dir, lockFileName))
	files = append(files, lock)
	present := files[:0:0]
	for _, f := range dedupe(files) {
		fi, err := os.Lstat(r.scope.path(f))
		switch {
		case f == lock && errors.Is(err, fs.ErrNotExist):
			// None: init wrote none (no provider needed), or it was removed since (then
			// the record, made after init, had one).
		case err == nil && fi.IsDir():
			return "", fmt.Errorf("%s is a directory (a submodule)", f)
		default:
			present = append(present, f)
		}
	}
	sums, _, err := bundle.HashInputs(ctx, r.scope.root, present)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	fmt.Fprintf(h, "tfgate init v1\x00%s\x00", salt)
	for _, f := range sortedKeys(sums) {
		fmt.Fprintf(h, "file %s %s\n", f, sums[f])
	}
	b := r.Opts.Binary
	fmt.Fprintf(h, "binary %s %s %s %s\n", b.Path, b.Flavor, b.Version, fileStamp(b.Path))
	fmt.Fprintf(h, "project %s %q\nplugins %s\n", r.Project.Dir, r.Project.VarFiles, r.Opts.PluginCacheDir)
	env := r.Opts.TerraformEnv
	for _, k := range sortedKeys(env) {
		if !volatileEnv[k] {
			fmt.Fprintf(h, "env %q=%q\n", k, env[k])
		}
	}
	for _, f := range cliConfigFiles(env) {
		sum, err := fileSum(f)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "cli config %s %s\n", f, sum)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// lockFileName is terraform's dependency lock file, in the project directory.
const lockFileName = ".terraform.lock.hcl"

// volatileEnv are the shell's own variables, which differ between two runs from the same
// shell, and which neither terraform nor a provider reads.
var volatileEnv = map[string]bool{"PWD": true, "OLDPWD": true, "SHLVL": true, "_": true}

// cliConfigFiles are the files of terraform's CLI configuration (provider installation,
// mirrors, credentials) that env leads terraform and OpenTofu to.
func cliConfigFiles(env map[string]string) []string {
	if f := env["TF_CLI_CONFIG_FILE"]; f != "" {
		return []string{f}
	}
	if f := env["TOFU_CLI_CONFIG_FILE"]; f != "" {
		return []string{f}
	}
	home := env["HOME"]
	if home == "" {
		return nil
	}
	return []string{filepath.Join(home, ".terraformrc"), filepath.Join(home, ".tofurc")}
}

// fileStamp is f's size and modification time ("" when it cannot be read): a binary
// replaced in place.
func fileStamp(f string) string {
	fi, err := os.Stat(f)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%d %d", fi.Size(), fi.ModTime().UnixNano())
}

func dedupe(files []string) []string {
	seen := make(map[string]bool, len(files))
	out := files[:0:0]
	for _, f := range files {
		if !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	return out
}

// initKept is InitProject's init in a kept data directory: none when it is current, else
// init in the emptied directory, recorded when it succeeds.
func (r *ProjectRun) initKept(ctx context.Context) error {
	current, why := r.initCurrent(ctx)
	if current {
		r.Opts.Log.Info("terraform init skipped: nothing it reads changed since the last init", "project", r.Project.Name)
		return nil
	}
	r.Opts.Log.Info("terraform init runs", "project", r.Project.Name, "reason", why)
	if err := r.resetDataDir(); err != nil {
		return err
	}
	if err := r.init(ctx); err != nil {
		return err
	}
	why, err := r.recordInit(ctx)
	if err != nil {
		// Only the next run's speed depends on the record: it runs init again.
		r.Opts.Log.Warn("terraform init not recorded", "project", r.Project.Name, "error", err)
	} else if why != "" {
		r.Opts.Log.Info("terraform init not recorded: the next plan runs it again", "project", r.Project.Name, "reason", why)
	}
	return nil
}
