package e2e

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tfgate/tfgate/internal/github/githubtest"
	"gopkg.in/yaml.v3"
)

// TestActionDownloadsRelease runs the composite action in act against a fake release server
// (githubtest serving tfgate/tfgate's releases and their assets the way GitHub does), seeded
// with a release built as .goreleaser.yaml builds one: the stamped binary in an archive of
// the same name and layout, and checksums.txt.
//
//   - a release tag as the action's ref downloads that release, checks its archive against
//     checksums.txt, and runs it (`tfgate version` prints the stamped version); version:
//     latest, and version: v9.8 (its newest v9.8.z that is no prerelease), then find the
//     same release and reuse the binary from the tool cache;
//   - an archive whose sha256 is not the one checksums.txt lists, or that checksums.txt does
//     not list, is refused before anything in it runs;
//   - version: source builds tfgate from the action's source; a ref that names no release (a
//     branch) is an error without it: tfgate is built only when asked.
//
// The log shows the setup step's time for a download and for a source build.
func TestActionDownloadsRelease(t *testing.T) {
	env := newActEnv(t)
	layout := releaseLayout(t, env.root)

	// The release server's content: v9.8.7 genuine; v9.8.8 a tampered archive (a script
	// that would announce itself) under the genuine one's checksum; v9.8.9 an archive
	// checksums.txt does not list. Both bad ones are prereleases, so latest is v9.8.7.
	good := env.release(t, "v9.8.7", "0123456789abcdef0123456789abcdef01234567").Archive
	tampered := tarGz(t, map[string][]byte{"tfgate": []byte("#!/bin/sh\necho TAMPERED-BINARY-RAN\n")})
	seed := func(api *githubtest.Server) {
		sum := func(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }
		other := strings.Repeat("ab", 32)
		release := func(ver string, archive []byte, sums string, pre bool) {
			api.AddRelease("tfgate/tfgate", githubtest.Release{Tag: "v" + ver, Prerelease: pre, Assets: []githubtest.Asset{
				{Name: layout.archive(ver), ContentType: "application/gzip", Data: archive},
				{Name: "checksums.txt", ContentType: "text/plain", Data: []byte(sums)},
			}})
		}
		release("9.8.7", good, fmt.Sprintf("%s  %s\n%s  %s\n", other, layout.archiveFor("9.8.7", "darwin", "arm64"), sum(good), layout.archive("9.8.7")), false)
		release("9.8.8", tampered, fmt.Sprintf("%s  %s\n", sum(good), layout.archive("9.8.8")), true)
		release("9.8.9", good, fmt.Sprintf("%s  %s\n", sum(good), layout.archiveFor("9.8.9", "darwin", "arm64")), true)
	}

	// Only action.yml: a download needs neither the source nor Go.
	actionOnly := filepath.Join(t.TempDir(), "tfgate-action")
	copyFile(t, filepath.Join(env.root, "action.yml"), filepath.Join(actionOnly, "action.yml"))

	step := func(ref, with string) string {
		return fmt.Sprintf("      - id: tfgate\n        uses: tfgate/tfgate@%s\n        with:\n          command: version\n%s", ref, with)
	}
	for _, tc := range []struct {
		name    string
		jobs    map[string]string // job → its steps
		actions map[string]string
		jobOK   bool
		log     []string
		notLog  []string
		binary  string // the tfgate step's binary output, below the runner's temp or tool cache
	}{
		{
			name: "release tag",
			jobs: map[string]string{"version": step("v9.8.7", "") +
				"      - uses: tfgate/tfgate@v1\n        with:\n          command: version\n          version: latest\n" +
				"      - uses: tfgate/tfgate@v1\n        with:\n          command: version\n          version: v9.8\n"},
			actions: map[string]string{"tfgate/tfgate@v9.8.7": actionOnly, "tfgate/tfgate@v1": actionOnly},
			jobOK:   true,
			log: []string{"tfgate v9.8.7: " + layout.archive("9.8.7") + " verified",
				"tfgate v9.8.7 (go", "commit 0123456789abcdef0123456789abcdef01234567, built 2026-01-02T03:04:05Z)",
				"tfgate v9.8.7 (" + layout.archive("9.8.7"), "from the tool cache",
				"tfgate v9.8: the newest release is v9.8.7", "Job succeeded"},
			binary: "/tfgate/9.8.7/" + map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH] + "/tfgate",
		},
		{
			name: "refused",
			jobs: map[string]string{
				"tampered": step("v1", "          version: v9.8.8\n"),
				"unlisted": step("v1", "          version: v9.8.9\n"),
			},
			actions: map[string]string{"tfgate/tfgate@v1": actionOnly},
			log: []string{"checksum mismatch: " + layout.archive("9.8.8") + " of release v9.8.8 has sha256",
				"checksums.txt of release v9.8.9 has no (single) sha256 line for " + layout.archive("9.8.9"),
				"Failure - Main Set up tfgate"},
			notLog: []string{"TAMPERED-BINARY-RAN", "Main tfgate version"},
		},
		{
			name:    "source",
			jobs:    map[string]string{"version": step("v1", "          version: source\n")},
			actions: map[string]string{"tfgate/tfgate@v1": env.actionSource(t)},
			jobOK:   true,
			log:     []string{"tfgate v1 (go", "Job succeeded"},
			notLog:  []string{"verified"},
			binary:  "/tfgate",
		},
		{
			// Only v9 releases: before a first v1.x.y, @v1 says how to build instead.
			name:    "no release of the major",
			jobs:    map[string]string{"version": step("v1", "")},
			actions: map[string]string{"tfgate/tfgate@v1": actionOnly},
			log: []string{"tfgate/tfgate has no release v1.x (none that is no draft nor prerelease)",
				"set version: source (with actions/setup-go)", "Failure - Main Set up tfgate"},
			notLog: []string{"Main tfgate version"},
		},
		{
			name:    "branch",
			jobs:    map[string]string{"version": step("main", "")},
			actions: map[string]string{"tfgate/tfgate@main": env.actionSource(t)},
			log: []string{`version "main" (the input, else the action's ref) names no release`,
				"or source to build this ref (with actions/setup-go)", "Failure - Main Set up tfgate"},
			notLog: []string{"Main tfgate version"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			api := githubtest.New(t, githubtest.WithToken(actToken, githubtest.Token{User: githubtest.Bot, Installation: true}))
			seed(api)
			var wf strings.Builder
			wf.WriteString("name: version\non: push\npermissions:\n  contents: read\njobs:\n")
			for _, job := range slices.Sorted(maps.Keys(tc.jobs)) {
				fmt.Fprintf(&wf, "  %s:\n    runs-on: ubuntu-latest\n    steps:\n%s", job, tc.jobs[job])
			}
			workflow := []byte(wf.String())
			record := ""
			if tc.binary != "" {
				workflow = recordStepOutputs(t, workflow, "version", "tfgate")
				record = filepath.Join(t.TempDir(), "outputs.json")
			}
			dir := filepath.Join(t.TempDir(), "infra")
			writeFile(t, filepath.Join(dir, ".github", "workflows", "version.yml"), workflow)
			head := commitMain(t, dir)
			res := env.run(t, actRun{
				Event:    "push",
				Workflow: ".github/workflows/version.yml",
				Dir:      dir,
				Payload:  map[string]any{"ref": "refs/heads/main", "after": head, "repository": infraRepository()},
				SHA:      head,
				Actions:  tc.actions,
				Env:      map[string]string{"GITHUB_API_URL": api.URL(), "E2E_RECORD": record},
			})
			logOnFailure(t, res)
			if ok := res.Err == nil; ok != tc.jobOK {
				t.Errorf("act: %v; want the jobs to succeed: %v", res.Err, tc.jobOK)
			}
			for _, want := range tc.log {
				if !strings.Contains(res.Log, want) {
					t.Errorf("act's log lacks %q", want)
				}
			}
			for _, bad := range tc.notLog {
				if strings.Contains(res.Log, bad) {
					t.Errorf("act's log holds %q", bad)
				}
			}
			if record != "" {
				if got := readRecord(t, record).Outputs["binary"]; !strings.HasSuffix(got, tc.binary) {
					t.Errorf("output binary = %q, want a path ending in %s", got, tc.binary)
				}
			}
			for _, m := range setupTime.FindAllStringSubmatch(res.Log, -1) {
				t.Logf("%s: setup step %s: %s", tc.name, m[1], m[2])
			}
			t.Logf("GitHub API requests: %v", api.Counts())
		})
	}
}

