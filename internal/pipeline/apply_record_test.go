package pipeline

import "testing"

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
