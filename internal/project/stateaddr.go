package project

import (
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
// literally: the backend type with the attributes that locate the state (defaults filled
// in: s3's bucket, key and workspace_key_prefix, pg's schema_name, a cloud block's
// organization and workspace, …) and the workspace. Two projects with the same address
// share their state: a project moved to another directory and renamed, keeping its state,
// is still the same project, and keeps the rules it had (see pipeline). Attributes that do
// not locate the state (region, lock tables, credentials, endpoints of other services)
// are left out, so spelling them differently does not make another address; pg's conn_str
// is left out too (two projects in one schema of different databases then count as one,
// which only makes their rules stricter).
//
// The block terraform uses is found as terraform finds it: the one backend or cloud block
// of the project's files, unless an override file (override.tf, *_override.tf) has one,
// which replaces it. ok is false when the address cannot be read literally: an attribute
// that locates the state is not a literal string, or is missing (a partial configuration
// whose values come from -backend-config or *.tfbackend files), a file does not parse,
// the configuration is JSON (*.tf.json, not read), or there are two backend blocks. Such a
// project is matched by name and directory only. Without a backend block the state is the
// local default, terraform.tfstate in the project's directory.
func StateAddress(root string, p Project) (addr string, ok bool) {
	entries, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(p.Dir)))
	if err != nil {
		return "", false
	}
	var main, override []backendBlock
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
		blocks := backendBlocks(f.Body)
		stem := strings.TrimSuffix(strings.TrimSuffix(name, ".tf"), ".tofu")
		if stem == "override" || strings.HasSuffix(stem, "_override") {
			override = append(override, blocks...)
		} else {
			main = append(main, blocks...)
		}
	}
	ws := p.Workspace
	if ws == "" {
		ws = "default"
	}
	var b backendBlock
	switch {
	case len(override) > 0:
		b = override[len(override)-1] // files are read in name order, as terraform merges them
	case len(main) == 1:
		b = main[0]
	case len(main) == 0:
		b = backendBlock{kind: "local", attrs: map[string]attr{}}
	default:
		return "", false // two backend blocks: terraform refuses the configuration
	}
	return b.address(p.Dir, ws)
}

// attr is one attribute of a backend block: its literal string value, or not literal.
type attr struct {
	value   string
	literal bool
}

type backendBlock struct {
	kind  string          // the backend type, or "cloud"
	attrs map[string]attr // nested blocks' attributes as "block.name"
}

// identity are, per backend type, the attributes that locate the state and their
// defaults ("" = required). A type not listed is located by all its literal attributes.
var identity = map[string]map[string]string{
	"s3":         {"bucket": "", "key": "", "workspace_key_prefix": "env:"},
	"gcs":        {"bucket": "", "prefix": "default.tfstate"},
	"azurerm":    {"storage_account_name": "", "container_name": "", "key": ""},
	"pg":         {"schema_name": "terraform_remote_state"},
	"consul":     {"path": ""},
	"http":       {"address": ""},
	"kubernetes": {"secret_suffix": "", "namespace": "default"},
	"oss":        {"bucket": "", "prefix": "env:", "key": "terraform.tfstate"},
	"cos":        {"bucket": "", "prefix": "env:", "key": "terraform.tfstate"},
}

func (b backendBlock) address(dir, ws string) (string, bool) {
	var parts []string
	switch b.kind {
	case "local":
		state, wsDir := "terraform.tfstate", "terraform.tfstate.d"
		for name, v := range map[string]*string{"path": &state, "workspace_dir": &wsDir} {
			if a, set := b.attrs[name]; set {
				if !a.literal {
					return "", false
				}
				*v = a.value
			}
		}
		if ws != "default" {
			state = path.Join(wsDir, ws, "terraform.tfstate")
		}
		if !path.IsAbs(state) {
			state = path.Join(dir, state)
		}
		return "local\x00path=" + state, true
	case "cloud", "remote":
		org, ok := literal(b.attrs, "organization", "")
		host, ok2 := literal(b.attrs, "hostname", "app.terraform.io")
		if !ok || !ok2 || org == "" {
			return "", false
		}
		parts = append(parts, "organization="+org, "hostname="+host)
		if name, set := b.attrs["workspaces.name"]; set {
			if !name.literal {
				return "", false
			}
			return b.kind + "\x00" + strings.Join(parts, "\x00") + "\x00workspace=" + name.value, true
		}
		for _, k := range []string{"workspaces.prefix", "workspaces.project"} {
			if a, set := b.attrs[k]; set {
				if !a.literal {
					return "", false
				}
				parts = append(parts, k+"="+a.value)
			}
		}
	default:
		keys, known := identity[b.kind]
		if !known {
			for name, a := range b.attrs {
				if !a.literal {
					return "", false
				}
				parts = append(parts, name+"="+a.value)
			}
			break
		}
		for name, def := range keys {
			v, ok := literal(b.attrs, name, def)
			if !ok || v == "" {
				return "", false // a partial configuration: the value comes from elsewhere
			}
			parts = append(parts, name+"="+v)
		}
	}
	sort.Strings(parts)
	return b.kind + "\x00" + strings.Join(parts, "\x00") + "\x00ws=" + ws, true
}

// literal is attribute name's value, def when it is not set; ok is false when it is set to
// something that is not a literal string.
func literal(attrs map[string]attr, name, def string) (string, bool) {
	a, set := attrs[name]
	if !set {
		return def, true
	}
	return a.value, a.literal
}

// backendBlocks reads the backend and cloud blocks of one file's terraform blocks.
func backendBlocks(body hcl.Body) []backendBlock {
	b, ok := body.(*hclsyntax.Body)
	if !ok {
		return nil
	}
	var out []backendBlock
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
			attrs := map[string]attr{}
			readAttrs(inner.Body, "", attrs)
			out = append(out, backendBlock{kind: kind, attrs: attrs})
		}
	}
	return out
}

func readAttrs(body *hclsyntax.Body, prefix string, into map[string]attr) {
	for name, a := range body.Attributes {
		v, diags := a.Expr.Value(nil)
		lit := !diags.HasErrors() && !v.IsNull() && v.IsKnown() && v.Type() == cty.String
		val := ""
		if lit {
			val = v.AsString()
		}
		into[prefix+name] = attr{value: val, literal: lit}
	}
	for _, blk := range body.Blocks {
		readAttrs(blk.Body, prefix+blk.Type+".", into)
	}
}

// LocalStatePath is where p keeps its state when its backend is local (no backend block
// is the local default): the state file of p's workspace, root-relative (it may start
// with "../"), or absolute as configured. ok is false for another backend, or when the
// configuration does not say it literally.
func LocalStatePath(root string, p Project) (string, bool) {
	addr, ok := StateAddress(root, p)
	state, local := strings.CutPrefix(addr, "local\x00path=")
	if !ok || !local {
		return "", false
	}
	return state, true
}
