package bundle

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"testing/fstest"

	"google.golang.org/protobuf/encoding/protowire"
)

// planZip builds a plan file: the module records as tfconfig/modules.json, and each
// "key/name" of files as tfconfig/m-key/name.
func planZip(t *testing.T, records []ModuleRecord, files map[string]string, extra ...string) *zip.Reader {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	put := func(name, body string) {
		f, err := w.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte(body))
	}
	put("tfplan", "")
	for name, body := range files {
		put(snapshotPrefix+name, body)
	}
	for _, name := range extra {
		put(name, "x")
	}
	if records != nil {
		data, _ := json.Marshal(records)
		put(snapshotManifest, string(data))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	z, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	return z
}

var (
	rootOnly    = []ModuleRecord{{Key: "", Dir: "."}}
	withModules = []ModuleRecord{{Key: "", Dir: "."}, {Key: "net", Source: "../modules/net", Dir: "../modules/net"},
		{Key: "net.sub", Source: "./sub", Dir: "../modules/net/sub"}}
	repo = fstest.MapFS{
		"app/main.tf":                      {Data: []byte("resource \"terraform_data\" \"a\" {}\n")},
		"app/x.tf.json":                    {Data: []byte("{}")},
		"app/notes.md":                     {Data: []byte("not configuration")},
		"app/.hidden.tf":                   {Data: []byte("ignored by terraform")},
		"app/main.tf~":                     {Data: []byte("ignored by terraform")},
		"modules/net/main.tf":              {Data: []byte("module \"sub\" { source = \"./sub\" }\n")},
		"modules/net/sub/s.tf":             {Data: []byte("resource \"terraform_data\" \"s\" {}\n")},
		"other/main.tf":                    {Data: []byte("resource \"terraform_data\" \"o\" {}\n")},
		"tofu/main.tf":                     {Data: []byte("terraform's")},
		"tofu/main.tofu":                   {Data: []byte("tofu's")},
		"tofu/extra.tf":                    {Data: []byte("both")},
		"app/.terraform/modules/x.tf":      {Data: []byte("not a module of app")},
		"remote/.terraform/modules/r/m.tf": {Data: []byte("fetched")},
		"remote/main.tf":                   {Data: []byte("module \"r\" { source = \"acme/r/null\" }")},
	}
	appFiles = map[string]string{"/main.tf": "resource \"terraform_data\" \"a\" {}\n", "/x.tf.json": "{}"}
)

func with(m map[string]string, kv ...string) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == "\x00" {
			delete(out, kv[i])
		} else {
			out[kv[i]] = kv[i+1]
		}
	}
	return out
}

