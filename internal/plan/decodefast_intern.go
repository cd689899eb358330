package plan

import "encoding/json"

// The fast path's string sharing. A plan repeats its attribute names, action words and
// small values thousands of times; a direct-mapped cache of recent ones (a slot per hash
// of length and a few bytes, a miss simply replacing the slot) gives most of a table's
// sharing at a fraction of a map's cost, and boxes each shared value only once.

const (
	internSlots  = 1 << 10
	internMaxLen = 64
)

type internCache struct {
	strs  [internSlots]string
	boxed [internSlots]any // strs[i] as an interface value (a string or a json.Number)
}

func internSlot(b []byte) uint {
	n := uint(len(b))
	return (n*0x9e37 ^ uint(b[0])*31 ^ uint(b[n-1])*131 ^ uint(b[n/2])*7) & (internSlots - 1)
}

// str returns b as a string, shared with an earlier one of the same text when the cache
// holds one.
func (c *internCache) str(b []byte) string {
	if len(b) == 0 || len(b) > internMaxLen {
		return string(b)
	}
	i := internSlot(b)
	if s := c.strs[i]; s == string(b) {
		return s
	}
	s := string(b)
	c.strs[i], c.boxed[i] = s, nil
	return s
}

// box returns b as an interface value: a string, or a json.Number when number is set.
func (c *internCache) box(b []byte, number bool) any {
	if len(b) == 0 || len(b) > internMaxLen {
		if number {
			return json.Number(b)
		}
		return string(b)
	}
	i := internSlot(b)
	if v := c.boxed[i]; v != nil && c.strs[i] == string(b) {
		if _, isNumber := v.(json.Number); isNumber == number {
			return v
		}
	}
	s := string(b)
	var v any = s
	if number {
		v = json.Number(s)
	}
	c.strs[i], c.boxed[i] = s, v
	return v
}
