package pipeline

import (
	"bytes"
	"io"
	"testing"

	"filippo.io/age"
)

// A record belongs to one workspace: a workspace whose name begins like another's does not
// see the other's records, and only names tfgate writes count.
func TestRecordOf(t *testing.T) {
	sum := "41c810fe15bad7990123456789abcdef0123456789abcdef0123456789abcdef"
	name := recordName("prod", sum)
	if name != "tfgate-apply-prod-41c810fe15bad799" {
		t.Fatalf("recordName = %q", name)
	}
	for _, c := range []struct {
		name, ws string
		ok       bool
	}{
		{name, "prod", true},
		{name, "prod-eu", false},
		{recordName("prod-eu", sum), "prod", false},
		{recordName("prod-eu", sum), "prod-eu", true},
		{"tfgate-apply-prod-41c810fe15bad79", "prod", false},   // 15 digits
		{"tfgate-apply-prod-41C810FE15BAD799", "prod", false},  // not tfgate's
		{"tfgate-apply-prod-41c810fe15bad799x", "prod", false}, // 17 characters
		{"prod", "prod", false},
	} {
		if plan, ok := recordOf(c.name, c.ws); ok != c.ok || (ok && plan != sum[:16]) {
			t.Errorf("recordOf(%q, %q) = %q, %v; want %v", c.name, c.ws, plan, ok, c.ok)
		}
	}
}

// A kept state is encrypted as the bundles are: the plan key opens it with age.
func TestEncryptStateOpensWithThePlanKey(t *testing.T) {
	state := []byte(`{"version":4,"lineage":"l","serial":2,"resources":[{"secret":"hunter2"}]}`)
	key := "a-long-random-plan-key-0123456789"
	sealed, err := encryptState(state, key)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(sealed, []byte("hunter2")) {
		t.Fatal("the kept state is in clear text")
	}
	id, err := age.NewScryptIdentity(key)
	if err != nil {
		t.Fatal(err)
	}
	r, err := age.Decrypt(bytes.NewReader(sealed), id)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(r)
	if err != nil || !bytes.Equal(got, state) {
		t.Errorf("decrypted %q, %v; want the state", got, err)
	}
	wrong, _ := age.NewScryptIdentity("another-key-entirely-0123456789")
	if _, err := age.Decrypt(bytes.NewReader(sealed), wrong); err == nil {
		t.Error("another key opens the kept state")
	}
}
