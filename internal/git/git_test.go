package git

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var seedFiles = map[string]string{
	".gitignore":           "*.log\n",
	"README.md":            "# repo\n",
	"envs/a/main.tf":       "# a\n",
	"envs/b/main.tf":       "# b\n",
	"envs2/c.tf":           "# c\n",
	"modules/net/main.tf":  "# net\n",
	"old/name.tf":          "# renamed later\n",
	"gone.tf":              "# deleted later\n",
	"keep.tf":              "# deleted in the working tree\n",
	"dir with space/x.tf":  "# spaces\n",
	"modules/net/vars.tf":  "# untouched\n",
	"envs/a/terraform.tfv": "# untouched\n",
}

// featureBranch builds the scenario most tests share: a clone on branch "feature" with
// committed, staged, unstaged and untracked changes, while origin/main moved on after the
// branch point.
func featureBranch(t *testing.T) (work, branchPoint string) {
	t.Helper()
	seed := newRepo(t, seedFiles)
	branchPoint = git(t, seed, "rev-parse", "HEAD")
	work, _ = cloneWithOrigin(t, seed)

	git(t, work, "checkout", "-q", "-b", "feature")
	writeFiles(t, work, map[string]string{"envs/a/main.tf": "# a changed\n"})
	git(t, work, "commit", "-q", "-am", "change a")
	if err := os.MkdirAll(filepath.Join(work, "new"), 0o755); err != nil {
		t.Fatal(err)
	}
	git(t, work, "mv", "old/name.tf", "new/name.tf")
	git(t, work, "rm", "-q", "gone.tf")
	writeFiles(t, work, map[string]string{"dir with space/ünï.tf": "# unicode\n"})
	git(t, work, "add", "-A")
	git(t, work, "commit", "-q", "-m", "rename, delete, add")

	// Main moves on after the branch point: its changes are not the branch's.
	writeFiles(t, seed, map[string]string{"envs/b/main.tf": "# b changed on main\n"})
	git(t, seed, "commit", "-q", "-am", "main moves on")
	git(t, seed, "push", "-q", "origin", "main")
	git(t, work, "fetch", "-q", "origin")

	// Uncommitted work: staged, unstaged, deleted, untracked, ignored.
	writeFiles(t, work, map[string]string{
		"modules/net/main.tf": "# staged\n",
		"staged-new.tf":       "# staged new file\n",
	})
	git(t, work, "add", "modules/net/main.tf", "staged-new.tf")
	writeFiles(t, work, map[string]string{
		"README.md":          "# unstaged\n",
		"notes/new file.txt": "untracked\n",
		"debug.log":          "ignored\n",
	})
	if err := os.Remove(filepath.Join(work, "keep.tf")); err != nil {
		t.Fatal(err)
	}
	return work, branchPoint
}

func TestChangedFiles(t *testing.T) {
	work, branchPoint := featureBranch(t)
	want := []string{
		"README.md",
		"dir with space/ünï.tf",
		"envs/a/main.tf",
		"gone.tf",
		"keep.tf",
		"modules/net/main.tf",
		"new/name.tf",
		"notes/new file.txt",
		"old/name.tf",
		"staged-new.tf",
	}
	tests := []struct {
		name string
		dir  string // Git.Dir, relative to work
		base string
	}{
		{name: "explicit base", dir: ".", base: "origin/main"},
		{name: "default base", dir: ".", base: ""},
		{name: "run from a subdirectory", dir: "envs", base: "origin/main"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := Git{Dir: filepath.Join(work, tt.dir)}
			got, err := g.ChangedFiles(ctx(t), tt.base)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.Files, want) {
				t.Errorf("Files =\n  %q\nwant\n  %q", got.Files, want)
			}
			if got.MergeBase != branchPoint {
				t.Errorf("MergeBase = %s, want branch point %s", got.MergeBase, branchPoint)
			}
			if got.Base != "origin/main" {
				t.Errorf("Base = %q, want origin/main", got.Base)
			}
		})
	}
}

func TestChangedFilesCleanTreeOnBase(t *testing.T) {
	dir := newRepo(t, map[string]string{"main.tf": "# x\n"})
	got, err := Git{Dir: dir}.ChangedFiles(ctx(t), "main")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Files) != 0 {
		t.Errorf("Files = %q, want none", got.Files)
	}
}

