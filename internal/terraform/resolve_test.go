package terraform

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestResolveFinds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		setup       func(t *testing.T, root string) ResolveOptions
		wantPath    string // relative to root
		wantVersion string
		wantFlavor  string
	}{
		{
			name: "override path wins over PATH",
			setup: func(t *testing.T, root string) ResolveOptions {
				writeFake(t, filepath.Join(root, "bin"), "terraform", "1.9.0", nil)
				pinned := writeFake(t, filepath.Join(root, "pinned"), "terraform", "1.5.7", nil)
				return ResolveOptions{Override: pinned, PathEnv: filepath.Join(root, "bin")}
			},
			wantPath: "pinned/terraform", wantVersion: "1.5.7", wantFlavor: "terraform",
		},
		{
			name: "override name looked up on PathEnv",
			setup: func(t *testing.T, root string) ResolveOptions {
				writeFake(t, filepath.Join(root, "a"), "tofu", "1.6.2", nil)
				return ResolveOptions{Override: "tofu", PathEnv: filepath.Join(root, "a")}
			},
			wantPath: "a/tofu", wantVersion: "1.6.2", wantFlavor: "tofu",
		},
		{
			name: "first on PATH matching the constraint",
			setup: func(t *testing.T, root string) ResolveOptions {
				writeFake(t, filepath.Join(root, "a"), "terraform", "1.5.0", nil)
				writeFake(t, filepath.Join(root, "b"), "terraform", "1.6.2", nil)
				writeFake(t, filepath.Join(root, "c"), "terraform", "1.7.0", nil)
				return ResolveOptions{Constraint: "~> 1.6.0", PathEnv: join(root, "a", "b", "c")}
			},
			wantPath: "b/terraform", wantVersion: "1.6.2", wantFlavor: "terraform",
		},
		{
			name: "relative PATH entries are ignored",
			setup: func(t *testing.T, root string) ResolveOptions {
				writeFake(t, filepath.Join(root, "b"), "terraform", "1.6.2", nil)
				return ResolveOptions{PathEnv: "." + string(filepath.ListSeparator) + filepath.Join(root, "b")}
			},
			wantPath: "b/terraform", wantVersion: "1.6.2", wantFlavor: "terraform",
		},
		{
			name: "terraform preferred over tofu",
			setup: func(t *testing.T, root string) ResolveOptions {
				writeFake(t, filepath.Join(root, "a"), "tofu", "1.8.0", nil)
				writeFake(t, filepath.Join(root, "b"), "terraform", "1.5.7", nil)
				return ResolveOptions{Binary: "terraform", PathEnv: join(root, "a", "b")}
			},
			wantPath: "b/terraform", wantVersion: "1.5.7", wantFlavor: "terraform",
		},
		{
			name: "tofu fallback when no terraform",
			setup: func(t *testing.T, root string) ResolveOptions {
				writeFake(t, filepath.Join(root, "a"), "tofu", "1.8.0", nil)
				return ResolveOptions{PathEnv: join(root, "a")}
			},
			wantPath: "a/tofu", wantVersion: "1.8.0", wantFlavor: "tofu",
		},
		{
			name: "tofu fallback when terraform too old",
			setup: func(t *testing.T, root string) ResolveOptions {
				writeFake(t, filepath.Join(root, "a"), "terraform", "1.4.0", nil)
				writeFake(t, filepath.Join(root, "a"), "tofu", "1.6.0", nil)
				return ResolveOptions{PathEnv: join(root, "a")}
			},
			wantPath: "a/tofu", wantVersion: "1.6.0", wantFlavor: "tofu",
		},
		{
			name: "tofu when configured",
			setup: func(t *testing.T, root string) ResolveOptions {
				writeFake(t, filepath.Join(root, "a"), "terraform", "1.5.7", nil)
				writeFake(t, filepath.Join(root, "b"), "tofu", "1.7.1", nil)
				return ResolveOptions{Binary: "tofu", PathEnv: join(root, "a", "b")}
			},
			wantPath: "b/tofu", wantVersion: "1.7.1", wantFlavor: "tofu",
		},
		{
			name: "installed version newest matching",
			setup: func(t *testing.T, root string) ResolveOptions {
				inst := filepath.Join(root, "inst")
				writeFake(t, filepath.Join(inst, "terraform_1.5.5"), "terraform", "1.5.5", nil)
				writeFake(t, filepath.Join(inst, "terraform_1.5.7"), "terraform", "1.5.7", nil)
				writeFake(t, filepath.Join(inst, "terraform_1.6.0"), "terraform", "1.6.0", nil)
				writeFake(t, filepath.Join(root, "a"), "terraform", "1.4.0", nil)
				return ResolveOptions{Constraint: "~> 1.5.0", InstallDir: inst, PathEnv: join(root, "a")}
			},
			wantPath: "inst/terraform_1.5.7/terraform", wantVersion: "1.5.7", wantFlavor: "terraform",
		},
		{
			name: "PATH before install dir",
			setup: func(t *testing.T, root string) ResolveOptions {
				inst := filepath.Join(root, "inst")
				writeFake(t, filepath.Join(inst, "terraform_1.6.0"), "terraform", "1.6.0", nil)
				writeFake(t, filepath.Join(root, "a"), "terraform", "1.5.7", nil)
				return ResolveOptions{InstallDir: inst, PathEnv: join(root, "a")}
			},
			wantPath: "a/terraform", wantVersion: "1.5.7", wantFlavor: "terraform",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			b, err := Resolve(context.Background(), tt.setup(t, root))
			if err != nil {
				t.Fatal(err)
			}
			want := filepath.Join(root, tt.wantPath)
			if b.Path != want || b.Version.String() != tt.wantVersion || b.Flavor != tt.wantFlavor {
				t.Errorf("got %s, want %s %s (%s)", b, tt.wantFlavor, tt.wantVersion, want)
			}
		})
	}
}