// setupTime finds the setup step's result and time in act's log.
var setupTime = regexp.MustCompile(`(Success|Failure) - Main Set up tfgate \[([^\]]+)\]`)

// goreleaserLayout is what the action relies on of .goreleaser.yaml.
type goreleaserLayout struct {
	nameTemplate string
}

func (l goreleaserLayout) archive(version string) string {
	return l.archiveFor(version, runtime.GOOS, runtime.GOARCH)
}

func (l goreleaserLayout) archiveFor(version, goos, goarch string) string {
	return strings.NewReplacer("{{ .Version }}", version, "{{ .Os }}", goos, "{{ .Arch }}", goarch).Replace(l.nameTemplate) + ".tar.gz"
}

// releaseLayout reads .goreleaser.yaml and fails unless its releases are what action.yml
// downloads: tar.gz archives named tfgate_<version>_<os>_<arch> holding the binary tfgate at
// their root, checksums.txt, and the version, commit and date stamped.
func releaseLayout(t *testing.T, root string) goreleaserLayout {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Builds []struct {
			Binary  string   `yaml:"binary"`
			Ldflags []string `yaml:"ldflags"`
		} `yaml:"builds"`
		Archives []struct {
			Formats         []string `yaml:"formats"`
			NameTemplate    string   `yaml:"name_template"`
			WrapInDirectory any      `yaml:"wrap_in_directory"`
		} `yaml:"archives"`
		Checksum struct {
			NameTemplate string `yaml:"name_template"`
		} `yaml:"checksum"`
	}
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		t.Fatalf(".goreleaser.yaml: %v", err)
	}
	if len(cfg.Builds) != 1 || cfg.Builds[0].Binary != "tfgate" {
		t.Fatalf(".goreleaser.yaml: want one build of the binary tfgate (action.yml extracts it)")
	}
	ldflags := strings.Join(cfg.Builds[0].Ldflags, " ")
	for _, v := range []string{"Version=v{{ .Version }}", "Commit=", "Date="} {
		if !strings.Contains(ldflags, "-X github.com/tfgate/tfgate/internal/cli."+v) {
			t.Errorf(".goreleaser.yaml: ldflags do not stamp internal/cli.%s", v)
		}
	}
	if len(cfg.Archives) != 1 || !slices.Equal(cfg.Archives[0].Formats, []string{"tar.gz"}) || cfg.Archives[0].WrapInDirectory != nil {
		t.Fatalf(".goreleaser.yaml: want one tar.gz archive, the binary at its root (action.yml downloads it)")
	}
	if got := cfg.Checksum.NameTemplate; got != "checksums.txt" {
		t.Fatalf(".goreleaser.yaml: checksum name %q, want checksums.txt (action.yml reads it)", got)
	}
	l := goreleaserLayout{nameTemplate: cfg.Archives[0].NameTemplate}
	if want := "tfgate_1.2.3_linux_amd64.tar.gz"; l.archiveFor("1.2.3", "linux", "amd64") != want {
		t.Fatalf(".goreleaser.yaml: archive name_template %q, want the names action.yml downloads (%s)", l.nameTemplate, want)
	}
	return l
}

// tarGz packs files (name → content; tfgate executable) as a gzipped tar.
func tarGz(t *testing.T, files map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, name := range slices.Sorted(maps.Keys(files)) {
		mode := int64(0o644)
		if name == "tfgate" {
			mode = 0o755
		}
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: mode, Size: int64(len(files[name])), ModTime: time.Unix(1767323045, 0), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(files[name]); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
