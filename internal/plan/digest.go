package plan

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// digestValueLen is the value length the digest's review model keeps: every value whole,
// so that a change anywhere in one changes the digest (the comment shows an excerpt).
const digestValueLen = 1 << 30

// Digest is the sha256 of what a reviewer reads of a plan (`terraform show -json`): each
// resource change (address, action, the attributes before and after, what forces a
// replacement) and each output change, in the review model's canonical JSON. Timestamps,
// ids, the terraform version, drift and warnings are left out: two plans of the same
// changes have the same digest whenever and wherever they were made. Values terraform
// marks sensitive are redacted before they are hashed, as everywhere in the review model;
// the caller's masks are not applied, so the digest depends on the plan alone.
func Digest(data []byte) (string, error) {
	c, err := Read(data, Options{MaxValueLen: digestValueLen})
	if c == nil {
		return "", err
	}
	return c.digest(), nil
}

// digest is Digest of the changes c holds, read with every value whole.
func (c *Changes) digest() string {
	canonical, err := json.Marshal(struct {
		Resources []Resource `json:"resources"`
		Outputs   []Output   `json:"outputs"`
	}{c.Resources, c.Outputs})
	if err != nil { // plain structs of strings, bools and slices: never
		panic(err)
	}
	sum := sha256.Sum256(canonical)
	return hex.EncodeToString(sum[:])
}