// TestResolveErrors pins the wording users see when no binary fits.
func TestResolveErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		setup func(t *testing.T, root string) ResolveOptions
		is    error
	}{
		{
			name: "nothing found",
			setup: func(t *testing.T, root string) ResolveOptions {
				return ResolveOptions{PathEnv: join(root, "empty"), InstallDir: filepath.Join(root, "inst")}
			},
			is: ErrNotFound,
		},
		{
			name: "configured tofu missing",
			setup: func(t *testing.T, root string) ResolveOptions {
				writeFake(t, filepath.Join(root, "a"), "terraform", "1.5.7", nil)
				return ResolveOptions{Binary: "tofu", PathEnv: join(root, "a")}
			},
		},
		{
			name: "too old on PATH",
			setup: func(t *testing.T, root string) ResolveOptions {
				writeFake(t, filepath.Join(root, "a"), "terraform", "1.4.0", nil)
				return ResolveOptions{PathEnv: join(root, "a")}
			},
		},
		{
			name: "constraint mismatch everywhere",
			setup: func(t *testing.T, root string) ResolveOptions {
				writeFake(t, filepath.Join(root, "a"), "terraform", "1.5.7", nil)
				writeFake(t, filepath.Join(root, "a"), "tofu", "1.8.0", nil)
				writeFake(t, filepath.Join(root, "inst", "terraform_1.6.1"), "terraform", "1.6.1", nil)
				return ResolveOptions{Constraint: ">= 1.9", PathEnv: join(root, "a"), InstallDir: filepath.Join(root, "inst")}
			},
		},
		{
			name: "not terraform",
			setup: func(t *testing.T, root string) ResolveOptions {
				dir := filepath.Join(root, "a")
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				writeExecutable(t, filepath.Join(dir, "terraform"), "#!/bin/sh\necho Terraform v0.12.31\n")
				return ResolveOptions{PathEnv: join(root, "a")}
			},
		},
		{
			name: "override too old",
			setup: func(t *testing.T, root string) ResolveOptions {
				p := writeFake(t, filepath.Join(root, "a"), "terraform", "1.4.0", nil)
				writeFake(t, filepath.Join(root, "b"), "terraform", "1.5.7", nil)
				return ResolveOptions{Override: p, PathEnv: join(root, "b")}
			},
		},
		{
			name: "override constraint mismatch",
			setup: func(t *testing.T, root string) ResolveOptions {
				p := writeFake(t, filepath.Join(root, "a"), "terraform", "1.5.7", nil)
				return ResolveOptions{Override: p, Constraint: "~> 1.6"}
			},
		},
		{
			name: "override name not on PATH",
			setup: func(t *testing.T, root string) ResolveOptions {
				return ResolveOptions{Override: "terraform-1.5", PathEnv: join(root, "a")}
			},
		},
		{
			name: "override path missing",
			setup: func(t *testing.T, root string) ResolveOptions {
				return ResolveOptions{Override: filepath.Join(root, "nope", "terraform")}
			},
		},
		{
			name: "bad constraint",
			setup: func(t *testing.T, root string) ResolveOptions {
				return ResolveOptions{Constraint: "latest"}
			},
		},
		{
			name: "bad binary",
			setup: func(t *testing.T, root string) ResolveOptions {
				return ResolveOptions{Binary: "terragrunt"}
			},
		},
	}
	var golden strings.Builder
	for _, tt := range tests {
		root := t.TempDir()
		_, err := Resolve(context.Background(), tt.setup(t, root))
		if err == nil {
			t.Errorf("%s: no error", tt.name)
			continue
		}
		if tt.is != nil && !errors.Is(err, tt.is) {
			t.Errorf("%s: %v is not %v", tt.name, err, tt.is)
		}
		golden.WriteString("== " + tt.name + " ==\n" + strings.ReplaceAll(err.Error(), root, "$TMP") + "\n\n")
	}
	goldenCompare(t, t.Name(), golden.String())
}

