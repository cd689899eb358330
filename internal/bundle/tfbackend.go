package bundle

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/vmihailenco/msgpack/v5"
	"github.com/vmihailenco/msgpack/v5/msgpcode"
	"google.golang.org/protobuf/encoding/protowire"
)

// The state backend a plan file applies to. `terraform apply PLANFILE` does not use the
// backend the working directory was initialised with: it uses the one the plan file records
// (planproto Plan field 13; measured with terraform 1.5.7 and OpenTofu 1.10.6):
//
//	message Backend { string type = 1; DynamicValue config = 2; string workspace = 3; }
//	message DynamicValue { bytes msgpack = 1; }
//
// config is the backend block's value (with -backend-config merged in) in go-cty's msgpack
// encoding of the backend's schema: an object whose every attribute is present, null when
// not set; a nested block is an object (or a list of them), null when absent; an unknown
// value is a msgpack extension. `terraform init` records the same value as JSON in its data
// directory's terraform.tfstate ("backend": {"type", "config"}), so the two compare.

const (
	fieldBackend        = 13
	fieldBackendType    = 1
	fieldBackendConfig  = 2
	fieldBackendWS      = 3
	fieldDynamicMsgpack = 1
)

// maxConfigDepth bounds the nesting of a backend configuration decoded (a backend's schema
// nests blocks two or three deep): a forged plan file cannot make the decoder recurse
// without end.
const maxConfigDepth = 16

// Unknown is how Backend.Config writes a value the plan file holds as unknown. No JSON value
// reads so: it equals nothing terraform init records.
const Unknown = "(unknown)"

// Backend is a state backend as terraform records it: the one a plan file applies to, or
// the one `terraform init` set up in a data directory.
type Backend struct {
	Type string
	// Config is every attribute of its configuration, nested blocks' as "block.name": the
	// value written as JSON (a string quoted, null when not set, a list whole), or Unknown.
	Config map[string]string
	// Workspace is the workspace the plan was made in ("" when the Backend is init's: init
	// records no workspace).
	Workspace string
}

// parseBackend decodes a planproto Backend message.
func parseBackend(data []byte) (Backend, error) {
	var b Backend
	var config []byte
	for len(data) > 0 {
		num, typ, n := protowire.ConsumeTag(data)
		if n < 0 {
			return b, protowire.ParseError(n)
		}
		data = data[n:]
		if typ != protowire.BytesType {
			if n = protowire.ConsumeFieldValue(num, typ, data); n < 0 {
				return b, protowire.ParseError(n)
			}
			data = data[n:]
			continue
		}
		v, n := protowire.ConsumeBytes(data)
		if n < 0 {
			return b, protowire.ParseError(n)
		}
		data = data[n:]
		switch num {
		case fieldBackendType:
			b.Type = string(v)
		case fieldBackendWS:
			b.Workspace = string(v)
		case fieldBackendConfig:
			msg, err := dynamicMsgpack(v)
			if err != nil {
				return b, err
			}
			config = msg
		}
	}
	if b.Type == "" {
		return b, errors.New("its backend has no type")
	}
	cfg, err := decodeConfig(config)
	if err != nil {
		return b, fmt.Errorf("its backend's configuration: %w", err)
	}
	b.Config = cfg
	return b, nil
}

// dynamicMsgpack is the msgpack field of a planproto DynamicValue message.
func dynamicMsgpack(data []byte) ([]byte, error) {
	var out []byte
	for len(data) > 0 {
		num, typ, n := protowire.ConsumeTag(data)
		if n < 0 {
			return nil, protowire.ParseError(n)
		}
		data = data[n:]
		if num == fieldDynamicMsgpack && typ == protowire.BytesType {
			v, n := protowire.ConsumeBytes(data)
			if n < 0 {
				return nil, protowire.ParseError(n)
			}
			out, data = v, data[n:]
			continue
		}
		if n = protowire.ConsumeFieldValue(num, typ, data); n < 0 {
			return nil, protowire.ParseError(n)
		}
		data = data[n:]
	}
	return out, nil
}

