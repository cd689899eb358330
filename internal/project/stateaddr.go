package project

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// StateAddress says where p keeps its state, as far as its configuration says so
// literally: the backend type with its location attributes (path, bucket, key, prefix,
// schema, organisation and workspace, …) and the workspace, or the cloud block's
// organisation and workspace. Two projects with the same address share their state: a
// project moved to another directory and renamed, keeping its state, is still the same
// project, and keeps the rules it had (see pipeline).
//
// ok is false when the address cannot be read literally: a location attribute that is not
// a literal string, a partial configuration (*.tfbackend files or no backend attributes
// where the type needs them are not detected: the values then come from elsewhere), a
// file that does not parse, or JSON configuration (*.tf.json), which is not read. Such a
// project is matched by name and directory only. Without a backend block the state is
// the local default, terraform.tfstate in the project's directory.
func StateAddress(root string, p Project) (addr string, ok bool) {
	entries, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(p.Dir)))
	if err != nil {
		return "", false
	}
	var found []string
	for _, e := range entries {
		name := e.Name()
		switch {
		case strings.HasSuffix(name, ".tfbackend"):
			return "", false
		case strings.HasSuffix(name, ".tf.json"), strings.HasSuffix(name, ".tofu.json"):
			return "", false
		case !strings.HasSuffix(name, ".tf") && !strings.HasSuffix(name, ".tofu"):
			continue
		}
		src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p.Dir), name))
		if err != nil {
			return "", false
		}
		f, diags := hclsyntax.ParseConfig(src, name, hcl.InitialPos)
		if diags.HasErrors() {
			return "", false
		}
		addrs, ok := backendAddrs(f.Body)
		if !ok {
			return "", false
		}
		found = append(found, addrs...)
	}
	ws := p.Workspace
	if ws == "" {
		ws = "default"
	}
	switch len(found) {
	case 0:
		state := path.Join(p.Dir, "terraform.tfstate")
		if ws != "default" {
			state = path.Join(p.Dir, "terraform.tfstate.d", ws, "terraform.tfstate")
		}
		return "local\x00path=" + state, true
	case 1:
		if strings.HasPrefix(found[0], "local\x00") {
			found[0] = localAddr(found[0], p.Dir)
		}
		return found[0] + "\x00ws=" + ws, true
	}
	return "", false // two backend blocks: terraform refuses the configuration
}

// addressAttrs are the backend and cloud attributes that say where the state is.
var addressAttrs = map[string]bool{
	"path": true, "workspace_dir": true, "bucket": true, "key": true, "prefix": true,
	"workspace_key_prefix": true, "region": true, "endpoint": true, "container_name": true,
	"storage_account_name": true, "resource_group_name": true, "schema_name": true,
	"conn_str": true, "address": true, "organization": true, "hostname": true,
	"name": true, "project": true, "namespace": true, "secret_suffix": true, "scope": true,
	"database": true, "table": true, "lock_table": true, "dynamodb_table": true,
}

// backendAddrs reads the backend and cloud blocks of one file's terraform blocks.
func backendAddrs(body hcl.Body) ([]string, bool) {
	b, ok := body.(*hclsyntax.Body)
	if !ok {
		return nil, false
	}
	var out []string
	for _, tb := range b.Blocks {
		if tb.Type != "terraform" {
			continue
		}
		for _, inner := range tb.Body.Blocks {
			var kind string
			switch {
			case inner.Type == "backend" && len(inner.Labels) == 1:
				kind = inner.Labels[0]
			case inner.Type == "cloud":
				kind = "cloud"
			default:
				continue
			}
			attrs, ok := literalAttrs(inner.Body, "")
			if !ok {
				return nil, false
			}
			out = append(out, kind+"\x00"+strings.Join(attrs, "\x00"))
		}
	}
	return out, true
}

// literalAttrs lists a block's location attributes as sorted "name=value" (nested blocks,
// such as cloud's workspaces, prefixed with their type); ok is false when one is not a
// literal string.
func literalAttrs(body *hclsyntax.Body, prefix string) ([]string, bool) {
	var out []string
	for name, a := range body.Attributes {
		if !addressAttrs[name] {
			continue
		}
		v, diags := a.Expr.Value(nil)
		if diags.HasErrors() || v.IsNull() || !v.IsKnown() || v.Type() != cty.String {
			return nil, false
		}
		out = append(out, fmt.Sprintf("%s%s=%s", prefix, name, v.AsString()))
	}
	for _, blk := range body.Blocks {
		nested, ok := literalAttrs(blk.Body, prefix+blk.Type+".")
		if !ok {
			return nil, false
		}
		out = append(out, nested...)
	}
	sort.Strings(out)
	return out, true
}

// localAddr makes a local backend's relative path root-relative, so the same file named
// from two directories is one address.
func localAddr(addr, dir string) string {
	parts := strings.Split(addr, "\x00")
	for i, p := range parts {
		if v, ok := strings.CutPrefix(p, "path="); ok && !path.IsAbs(v) {
			parts[i] = "path=" + path.Join(dir, v)
		}
		if v, ok := strings.CutPrefix(p, "workspace_dir="); ok && !path.IsAbs(v) {
			parts[i] = "workspace_dir=" + path.Join(dir, v)
		}
	}
	if !strings.Contains(addr, "\x00path=") {
		parts = append(parts, "path="+path.Join(dir, "terraform.tfstate"))
		sort.Strings(parts[1:])
	}
	return strings.Join(parts, "\x00")
}
