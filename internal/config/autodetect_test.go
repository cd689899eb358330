package config

import (
	"slices"
	"testing"
)

func TestParseAutodetect(t *testing.T) {
	cfg, err := Parse([]byte("version: 1\nautodetect:\n  include: [\"examples/*\", ./live/**/]\n  exclude: [examples/broken]\n"), ".tfgate.yaml", "")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"examples/*", "live/**"}; !slices.Equal(cfg.Autodetect.Include, want) {
		t.Errorf("include = %q, want %q", cfg.Autodetect.Include, want)
	}
	if want := []string{"examples/broken"}; !slices.Equal(cfg.Autodetect.Exclude, want) {
		t.Errorf("exclude = %q, want %q", cfg.Autodetect.Exclude, want)
	}
}

func TestAutodetectSelects(t *testing.T) {
	a := Autodetect{Include: []string{"examples/*", "live/**"}, Exclude: []string{"examples/broken", "live/**/fixtures/**"}}
	for dir, want := range map[string]bool{
		"examples/simple":          true,
		"examples/broken":          false,
		"examples/simple/nested":   false,
		"live":                     true,
		"live/prod/network":        true,
		"live/prod/fixtures":       false,
		"live/prod/fixtures/empty": false,
		".":                        false,
		"modules/vpc":              false,
	} {
		if got := a.Selects(dir); got != want {
			t.Errorf("Selects(%q) = %v, want %v", dir, got, want)
		}
	}
	if !(Autodetect{}).Selects(".") || !(Autodetect{Exclude: []string{"test/**"}}).Selects("tests") || (Autodetect{Exclude: []string{"test/**"}}).Selects("test") {
		t.Error("empty include selects everything; an exclude ending in /** covers its directory")
	}
}
