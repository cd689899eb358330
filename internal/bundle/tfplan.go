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

// ReadPlanKind reads the mode and targets from the tfplan entry of the plan file z.
func ReadPlanKind(z *zip.Reader) (PlanKind, error) {
	var entry *zip.File
	for _, f := range z.File {
		if f.Name == "tfplan" {
			if entry != nil {
				return PlanKind{}, errors.New("two tfplan entries")
			}
			entry = f
		}
	}
	if entry == nil {
		return PlanKind{}, errors.New("no tfplan entry: not a terraform plan file")
	}
	rc, err := entry.Open()
	if err != nil {
		return PlanKind{}, err
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, maxTFPlanBytes+1))
	if err != nil {
		return PlanKind{}, fmt.Errorf("tfplan: %w", err)
	}
	if len(data) > maxTFPlanBytes {
		return PlanKind{}, fmt.Errorf("tfplan is larger than %d bytes", maxTFPlanBytes)
	}
	return parsePlanKind(data)
}

// parsePlanKind walks the top-level fields of a planproto Plan message.
func parsePlanKind(data []byte) (PlanKind, error) {
	k := PlanKind{Mode: ModeNormal}
	for len(data) > 0 {
		num, typ, n := protowire.ConsumeTag(data)
		if n < 0 {
			return k, fmt.Errorf("tfplan: %w", protowire.ParseError(n))
		}
		data = data[n:]
		switch {
		case num == fieldUIMode && typ == protowire.VarintType:
			v, n := protowire.ConsumeVarint(data)
			if n < 0 {
				return k, fmt.Errorf("tfplan ui_mode: %w", protowire.ParseError(n))
			}
			data = data[n:]
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
		case num == fieldErrored && typ == protowire.VarintType:
			v, n := protowire.ConsumeVarint(data)
			if n < 0 {
				return k, fmt.Errorf("tfplan errored: %w", protowire.ParseError(n))
			}
			data = data[n:]
			k.Errored = v != 0
		case (num == fieldTargetAddrs || num == excludeAddrsField) && typ == protowire.BytesType:
			v, n := protowire.ConsumeBytes(data)
			if n < 0 {
				return k, fmt.Errorf("tfplan addresses: %w", protowire.ParseError(n))
			}
			data = data[n:]
			if num == fieldTargetAddrs {
				k.Targets = append(k.Targets, string(v))
			} else {
				k.Excludes = append(k.Excludes, string(v))
			}
		default:
			n := protowire.ConsumeFieldValue(num, typ, data)
			if n < 0 {
				return k, fmt.Errorf("tfplan field %d: %w", num, protowire.ParseError(n))
			}
			data = data[n:]
		}
	}
	return k, nil
}
