package gate

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// `terraform apply PLANFILE` applies to the state backend and workspace the plan file
// records, not to the ones the working directory was initialised with. A writer's own
// bundle, planned with -backend-config pointing at a state of their choosing, would apply
// "successfully" there while the merge's state stays as it was. So apply compares the
// plan file's backend with the one terraform init set up for the merge commit, and its
// workspace with the project's.

// Backend is a state backend as terraform records it (the fields of bundle.Backend).
type Backend struct {
	Type string
	// Config is every setting, a nested block's as "block.name": its value written as JSON
	// (null when not set), or "(unknown)".
	Config map[string]string
	// Workspace is the workspace the plan applies to ("" = default).
	Workspace string
}

// stateLocation are, per backend type, the settings that say where its state is (which
// server, which bucket, which object) with what terraform takes when one is not set ("" =
// nothing). Credentials, roles and tuning (s3's role_arn, access_key, profile, region and
// lock table, azurerm's keys, http's username and password, a cloud block's token) are not
// among them: plan and apply often run with other credentials against the same state. A
// type not listed is compared setting by setting.
var stateLocation = map[string]map[string]string{
	"local":      {"path": "terraform.tfstate", "workspace_dir": "terraform.tfstate.d"},
	"s3":         {"bucket": "", "key": "", "workspace_key_prefix": "env:", "endpoint": "", "endpoints.s3": ""},
	"gcs":        {"bucket": "", "prefix": "", "storage_custom_endpoint": ""},
	"azurerm":    {"storage_account_name": "", "container_name": "", "key": "", "environment": "", "metadata_host": ""},
	"pg":         {"conn_str": "", "schema_name": "terraform_remote_state"},
	"consul":     {"address": "", "datacenter": "", "path": ""},
	"http":       {"address": ""},
	"kubernetes": {"secret_suffix": "", "namespace": "default", "host": ""},
	"oss":        {"bucket": "", "prefix": "env:", "key": "terraform.tfstate", "endpoint": ""},
	"cos":        {"bucket": "", "prefix": "env:", "key": "terraform.tfstate"},
	"cloud":      {"organization": "", "hostname": "app.terraform.io", "workspaces.name": "", "workspaces.tags": "", "workspaces.project": ""},
	"remote":     {"organization": "", "hostname": "app.terraform.io", "workspaces.name": "", "workspaces.prefix": ""},
}

// backendProblems says where the state the plan file applies to is not the merge's: no
// backend recorded, another type, another setting that locates the state, another
// workspace.
func backendProblems(plan, merge Backend) []string {
	var out []string
	say := func(format string, args ...any) {
		out = append(out, fmt.Sprintf(format, args...)+": it is not the merge's state; plan again")
	}
	switch locates, known := stateLocation[plan.Type]; {
	case plan.Type == "":
		say("its plan file records no state backend")
	case plan.Type != merge.Type:
		say("its plan file applies to backend %s, the merge's to %s", plan.Type, merge.Type)
	case known:
		for _, name := range slices.Sorted(maps.Keys(locates)) {
			def := locates[name]
			p, m := location(plan, name), location(merge, name)
			if !sameSetting(p, m, def) {
				say("its plan file applies to backend %s %s %s, the merge's to %s", plan.Type, name, shown(p, def), shown(m, def))
			}
		}
	default:
		if diff := otherSettings(plan.Config, merge.Config); len(diff) > 0 {
			// Only the names: a setting of a type tfgate does not know may be a secret.
			say("its plan file applies to backend %s with other settings than the merge's (%s)", plan.Type, clip(diff))
		}
	}
	if p, m := workspace(plan.Workspace), workspace(merge.Workspace); p != m {
		say("its plan file applies to workspace %q, the merge's to %q", p, m)
	}
	return out
}

func workspace(name string) string {
	if name == "" {
		return "default"
	}
	return name
}

// location is setting name of b without the credentials it may carry; "null" when not set.
func location(b Backend, name string) string {
	v := setting(b.Config, name)
	s, err := strconv.Unquote(v)
	if err != nil {
		return v // null, unknown, a list
	}
	if b.Type == "pg" && name == "conn_str" {
		return strconv.Quote(postgresLocation(s))
	}
	if u, err := url.Parse(s); err == nil && u.Scheme != "" && u.Host != "" && u.User != nil {
		u.User = nil
		return strconv.Quote(u.String())
	}
	return v
}

// postgresLocation is the server and database of a PostgreSQL connection string (a URL or
// key=value pairs), without the user, password and other options it may carry. A URL's
// query may name the server and database too (lib/pq reads them after the rest).
func postgresLocation(s string) string {
	if u, err := url.Parse(s); err == nil && u.Scheme != "" {
		q := url.Values{}
		for k, v := range u.Query() {
			if postgresLocates(k) {
				q[k] = v
			}
		}
		return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path, RawQuery: q.Encode()}).String()
	}
	var keep []string
	for _, f := range strings.Fields(s) {
		if key, _, _ := strings.Cut(f, "="); postgresLocates(key) {
			keep = append(keep, f)
		}
	}
	return strings.Join(keep, " ")
}

// postgresLocates reports whether a PostgreSQL connection parameter says which server or
// database.
func postgresLocates(key string) bool {
	return key == "host" || key == "hostaddr" || key == "port" || key == "dbname"
}

// sameSetting reports whether two values of a setting are the same, an unset one being its
// default def.
func sameSetting(a, b, def string) bool {
	if def != "" {
		a, b = orDefault(a, def), orDefault(b, def)
	}
	return a == b && a != unknownValue
}

// unknownValue is how bundle.Backend writes a value the plan file holds as unknown.
const unknownValue = "(unknown)"

func orDefault(v, def string) string {
	if v == "null" {
		return strconv.Quote(def)
	}
	return v
}

// shown is a setting's value as a refusal names it.
func shown(v, def string) string {
	switch {
	case v == "null" && def != "":
		return strconv.Quote(def)
	case v == "null":
		return "unset"
	}
	return v
}

// otherSettings names the settings whose values differ, one not recorded being null.
func otherSettings(a, b map[string]string) []string {
	names := maps.Collect(maps.All(a))
	maps.Copy(names, b)
	var out []string
	for _, name := range slices.Sorted(maps.Keys(names)) {
		if !sameSetting(setting(a, name), setting(b, name), "") {
			out = append(out, name)
		}
	}
	return out
}

// setting is the value of setting name in config; "null" when it is not recorded.
func setting(config map[string]string, name string) string {
	if v, ok := config[name]; ok {
		return v
	}
	return "null"
}
