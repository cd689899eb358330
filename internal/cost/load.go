package cost

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"

	"gopkg.in/yaml.v3"
)

// CatalogueKey is where the catalogue lives in policy data: data.tfgate.prices.
var CatalogueKey = []string{"tfgate", "prices"}

// LoadCatalogue finds the price catalogue among the data files of the policy paths in
// fsys, read as the policy engine reads them (a file's data is merged at its directory
// relative to the path; hidden files and testdata directories are skipped). It returns nil
// when no data file defines data.tfgate.prices, and an error naming the file, line and
// key for a catalogue that cannot be used, or when two files define it.
func LoadCatalogue(fsys fs.FS, paths []string, where string) (*Catalogue, error) {
	var found []*Catalogue
	for _, root := range paths {
		root = strings.TrimPrefix(path.Clean(root), "/")
		err := fs.WalkDir(fsys, root, func(name string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil // the policy loader reports what cannot be read
			}
			if name != root && (strings.HasPrefix(d.Name(), ".") || (d.IsDir() && d.Name() == "testdata")) {
				if d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			if d.IsDir() || !isDataFile(name) {
				return nil
			}
			prefix := dataPrefix(root, name)
			want, ok := strings.CutPrefix(strings.Join(CatalogueKey, "/")+"/", prefix)
			if !ok {
				return nil
			}
			data, err := fs.ReadFile(fsys, name)
			if err != nil {
				return nil
			}
			var keys []string
			if want != "" {
				keys = strings.Split(strings.TrimSuffix(want, "/"), "/")
			}
			c, err := catalogueIn(name, data, keys)
			if c != nil {
				c.Where = where
			}
			if c != nil {
				found = append(found, c)
			}
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	switch len(found) {
	case 0:
		return nil, nil
	case 1:
		return found[0], nil
	}
	return nil, fmt.Errorf("both %s and %s define data.tfgate.prices: keep one price catalogue", found[0].File, found[1].File)
}

func isDataFile(name string) bool {
	switch strings.ToLower(path.Ext(name)) {
	case ".json", ".yaml", ".yml":
		return true
	}
	return false
}

// dataPrefix is where a data file's document is merged, as "a/b/" ("" for the root).
func dataPrefix(root, name string) string {
	dir := path.Dir(name)
	if dir == root || root == name {
		return ""
	}
	rel := strings.TrimPrefix(dir, root+"/")
	if root == "." {
		rel = dir
	}
	return rel + "/"
}

// catalogueIn parses data and returns the catalogue at keys, nil when the file has none.
// A document that does not parse is left to the policy loader.
func catalogueIn(file string, data []byte, keys []string) (*Catalogue, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var doc yaml.Node
		if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
			return nil, nil
		} else if err != nil {
			return nil, nil
		}
		n := &doc
		if n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
			n = n.Content[0]
		}
		for _, k := range keys {
			n = member(n, k)
		}
		if n != nil {
			return parseCatalogue(file, n)
		}
	}
}

// member is the value of key in the mapping n, nil when there is none.
func member(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}