func TestCheckSnapshot(t *testing.T) {
	modFiles := with(appFiles, "net/main.tf", "module \"sub\" { source = \"./sub\" }\n", "net.sub/s.tf", "resource \"terraform_data\" \"s\" {}\n")
	remote := []ModuleRecord{{Key: "", Dir: "."}, {Key: "r", Source: "registry.terraform.io/acme/r/null", Version: "1.0.0", Dir: ".terraform/modules/r"}}
	cases := []struct {
		name      string
		dir       string
		records   []ModuleRecord
		files     map[string]string
		installed []ModuleRecord
		flavor    string
		want      []string // substrings, one per problem, in order
	}{
		{"same code", "app", rootOnly, appFiles, nil, "terraform", nil},
		{"same code and local modules", "app", withModules, modFiles, withModules, "terraform", nil},
		{"a file differs", "app", rootOnly, with(appFiles, "/main.tf", "resource \"terraform_data\" \"evil\" {}\n"), nil, "terraform",
			[]string{"differs from the reviewed code in app/main.tf"}},
		{"same size, other bytes", "app", rootOnly, with(appFiles, "/x.tf.json", "[]"), nil, "terraform",
			[]string{"differs from the reviewed code in app/x.tf.json"}},
		{"a file the code lacks", "app", rootOnly, with(appFiles, "/evil.tf", "resource \"x\" \"y\" {}"), nil, "terraform",
			[]string{"holds app/evil.tf, which is not in the reviewed code"}},
		{"even one terraform would not load", "app", rootOnly, with(appFiles, "/evil.txt", "x"), nil, "terraform",
			[]string{"holds app/evil.txt, which is not in the reviewed code"}},
		{"a code file missing", "app", rootOnly, with(appFiles, "/x.tf.json", "\x00"), nil, "terraform",
			[]string{"app/x.tf.json of the reviewed code is missing"}},
		{"a module file differs", "app", withModules, with(modFiles, "net.sub/s.tf", "resource \"terraform_data\" \"t\" {}\n"), withModules, "terraform",
			[]string{"differs from the reviewed code in modules/net/sub/s.tf"}},
		{"a module the code lacks", "app", append(withModules[:1:1], ModuleRecord{Key: "evil", Source: "../other", Dir: "../other"}),
			with(appFiles, "evil/main.tf", "resource \"terraform_data\" \"o\" {}\n"), nil, "terraform",
			[]string{"has module module.evil (source \"../other\"), which the reviewed code does not have"}},
		{"a module from elsewhere", "app", []ModuleRecord{{Key: "", Dir: "."}, {Key: "net", Source: "../other", Dir: "../other"}, withModules[2]},
			modFiles, withModules, "terraform",
			[]string{"has module module.net from \"../other\", but the reviewed code has it from \"../modules/net\""}},
		{"a module read from another directory", "app", []ModuleRecord{{Key: "", Dir: "."}, {Key: "net", Source: "../modules/net", Dir: "../other"}, withModules[2]},
			modFiles, withModules, "terraform",
			[]string{"reads module module.net from directory \"../other\", but terraform installs it in \"../modules/net\""}},
		{"a module of the code missing", "app", rootOnly, appFiles, withModules, "terraform",
			[]string{"has module module.net (source \"../modules/net\"), which its plan file's configuration lacks", "module.net.module.sub"}},
		{"a module directory outside the repository", "app", []ModuleRecord{{Key: "", Dir: "."}, {Key: "x", Source: "../../../etc", Dir: "../../../etc"}},
			with(appFiles, "x/passwd.tf", "x"), []ModuleRecord{{Key: "", Dir: "."}, {Key: "x", Source: "../../../etc", Dir: "../../../etc"}}, "terraform",
			[]string{"reads module module.x from \"../../../etc\", which is outside the repository"}},
		{"an absolute module directory", "app", []ModuleRecord{{Key: "", Dir: "/etc"}}, map[string]string{"/passwd.tf": "x"},
			[]ModuleRecord{{Key: "", Dir: "/etc"}}, "terraform", []string{"which is outside the repository"}},
		{"root module elsewhere", "app", []ModuleRecord{{Key: "", Dir: "../other"}}, map[string]string{"/main.tf": "resource \"terraform_data\" \"o\" {}\n"}, nil, "terraform",
			[]string{"reads module (the root module) from directory \"../other\", but terraform installs it in \".\""}},
		{"remote module as init fetched it", "remote", remote, map[string]string{"/main.tf": "module \"r\" { source = \"acme/r/null\" }", "r/m.tf": "fetched"}, remote, "terraform", nil},
		{"remote module with other content", "remote", remote, map[string]string{"/main.tf": "module \"r\" { source = \"acme/r/null\" }", "r/m.tf": "forged"}, remote, "terraform",
			[]string{"differs from the reviewed code in remote/.terraform/modules/r/m.tf"}},
		{"remote module of another version", "remote", []ModuleRecord{remote[0], {Key: "r", Source: remote[1].Source, Version: "0.9.0", Dir: remote[1].Dir}},
			map[string]string{"/main.tf": "module \"r\" { source = \"acme/r/null\" }", "r/m.tf": "fetched"}, remote, "terraform",
			[]string{"version 0.9.0, but the reviewed code has it from \"registry.terraform.io/acme/r/null\" version 1.0.0"}},
		{"tofu loads main.tofu, not main.tf", "tofu", rootOnly, map[string]string{"/main.tofu": "tofu's", "/extra.tf": "both"}, nil, "tofu", nil},
		{"terraform loads main.tf", "tofu", rootOnly, map[string]string{"/main.tf": "terraform's", "/extra.tf": "both"}, nil, "terraform", nil},
		{"tofu: main.tofu missing", "tofu", rootOnly, map[string]string{"/main.tf": "terraform's", "/extra.tf": "both"}, nil, "tofu",
			[]string{"tofu/main.tofu of the reviewed code is missing"}},
		{"files of a module not listed", "app", rootOnly, with(appFiles, "ghost/main.tf", "x"), nil, "terraform",
			[]string{"cannot be read (files of module \"ghost\", which tfconfig/modules.json does not list)"}},
		{"no snapshot at all", "app", nil, nil, nil, "terraform", []string{"cannot be read (no tfconfig/modules.json)"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			z := planZip(t, c.records, c.files)
			got := CheckSnapshot(z, SnapshotTree{Repo: repo, Dir: c.dir, Installed: c.installed, Flavor: c.flavor})
			if len(got) != len(c.want) {
				t.Fatalf("got %d problems, want %d:\n%s", len(got), len(c.want), strings.Join(got, "\n"))
			}
			for i, w := range c.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("problem %d = %q, want it to say %q", i, got[i], w)
				}
			}
		})
	}
}

func TestCheckSnapshotDuplicateEntry(t *testing.T) {
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, body := range []string{"resource \"terraform_data\" \"a\" {}\n", "resource \"evil\" \"e\" {}"} {
		f, _ := w.Create(snapshotPrefix + "/main.tf")
		f.Write([]byte(body))
	}
	f, _ := w.Create(snapshotManifest)
	f.Write([]byte(`[{"Key":"","Dir":"."}]`))
	w.Close()
	z, _ := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	got := CheckSnapshot(z, SnapshotTree{Repo: fstest.MapFS{"main.tf": {Data: []byte("resource \"terraform_data\" \"a\" {}\n")}}, Dir: "."})
	if len(got) != 1 || !strings.Contains(got[0], "two entries tfconfig/m-/main.tf") {
		t.Fatalf("got %q, want the duplicate refused", got)
	}
}

