package testprovider

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// object is what a fakecloud_object is "in the cloud": the JSON file <dir>/<name>.json.
// Null attributes are JSON null, so Read gives back exactly what Create wrote and an
// edit by hand (a value changed, a key removed) is drift terraform can see.
type object struct {
	Name    string            `json:"name"`
	Content *string           `json:"content"`
	Tags    map[string]string `json:"tags"`
	Secret  *string           `json:"secret"`
}

// store is the directory the provider block names.
type store struct {
	dir string
}

// validName refuses names that would not stay a single file inside the directory.
func validName(name string) error {
	switch {
	case name == "":
		return errors.New("name must not be empty")
	case name == "." || name == "..":
		return fmt.Errorf("name %q is not a file name", name)
	case strings.ContainsAny(name, `/\`+"\x00"):
		return fmt.Errorf("name %q must not contain a path separator", name)
	}
	return nil
}

func (s store) path(name string) string {
	return filepath.Join(s.dir, name+".json")
}

// get reads an object; found is false when its file does not exist (deleted out of band).
func (s store) get(name string) (obj object, found bool, err error) {
	if err := validName(name); err != nil {
		return object{}, false, err
	}
	data, err := os.ReadFile(s.path(name))
	if errors.Is(err, fs.ErrNotExist) {
		return object{}, false, nil
	}
	if err != nil {
		return object{}, false, err
	}
	if err := json.Unmarshal(data, &obj); err != nil {
		return object{}, false, fmt.Errorf("%s: %w", s.path(name), err)
	}
	// The path is the object's identity (as an ID is in a cloud): a name edited inside
	// the file is ignored rather than reported as a replacement.
	obj.Name = name
	return obj, true, nil
}

// put writes an object atomically (temporary file in the same directory, then rename), so
// an interrupted apply or a concurrent reader never sees half a file.
func (s store) put(obj object) error {
	if err := validName(obj.Name); err != nil {
		return err
	}
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return err
	}
	data, err := json.MarshalIndent(obj, "", "  ")
	if err != nil {
		return err
	}
	data = append(data, '\n')
	// The leading dot and the suffix keep temporary files out of "*.json".
	tmp, err := os.CreateTemp(s.dir, "."+obj.Name+".json.*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after a successful rename there is nothing left to remove
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), s.path(obj.Name))
}

// sleeping creates the marker that says a slow operation on name is under way.
func (s store) sleeping(name string) (string, error) {
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return "", err
	}
	marker := filepath.Join(s.dir, "."+name+".sleeping")
	return marker, os.WriteFile(marker, nil, 0o644)
}

// exists reports whether an object's file is present.
func (s store) exists(name string) (bool, error) {
	_, err := os.Stat(s.path(name))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// remove deletes an object; an object already gone is not an error (destroy converges).
func (s store) remove(name string) error {
	if err := validName(name); err != nil {
		return err
	}
	err := os.Remove(s.path(name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}
