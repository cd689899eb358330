package bundle

import (
	"archive/zip"
	"errors"
	"fmt"
	"io"

	"google.golang.org/protobuf/encoding/protowire"
)

// What kind of plan a plan file holds, read from its tfplan entry (terraform's planproto
// Plan message). The JSON of `show -json` does not say in terraform 1.5 whether a plan
// was made with -destroy, -refresh-only or -target; the protobuf has said so since 1.0 and
// still does, with the same field numbers in terraform 1.5–1.14 and OpenTofu 1.10:
//
//	1  version           uint64
//	5  target_addrs      repeated string  (-target)
//	16 force_replace_addrs repeated string (-replace: a normal plan; its replacements count)
//	17 ui_mode           enum Mode { NORMAL = 0; DESTROY = 1; REFRESH_ONLY = 2; }
//	20 errored           bool
//	13 backend           Backend (the state backend it applies to: tfbackend.go)
//
// OpenTofu 1.9+ adds -exclude, kept in field 6 (excludeAddrsField; measured with 1.10.6).

// Plan modes, as apply.allow_modes names them.
const (
	ModeNormal      = "normal"
	ModeDestroy     = "destroy"
	ModeRefreshOnly = "refresh-only"
)

const (
	fieldTargetAddrs  = 5
	fieldUIMode       = 17
	fieldErrored      = 20
	excludeAddrsField = 6 // OpenTofu's exclude_addrs (1.9+); unused in terraform's Plan
)

// maxTFPlanBytes bounds the tfplan entry read: it holds every planned value, so a large
// plan makes tens of MiB; the limit is that of a whole bundle.
const maxTFPlanBytes = MaxOpenBytes

// PlanKind is what a plan file says of how it was made.
type PlanKind struct {
	Mode     string   // ModeNormal, ModeDestroy, ModeRefreshOnly
	Targets  []string // -target addresses; none = the whole configuration
	Excludes []string // OpenTofu's -exclude addresses
	Errored  bool     // planning stopped on an error: terraform never applies it
}

// TFPlan is what tfgate reads of a plan file's tfplan entry: the kind of plan, and the
// state backend it applies to (see tfbackend.go; Backend.Type is "" when the file records
// none).
type TFPlan struct {
	Kind    PlanKind
	Backend Backend
}

// ReadTFPlan reads the kind and the backend from the tfplan entry of the plan file z.
func ReadTFPlan(z *zip.Reader) (TFPlan, error) {
	var entry *zip.File
	for _, f := range z.File {
		if f.Name == "tfplan" {
			if entry != nil {
				return TFPlan{}, errors.New("two tfplan entries")
			}
			entry = f
		}
	}
	if entry == nil {
		return TFPlan{}, errors.New("no tfplan entry: not a terraform plan file")
	}
	rc, err := entry.Open()
	if err != nil {
		return TFPlan{}, err
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, maxTFPlanBytes+1))
	if err != nil {
		return TFPlan{}, fmt.Errorf("tfplan: %w", err)
	}
	if len(data) > maxTFPlanBytes {
		return TFPlan{}, fmt.Errorf("tfplan is larger than %d bytes", maxTFPlanBytes)
	}
	return parseTFPlan(data)
}

// parseTFPlan walks the top-level fields of a planproto Plan message.
func parseTFPlan(data []byte) (TFPlan, error) {
	p := TFPlan{Kind: PlanKind{Mode: ModeNormal}}
	for len(data) > 0 {
		num, typ, n := protowire.ConsumeTag(data)
		if n < 0 {
			return p, fmt.Errorf("tfplan: %w", protowire.ParseError(n))
		}
		data = data[n:]
		switch {
		case (num == fieldUIMode || num == fieldErrored) && typ == protowire.VarintType:
			v, n := protowire.ConsumeVarint(data)
			if n < 0 {
				return p, fmt.Errorf("tfplan field %d: %w", num, protowire.ParseError(n))
			}
			data = data[n:]
			p.Kind.varint(num, v)
		case (num == fieldBackend || num == fieldTargetAddrs || num == excludeAddrsField) && typ == protowire.BytesType:
			v, n := protowire.ConsumeBytes(data)
			if n < 0 {
				return p, fmt.Errorf("tfplan field %d: %w", num, protowire.ParseError(n))
			}
			data = data[n:]
			if err := p.bytes(num, v); err != nil {
				return p, err
			}
		default:
			n := protowire.ConsumeFieldValue(num, typ, data)
			if n < 0 {
				return p, fmt.Errorf("tfplan field %d: %w", num, protowire.ParseError(n))
			}
			data = data[n:]
		}
	}
	return p, nil
}

// varint takes field num's value v: ui_mode or errored.
func (k *PlanKind) varint(num protowire.Number, v uint64) {
	if num == fieldErrored {
		k.Errored = v != 0
		return
	}
	switch v {
	case 0:
		k.Mode = ModeNormal
	case 1:
		k.Mode = ModeDestroy
	case 2:
		k.Mode = ModeRefreshOnly
	default:
		k.Mode = fmt.Sprintf("unknown mode %d", v)
	}
}

// bytes takes field num's value v: the backend, a target or an excluded address.
func (p *TFPlan) bytes(num protowire.Number, v []byte) error {
	switch num {
	case fieldBackend:
		b, err := parseBackend(v)
		if err != nil {
			return fmt.Errorf("tfplan backend: %w", err)
		}
		p.Backend = b
	case fieldTargetAddrs:
		p.Kind.Targets = append(p.Kind.Targets, string(v))
	default:
		p.Kind.Excludes = append(p.Kind.Excludes, string(v))
	}
	return nil
}
