package bundle

import (
	"archive/zip"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tfgate/tfgate/internal/testenv"
)

// The backend a real plan file of terraform 1.5.7 and of OpenTofu 1.10.6 applies to is read
// from it — -backend-config merged in, the workspace it was made in — and is what init
// recorded in its data directory, setting for setting.
func TestReadTFPlanBackend(t *testing.T) {
	for name, bin := range map[string]string{"terraform": testenv.Terraform(t), "tofu": testenv.Tofu(t)} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, filepath.Join(dir, "main.tf"), "terraform {\n  backend \"local\" {}\n}\nresource \"terraform_data\" \"x\" {\n  input = \"v1\"\n}\n")
			run := func(args ...string) {
				t.Helper()
				cmd := exec.Command(bin, append([]string{"-chdir=" + dir}, args...)...)
				cmd.Env = append(os.Environ(), "TF_CLI_CONFIG_FILE=/dev/null", "TF_IN_AUTOMATION=1", "TF_DATA_DIR="+filepath.Join(dir, "data"))
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
				}
			}
			run("init", "-input=false", "-no-color", "-backend-config=path=../../evil.tfstate")
			run("workspace", "new", "other")
			run("plan", "-input=false", "-no-color", "-out="+filepath.Join(dir, "p.tfplan"))

			z, err := zip.OpenReader(filepath.Join(dir, "p.tfplan"))
			if err != nil {
				t.Fatal(err)
			}
			defer z.Close()
			got, err := ReadTFPlan(&z.Reader)
			if err != nil {
				t.Fatal(err)
			}
			want := Backend{Type: "local", Config: map[string]string{"path": `"../../evil.tfstate"`, "workspace_dir": "null"}, Workspace: "other"}
			if !reflect.DeepEqual(got.Backend, want) || got.Kind.Mode != ModeNormal {
				t.Errorf("plan file: got %+v, want backend %+v", got, want)
			}
			data, err := os.ReadFile(filepath.Join(dir, "data", "terraform.tfstate"))
			if err != nil {
				t.Fatal(err)
			}
			init, err := ReadBackendState(data)
			want.Workspace = ""
			if err != nil || !reflect.DeepEqual(init, want) {
				t.Errorf("init's record: got %+v, %v; want %+v", init, err, want)
			}
		})
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// A backend's configuration is decoded whatever go-cty wrote in it: nulls, nested blocks,
// lists, numbers, and unknown values (terraform's and OpenTofu's refined ones) as Unknown;
// what is not go-cty's msgpack is an error, never a panic.
func TestDecodeConfig(t *testing.T) {
	// {"a": nil, "b": {"c": "x", "d": 5}, "e": [true, 1.5], "f": unknown, "g": refined unknown}
	data := []byte{0x85,
		0xa1, 'a', 0xc0,
		0xa1, 'b', 0x82, 0xa1, 'c', 0xa1, 'x', 0xa1, 'd', 0x05,
		0xa1, 'e', 0x92, 0xc3, 0xcb, 0x3f, 0xf8, 0, 0, 0, 0, 0, 0,
		0xa1, 'f', 0xd4, 0x00, 0x00,
		0xa1, 'g', 0xc7, 0x03, 0x0c, 0x81, 0x01, 0xc2,
	}
	got, err := decodeConfig(data)
	want := map[string]string{"a": "null", "b.c": `"x"`, "b.d": "5", "e": "[true,1.5]", "f": Unknown, "g": Unknown}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, %v; want %v", got, err, want)
	}
	if got, err := decodeConfig([]byte{0xc0}); err != nil || len(got) != 0 {
		t.Errorf("a null configuration: got %v, %v; want none", got, err)
	}
	deep := append([]byte{0x81, 0xa1, 'a'}, []byte(strings.Repeat("\x91", 100000)+"\xc0")...) // [[[…[nil]…]]]
	for name, bad := range map[string][]byte{
		"missing":       nil,
		"not an object": {0xa1, 'x'},
		"cut short":     {0x82, 0xa1, 'a', 0xc0},
		"a number key":  {0x81, 0x01, 0xc0},
		"too deep":      deep,
	} {
		if got, err := decodeConfig(bad); err == nil {
			t.Errorf("%s: got %v, want an error", name, got)
		}
	}
	if _, err := decodeConfig(deep); err == nil || !strings.Contains(err.Error(), "nests deeper than") {
		t.Errorf("too deep: got %v", err)
	}
}

// The planproto Backend message: a config that is not msgpack, or no type, is an error.
func TestParseBackend(t *testing.T) {
	typ := []byte{0x0a, 0x02, 's', '3'}
	config := []byte{0x12, 0x03, 0x0a, 0x01, 0xc0} // DynamicValue{msgpack: nil}
	ws := []byte{0x1a, 0x01, 'w'}
	if b, err := parseBackend(slices.Concat(typ, config, ws)); err != nil || b.Type != "s3" || b.Workspace != "w" || len(b.Config) != 0 {
		t.Errorf("got %+v, %v", b, err)
	}
	if _, err := parseBackend(slices.Concat(config, ws)); err == nil {
		t.Error("no type: want an error")
	}
	if _, err := parseBackend(slices.Concat(typ, []byte{0x12, 0x03, 0x0a, 0x01, 0xc1})); err == nil { // 0xc1: never used
		t.Error("a config that is not msgpack: want an error")
	}
}

// A data directory whose configuration has no backend block records none: the local one.
func TestReadBackendStateNone(t *testing.T) {
	got, err := ReadBackendState([]byte(`{"version": 3}`))
	if err != nil || got.Type != "local" || len(got.Config) != 0 {
		t.Errorf("got %+v, %v", got, err)
	}
	if _, err := ReadBackendState([]byte(`{"backend": 1}`)); err == nil {
		t.Error("want an error for a record that is not terraform's")
	}
}
