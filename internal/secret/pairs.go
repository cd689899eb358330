package secret

// pairSet holds the first two bytes of strings: a text in which no two neighbouring bytes
// start one of them holds none of them. It lets the masker pass text holding no secret,
// nearly all text, with one scan and no copy.
type pairSet struct {
	bits [1 << 16 / 64]uint64
}

// newPairSet is the set of the first two bytes of values, or nil when a value is shorter
// than two bytes (the set cannot rule it out).
func newPairSet(values []string) *pairSet {
	p := &pairSet{}
	for _, v := range values {
		if len(v) < 2 {
			return nil
		}
		k := uint16(v[0])<<8 | uint16(v[1])
		p.bits[k/64] |= 1 << (k % 64)
	}
	return p
}

// anyPairIn reports whether some two neighbouring bytes of s are in the set p; true for a
// nil set.
func anyPairIn[T string | []byte](p *pairSet, s T) bool {
	if p == nil {
		return true
	}
	for i := 0; i+1 < len(s); i++ {
		k := uint16(s[i])<<8 | uint16(s[i+1])
		if p.bits[k/64]&(1<<(k%64)) != 0 {
			return true
		}
	}
	return false
}