// TestResolveInstall covers the download path without the internet: a
// mirror that fails must be reported, and must not stop the tofu fallback.
func TestResolveInstall(t *testing.T) {
	t.Parallel()
	mirror := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// 404 rather than 5xx: hc-install retries server errors with backoff.
		http.NotFound(w, r)
	}))
	defer mirror.Close()

	for _, tc := range []struct {
		name       string
		constraint string
		tofu       bool
		wantErr    string
	}{
		{name: "range", constraint: "~> 1.5", wantErr: "download into $TMP/inst: "},
		{name: "exact", constraint: "1.5.7", wantErr: "download into $TMP/inst: "},
		{name: "fallback to tofu after failed download", constraint: "~> 1.6", tofu: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			if tc.tofu {
				writeFake(t, filepath.Join(root, "a"), "tofu", "1.6.2", nil)
			}
			b, err := Resolve(context.Background(), ResolveOptions{
				Constraint: tc.constraint, Install: true, InstallDir: filepath.Join(root, "inst"),
				ReleasesURL: mirror.URL, PathEnv: join(root, "a"),
			})
			if tc.wantErr == "" {
				if err != nil || b.Flavor != FlavorTofu {
					t.Fatalf("got %v, %v; want tofu", b, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("got %s, want a download error", b)
			}
			msg := strings.ReplaceAll(err.Error(), root, "$TMP")
			if !strings.Contains(msg, tc.wantErr) || strings.Contains(msg, "--install") {
				t.Errorf("error %q should report the download and not suggest --install", msg)
			}
			// A failed download must leave nothing that looks installed.
			entries, _ := os.ReadDir(filepath.Join(root, "inst"))
			if len(entries) != 0 {
				t.Errorf("install dir not clean after failed download: %v", entries)
			}
		})
	}
}

func TestExactVersion(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"1.5.7": "1.5.7", "= 1.6.0": "1.6.0", " =1.6.1 ": "1.6.1", "~> 1.5": "", ">= 1.5": "", "": "", "1.5.7, 1.5.8": ""} {
		got := ""
		if v := exactVersion(in); v != nil {
			got = v.String()
		}
		if got != want {
			t.Errorf("exactVersion(%q) = %q, want %q", in, got, want)
		}
	}
}

func join(root string, dirs ...string) string {
	var out []string
	for _, d := range dirs {
		out = append(out, filepath.Join(root, d))
	}
	return strings.Join(out, string(filepath.ListSeparator))
}