func TestCheckSnapshotDataDir(t *testing.T) {
	records := []ModuleRecord{{Key: "", Dir: "."}, {Key: "r", Source: "acme/r/null", Version: "1.0.0", Dir: "/data/tf/modules/r"}}
	data := fstest.MapFS{"modules/r/m.tf": {Data: []byte("fetched")}}
	tree := SnapshotTree{Repo: repo, Dir: "other", Installed: records, DataDir: "/data/tf", Data: data}
	files := map[string]string{"/main.tf": "resource \"terraform_data\" \"o\" {}\n", "r/m.tf": "fetched"}
	if got := CheckSnapshot(planZip(t, records, files), tree); len(got) != 0 {
		t.Fatalf("got %q, want none", got)
	}
	files["r/m.tf"] = "forged"
	got := CheckSnapshot(planZip(t, records, files), tree)
	if len(got) != 1 || !strings.Contains(got[0], "differs from the reviewed code in terraform's data directory modules/r/m.tf") {
		t.Fatalf("got %q", got)
	}
	// A relative TF_DATA_DIR names the modules relative to the project's directory.
	records[1].Dir = "../../data/tf/modules/r"
	tree = SnapshotTree{Repo: repo, Root: "/repo", Dir: "other", Installed: records, DataDir: "/data/tf", Data: data}
	files["r/m.tf"] = "fetched"
	if got := CheckSnapshot(planZip(t, records, files), tree); len(got) != 0 {
		t.Fatalf("relative: got %q, want none", got)
	}
}

func TestReadModulesJSON(t *testing.T) {
	got, err := ReadModulesJSON([]byte(`{"Modules":[{"Key":"","Source":"","Dir":"."},{"Key":"net","Source":"../modules/net","Dir":"../modules/net"}]}`))
	if err != nil || len(got) != 2 || got[1] != (ModuleRecord{Key: "net", Source: "../modules/net", Dir: "../modules/net"}) {
		t.Fatalf("got %+v, %v", got, err)
	}
	if _, err := ReadModulesJSON([]byte("[")); err == nil {
		t.Fatal("want an error for broken JSON")
	}
}

func TestParsePlanKind(t *testing.T) {
	msg := func(fields ...func([]byte) []byte) []byte {
		var b []byte
		b = protowire.AppendTag(b, 1, protowire.VarintType)
		b = protowire.AppendVarint(b, 3)
		b = protowire.AppendTag(b, 14, protowire.BytesType)
		b = protowire.AppendString(b, "1.5.7")
		for _, f := range fields {
			b = f(b)
		}
		return b
	}
	varint := func(num protowire.Number, v uint64) func([]byte) []byte {
		return func(b []byte) []byte {
			return protowire.AppendVarint(protowire.AppendTag(b, num, protowire.VarintType), v)
		}
	}
	str := func(num protowire.Number, s string) func([]byte) []byte {
		return func(b []byte) []byte {
			return protowire.AppendString(protowire.AppendTag(b, num, protowire.BytesType), s)
		}
	}
	cases := []struct {
		name string
		data []byte
		want PlanKind
	}{
		{"normal", msg(), PlanKind{Mode: ModeNormal}},
		{"destroy", msg(varint(17, 1)), PlanKind{Mode: ModeDestroy}},
		{"refresh-only", msg(varint(17, 2)), PlanKind{Mode: ModeRefreshOnly}},
		{"unknown mode", msg(varint(17, 9)), PlanKind{Mode: "unknown mode 9"}},
		{"targeted", msg(str(5, "terraform_data.a"), str(5, "module.x")), PlanKind{Mode: ModeNormal, Targets: []string{"terraform_data.a", "module.x"}}},
		{"excluded", msg(str(excludeAddrsField, "terraform_data.b")), PlanKind{Mode: ModeNormal, Excludes: []string{"terraform_data.b"}}},
		{"force replace is a normal plan", msg(str(16, "terraform_data.a")), PlanKind{Mode: ModeNormal}},
		{"errored", msg(varint(20, 1)), PlanKind{Mode: ModeNormal, Errored: true}},
	}
	for _, c := range cases {
		p, err := parseTFPlan(c.data)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got := p.Kind
		if got.Mode != c.want.Mode || strings.Join(got.Targets, ",") != strings.Join(c.want.Targets, ",") ||
			strings.Join(got.Excludes, ",") != strings.Join(c.want.Excludes, ",") || got.Errored != c.want.Errored {
			t.Errorf("%s: got %+v, want %+v", c.name, got, c.want)
		}
	}
	if _, err := parseTFPlan([]byte{0x0a, 0x05, 'a'}); err == nil { // a string cut short
		t.Error("want an error for a truncated message")
	}
}

func TestReadTFPlanNeedsTFPlan(t *testing.T) {
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	w.Create("tfstate")
	w.Close()
	z, _ := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if _, err := ReadTFPlan(z); err == nil || !strings.Contains(err.Error(), "no tfplan entry") {
		t.Fatalf("got %v", err)
	}
}
