package plan

import (
	"crypto/hmac"
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
//
// With a key (TFGATE_PLAN_KEY, whose bundles are encrypted) it is an HMAC-SHA256 under a
// key derived from it: the clear manifest then gives no way to test guesses of a value the
// comment masks (a CI secret terraform does not know to be sensitive); without one the
// plan file itself is clear, and a plain sha256 tells nothing more.
func Digest(data []byte, key string) (string, error) {
	c, err := Read(data, Options{MaxValueLen: digestValueLen})
	if c == nil {
		return "", err
	}
	return c.digest(key), nil
}

// digest is Digest of the changes c holds, read with every value whole.
func (c *Changes) digest(key string) string {
	canonical, err := json.Marshal(struct {
		Resources []Resource `json:"resources"`
		Outputs   []Output   `json:"outputs"`
	}{c.Resources, c.Outputs})
	if err != nil { // plain structs of strings, bools and slices: never
		panic(err)
	}
	if key == "" {
		sum := sha256.Sum256(canonical)
		return hex.EncodeToString(sum[:])
	}
	derived := sha256.Sum256([]byte("tfgate changes digest\x00" + key))
	mac := hmac.New(sha256.New, derived[:])
	mac.Write(canonical)
	return hex.EncodeToString(mac.Sum(nil))
}
