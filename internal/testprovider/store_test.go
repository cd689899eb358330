package testprovider

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestValidName(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"web", true},
		{"web.prod-1_x", true},
		{".hidden", true},
		{"", false},
		{".", false},
		{"..", false},
		{"a/b", false},
		{"../escape", false},
		{`a\b`, false},
		{"nul\x00", false},
	} {
		if err := validName(tc.name); (err == nil) != tc.ok {
			t.Errorf("validName(%q) = %v, want ok=%v", tc.name, err, tc.ok)
		}
	}
}

func TestStoreRoundTrip(t *testing.T) {
	s := store{dir: filepath.Join(t.TempDir(), "objects")} // created by put
	content, secret := "v1", "hunter2"
	for _, want := range []object{
		{Name: "full", Content: &content, Tags: map[string]string{"env": "prod"}, Secret: &secret},
		{Name: "empty-tags", Tags: map[string]string{}},
		{Name: "nulls"},
	} {
		if err := s.put(want); err != nil {
			t.Fatal(err)
		}
		got, found, err := s.get(want.Name)
		if err != nil || !found {
			t.Fatalf("get %s: found=%v err=%v", want.Name, found, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("get %s = %+v, want %+v", want.Name, got, want)
		}
	}
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := []string{"empty-tags.json", "full.json", "nulls.json"}; !reflect.DeepEqual(names, want) {
		t.Errorf("directory holds %v, want %v (no temporary files left)", names, want)
	}
}

func TestStoreMissingAndRemove(t *testing.T) {
	s := store{dir: t.TempDir()}
	if _, found, err := s.get("gone"); found || err != nil {
		t.Fatalf("get of a missing object: found=%v err=%v", found, err)
	}
	if err := s.remove("gone"); err != nil {
		t.Fatalf("remove of a missing object: %v", err)
	}
	if err := s.put(object{Name: "x"}); err != nil {
		t.Fatal(err)
	}
	if err := s.remove("x"); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.exists("x"); ok || err != nil {
		t.Fatalf("after remove: exists=%v err=%v", ok, err)
	}
}

func TestStoreCorruptFile(t *testing.T) {
	s := store{dir: t.TempDir()}
	if err := os.WriteFile(s.path("bad"), []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.get("bad"); err == nil {
		t.Fatal("get of a corrupt file: no error")
	}
}

func TestResolveDir(t *testing.T) {
	for _, tc := range []struct {
		dir, root, want string
	}{
		{"objects", "", "objects"},
		{"../../objects", "", "../../objects"},
		{"/abs/objects", "", "/abs/objects"},
		{"objects", "/cloud", "/cloud/objects"},
		{"../../objects", "/cloud", "/cloud/objects"},
		{"./a/../objects", "/cloud", "/cloud/objects"},
		{"a/objects", "/cloud", "/cloud/a/objects"},
		{"..", "/cloud", "/cloud"},
		{"/abs/objects", "/cloud", "/abs/objects"},
	} {
		if got := resolveDir(tc.dir, tc.root); got != tc.want {
			t.Errorf("resolveDir(%q, %q) = %q, want %q", tc.dir, tc.root, got, tc.want)
		}
	}
}