func TestMergeBase(t *testing.T) {
	work, branchPoint := featureBranch(t)
	g := Git{Dir: work}
	git(t, work, "checkout", "-q", "--orphan", "unrelated")
	git(t, work, "commit", "-q", "-m", "unrelated root")
	unrelatedHead := git(t, work, "rev-parse", "HEAD")
	git(t, work, "checkout", "-q", "-f", "feature")

	got, err := g.MergeBase(ctx(t), "origin/main")
	if err != nil {
		t.Fatal(err)
	}
	if got != branchPoint {
		t.Errorf("MergeBase(origin/main) = %s, want %s", got, branchPoint)
	}

	errTests := []struct {
		ref     string
		wantErr string
	}{
		{ref: "no-such-branch", wantErr: `unknown git ref "no-such-branch"`},
		{ref: unrelatedHead, wantErr: "no common ancestor"},
		{ref: "--all", wantErr: `unknown git ref "--all"`}, // never an option of merge-base's
	}
	for _, tt := range errTests {
		t.Run(tt.ref, func(t *testing.T) {
			_, err := g.MergeBase(ctx(t), tt.ref)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("MergeBase(%s) error = %v, want it to contain %q", tt.ref, err, tt.wantErr)
			}
		})
	}
}

func TestDefaultBase(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(t *testing.T) string
		want    string
		wantErr string
	}{
		{
			name: "origin/HEAD",
			setup: func(t *testing.T) string {
				work, _ := cloneWithOrigin(t, newRepo(t, map[string]string{"a.tf": ""}))
				return work
			},
			want: "origin/main",
		},
		{
			name: "origin/HEAD pointing at a non-standard branch",
			setup: func(t *testing.T) string {
				seed := newRepo(t, map[string]string{"a.tf": ""})
				git(t, seed, "branch", "-m", "main", "develop")
				work, _ := cloneWithOrigin(t, seed)
				return work
			},
			want: "origin/develop",
		},
		{
			name: "no origin/HEAD, origin/master",
			setup: func(t *testing.T) string {
				seed := newRepo(t, map[string]string{"a.tf": ""})
				git(t, seed, "branch", "-m", "main", "master")
				work, _ := cloneWithOrigin(t, seed)
				git(t, work, "remote", "set-head", "origin", "--delete")
				git(t, work, "checkout", "-q", "-b", "feature")
				git(t, work, "branch", "-D", "master")
				return work
			},
			want: "origin/master",
		},
		{
			name: "no remote, local main",
			setup: func(t *testing.T) string {
				return newRepo(t, map[string]string{"a.tf": ""})
			},
			want: "main",
		},
		{
			name: "no remote, local master",
			setup: func(t *testing.T) string {
				dir := newRepo(t, map[string]string{"a.tf": ""})
				git(t, dir, "branch", "-m", "main", "master")
				return dir
			},
			want: "master",
		},
		{
			name: "nothing to go on",
			setup: func(t *testing.T) string {
				dir := newRepo(t, map[string]string{"a.tf": ""})
				git(t, dir, "branch", "-m", "main", "trunk")
				return dir
			},
			wantErr: "pass --base REF",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Git{Dir: tt.setup(t)}.DefaultBase(ctx(t))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("DefaultBase() = %q, %v; want error containing %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("DefaultBase() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestTopLevelAndHead(t *testing.T) {
	repo := newRepo(t, map[string]string{"envs/a/main.tf": ""})
	wantTop, err := filepath.EvalSymlinks(repo)
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{repo, filepath.Join(repo, "envs", "a")} {
		got, err := TopLevel(ctx(t), dir)
		if err != nil {
			t.Fatal(err)
		}
		if got != wantTop {
			t.Errorf("TopLevel(%s) = %s, want %s", dir, got, wantTop)
		}
	}

	notRepo := t.TempDir()
	for _, dir := range []string{notRepo, filepath.Join(notRepo, "missing")} {
		_, err = TopLevel(ctx(t), dir)
		if err == nil || !strings.Contains(err.Error(), "not a git repository: "+dir) || !strings.Contains(err.Error(), "-C") {
			t.Errorf("TopLevel(%s) error = %v, want 'not a git repository' with a -C hint", dir, err)
		}
	}

	head, err := Git{Dir: repo}.Head(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if want := git(t, repo, "rev-parse", "HEAD"); head != want || len(head) != 40 {
		t.Errorf("Head() = %s, want full SHA %s", head, want)
	}

	empty := filepath.Join(t.TempDir(), "empty")
	git(t, filepath.Dir(empty), "init", "-q", "-b", "main", empty)
	if _, err := (Git{Dir: empty}).Head(ctx(t)); err == nil || !strings.Contains(err.Error(), "no commits yet") {
		t.Errorf("Head() on empty repo error = %v, want 'no commits yet'", err)
	}
}

func TestReadFile(t *testing.T) {
	work, branchPoint := featureBranch(t)
	g := Git{Dir: filepath.Join(work, "envs")}
	tests := []struct {
		name, rev, path string
		want            string
		wantNotExist    bool
		wantErr         string
	}{
		{name: "at branch point", rev: branchPoint, path: "envs/a/main.tf", want: "# a\n"},
		{name: "at HEAD", rev: "HEAD", path: "envs/a/main.tf", want: "# a changed\n"},
		{name: "dot-slash path is root-relative", rev: "HEAD", path: "./envs/b/main.tf", want: "# b\n"},
		{name: "unicode path", rev: "HEAD", path: "dir with space/ünï.tf", want: "# unicode\n"},
		{name: "deleted on branch", rev: "HEAD", path: "gone.tf", wantNotExist: true},
		{name: "directory is not a file", rev: "HEAD", path: "envs", wantErr: "envs"},
		{name: "unknown revision", rev: "nope", path: "envs/a/main.tf", wantErr: `unknown git revision "nope"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := g.ReadFile(ctx(t), tt.rev, tt.path)
			switch {
			case tt.wantNotExist:
				if !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("error = %v, want fs.ErrNotExist", err)
				}
			case tt.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("error = %v, want %q", err, tt.wantErr)
				}
				if tt.rev == "nope" && errors.Is(err, fs.ErrNotExist) {
					t.Errorf("unknown revision must not look like a missing file: %v", err)
				}
			case err != nil:
				t.Fatal(err)
			case string(got) != tt.want:
				t.Errorf("ReadFile = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestListFiles(t *testing.T) {
	work, branchPoint := featureBranch(t)
	g := Git{Dir: filepath.Join(work, "modules")}
	tests := []struct {
		rev, dir string
		want     []string
	}{
		{rev: branchPoint, dir: "envs", want: []string{"envs/a/main.tf", "envs/a/terraform.tfv", "envs/b/main.tf"}},
		{rev: "HEAD", dir: "envs/a/", want: []string{"envs/a/main.tf", "envs/a/terraform.tfv"}},
		{rev: "HEAD", dir: "old", want: nil},
		{rev: "HEAD", dir: "new", want: []string{"new/name.tf"}},
		{rev: "HEAD", dir: "dir with space", want: []string{"dir with space/x.tf", "dir with space/ünï.tf"}},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			got, err := g.ListFiles(ctx(t), tt.rev, tt.dir)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("ListFiles(%s, %s) = %q, want %q", tt.rev, tt.dir, got, tt.want)
			}
		})
	}

	all, err := g.ListFiles(ctx(t), "HEAD", ".")
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != len(seedFiles)-2+2 || !slices.IsSorted(all) {
		// seed files, minus the renamed-away and deleted ones, plus new/name.tf and ünï.tf.
		t.Errorf("ListFiles(HEAD, .) = %q: want %d sorted files", all, len(seedFiles))
	}
	if _, err := g.ListFiles(ctx(t), "nope", "."); err == nil || !strings.Contains(err.Error(), `unknown git revision "nope"`) {
		t.Errorf("ListFiles(nope) error = %v", err)
	}
}

func TestGitDirs(t *testing.T) {
	main := t.TempDir()
	git(t, main, "init", "-q", "-b", "main")
	git(t, main, "commit", "-q", "--allow-empty", "-m", "one")
	dirs, err := Git{Dir: main}.GitDirs(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(main)
	if want := filepath.Join(real, ".git"); len(dirs) != 1 || dirs[0] != want && dirs[0] != filepath.Join(main, ".git") {
		t.Errorf("main worktree: %v, want [%s]", dirs, want)
	}
	wt := filepath.Join(t.TempDir(), "wt")
	git(t, main, "worktree", "add", "-q", wt)
	dirs, err = Git{Dir: wt}.GitDirs(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) != 2 || !strings.HasSuffix(dirs[0], ".git") || !strings.Contains(dirs[1], filepath.Join(".git", "worktrees")) {
		t.Errorf("linked worktree: %v, want the common .git and its worktrees/ entry", dirs)
	}
}
