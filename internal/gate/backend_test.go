package gate

import (
	"strings"
	"testing"
)

// local is the local backend with every setting unset, as a plan file and init record it.
var local = Backend{Type: "local", Config: map[string]string{"path": "null", "workspace_dir": "null"}}

// A plan file applies to the merge's state when its backend's type, the settings that say
// where the state is, and its workspace are the merge's; credentials and tuning may differ.
// Each refusal names the difference and never a credential.
func TestBackendProblems(t *testing.T) {
	with := func(b Backend, settings ...string) Backend {
		c := map[string]string{}
		for k, v := range b.Config {
			c[k] = v
		}
		for i := 0; i+1 < len(settings); i += 2 {
			c[settings[i]] = settings[i+1]
		}
		b.Config = c
		return b
	}
	s3 := Backend{Type: "s3", Config: map[string]string{"bucket": `"state"`, "key": `"app.tfstate"`, "workspace_key_prefix": "null",
		"region": `"eu-west-1"`, "role_arn": "null", "endpoints.s3": "null"}}
	pg := Backend{Type: "pg", Config: map[string]string{"conn_str": `"postgres://apply:secret1@db:5432/tf?sslmode=disable"`, "schema_name": "null"}}
	oci := Backend{Type: "oci", Config: map[string]string{"bucket": `"b"`, "private_key": `"k1"`}}
	const tail = ": it is not the merge's state; plan again"
	for _, c := range []struct {
		name        string
		plan, merge Backend
		want        []string // none: it is the merge's state
	}{
		{"the same", local, local, nil},
		{"a default spelled out", with(local, "path", `"terraform.tfstate"`), local, nil},
		{"another path", with(local, "path", `"/tmp/x"`), with(local, "path", `"real.tfstate"`),
			[]string{`its plan file applies to backend local path "/tmp/x", the merge's to "real.tfstate"` + tail}},
		{"another workspace", Backend{Type: "local", Config: local.Config, Workspace: "evil"}, local,
			[]string{`its plan file applies to workspace "evil", the merge's to "default"` + tail}},
		{"the default workspace named", Backend{Type: "local", Config: local.Config, Workspace: "default"}, local, nil},
		{"another type", s3, local, []string{"its plan file applies to backend s3, the merge's to local" + tail}},
		{"no backend", Backend{}, local, []string{"its plan file records no state backend" + tail}},
		{"other credentials and region", with(s3, "role_arn", `"arn:aws:iam::1:role/plan"`, "region", `"us-east-1"`, "access_key", `"AKIA"`), s3, nil},
		{"another key", with(s3, "key", `"other.tfstate"`), s3,
			[]string{`its plan file applies to backend s3 key "other.tfstate", the merge's to "app.tfstate"` + tail}},
		{"another endpoint", with(s3, "endpoints.s3", `"https://evil.example"`), s3,
			[]string{`its plan file applies to backend s3 endpoints.s3 "https://evil.example", the merge's to unset` + tail}},
		{"an unknown location", with(s3, "bucket", unknownValue), with(s3, "bucket", unknownValue),
			[]string{`its plan file applies to backend s3 bucket (unknown), the merge's to (unknown)` + tail}},
		{"pg: another user", with(pg, "conn_str", `"postgres://plan:secret2@db:5432/tf"`), pg, nil},
		{"pg: another database", with(pg, "conn_str", `"host=db user=plan password=secret2 dbname=other"`), pg,
			[]string{`its plan file applies to backend pg conn_str "host=db dbname=other", the merge's to "postgres://db:5432/tf"` + tail}},
		{"pg: another server in the query", with(pg, "conn_str", `"postgres://apply:secret1@db:5432/tf?host=evil&sslmode=disable"`), pg,
			[]string{`its plan file applies to backend pg conn_str "postgres://db:5432/tf?host=evil", the merge's to "postgres://db:5432/tf"` + tail}},
		{"local: a path that reads as a user's", with(local, "path", `"//evil@x/y"`), with(local, "path", `"//x/y"`),
			[]string{`its plan file applies to backend local path "//evil@x/y", the merge's to "//x/y"` + tail}},
		{"http: other basic auth", Backend{Type: "http", Config: map[string]string{"address": `"https://u:p@state.example/app"`}},
			Backend{Type: "http", Config: map[string]string{"address": `"https://state.example/app"`}}, nil},
		{"an unknown type, the same", oci, oci, nil},
		{"an unknown type, another setting", with(oci, "private_key", `"k2"`, "namespace", `"n"`), oci,
			[]string{"its plan file applies to backend oci with other settings than the merge's (namespace, private_key)" + tail}},
		{"cloud: another token", Backend{Type: "cloud", Config: map[string]string{"organization": `"o"`, "token": `"t1"`, "workspaces.name": `"w"`}},
			Backend{Type: "cloud", Config: map[string]string{"organization": `"o"`, "token": `"t2"`, "workspaces.name": `"w"`}}, nil},
	} {
		got := backendProblems(c.plan, c.merge)
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
		if strings.Contains(strings.Join(got, " "), "secret") {
			t.Errorf("%s: a refusal shows a password: %q", c.name, got)
		}
	}
}