// decodeConfig flattens a backend configuration in go-cty's msgpack encoding (an object,
// or null for a backend without settings) into Backend.Config.
func decodeConfig(data []byte) (map[string]string, error) {
	if len(data) == 0 {
		return nil, errors.New("it is missing")
	}
	d := msgpack.NewDecoder(bytes.NewReader(data))
	v, err := decodeValue(d, 0)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	switch v := v.(type) {
	case map[string]any:
		flatten("", v, out)
	case nil:
	default:
		return nil, fmt.Errorf("it is %s, not an object", writeValue(v))
	}
	return out, nil
}

// unknown stands for a value the plan file holds as unknown.
type unknown struct{}

// decodeValue decodes one msgpack value: nil, bool, a number (json.Number), string, []any,
// map[string]any, or unknown (any extension: go-cty writes unknown values so).
func decodeValue(d *msgpack.Decoder, depth int) (any, error) {
	if depth > maxConfigDepth {
		return nil, fmt.Errorf("it nests deeper than %d", maxConfigDepth)
	}
	c, err := d.PeekCode()
	if err != nil {
		return nil, err
	}
	switch {
	case msgpcode.IsExt(c):
		return unknown{}, d.Skip()
	case msgpcode.IsFixedMap(c) || c == msgpcode.Map16 || c == msgpcode.Map32:
		return decodeMap(d, depth)
	case msgpcode.IsFixedArray(c) || c == msgpcode.Array16 || c == msgpcode.Array32:
		n, err := d.DecodeArrayLen()
		if err != nil {
			return nil, err
		}
		var out []any
		for range n {
			v, err := decodeValue(d, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	}
	v, err := d.DecodeInterfaceLoose()
	if err != nil {
		return nil, err
	}
	switch n := v.(type) {
	case int64:
		return json.Number(strconv.FormatInt(n, 10)), nil
	case uint64:
		return json.Number(strconv.FormatUint(n, 10)), nil
	case float64:
		return json.Number(strconv.FormatFloat(n, 'g', -1, 64)), nil
	case nil, bool, string:
		return v, nil
	}
	return nil, fmt.Errorf("a value of msgpack code %#x is not one go-cty writes", c)
}

// decodeMap decodes a msgpack map of string keys.
func decodeMap(d *msgpack.Decoder, depth int) (map[string]any, error) {
	n, err := d.DecodeMapLen()
	if err != nil {
		return nil, err
	}
	out := map[string]any{}
	for range n {
		k, err := d.DecodeString()
		if err != nil {
			return nil, err
		}
		if out[k], err = decodeValue(d, depth+1); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// flatten writes the attributes of object m into out, nested objects' as "name.inner".
func flatten(prefix string, m map[string]any, out map[string]string) {
	for k, v := range m {
		if inner, ok := v.(map[string]any); ok {
			flatten(prefix+k+".", inner, out)
			continue
		}
		out[prefix+k] = writeValue(v)
	}
}

// writeValue writes a decoded value as JSON, keys sorted; an unknown one (at any depth) as
// Unknown.
func writeValue(v any) string {
	switch v := v.(type) {
	case unknown:
		return Unknown
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = writeValue(e)
		}
		return "[" + strings.Join(parts, ",") + "]"
	case map[string]any:
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(v)) {
			parts = append(parts, strconv.Quote(k)+":"+writeValue(v[k]))
		}
		return "{" + strings.Join(parts, ",") + "}"
	case string:
		return strconv.Quote(v)
	case json.Number:
		return v.String()
	case bool:
		return strconv.FormatBool(v)
	}
	return "null"
}

// ReadBackendState reads the backend `terraform init` recorded in its data directory's
// terraform.tfstate ({"backend": {"type", "config"}}). A configuration without a backend
// block records none: its backend is local, every setting unset.
func ReadBackendState(data []byte) (Backend, error) {
	var s struct {
		Backend *struct {
			Type   string         `json:"type"`
			Config map[string]any `json:"config"`
		} `json:"backend"`
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	if err := d.Decode(&s); err != nil {
		return Backend{}, fmt.Errorf("terraform's backend record (terraform.tfstate in its data directory): %w", err)
	}
	if s.Backend == nil || s.Backend.Type == "" {
		return Backend{Type: "local", Config: map[string]string{}}, nil
	}
	out := map[string]string{}
	flatten("", s.Backend.Config, out)
	return Backend{Type: s.Backend.Type, Config: out}, nil
}
