package policy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/tfgate/tfgate/internal/yamlguard"
)

// checkDataFiles refuses data files that OPA's loader would quietly accept or refuse
// without a line: a key set twice in one mapping (the loader keeps the last value, so a
// limit written twice silently takes whichever comes last), a recursive alias or merge key,
// and aliases that expand past yamlguard.MaxExpanded values. JSON files are read as the
// YAML they also are, for their duplicate keys. A file that does not parse is left to the
// loader, whose syntax errors carry their own positions.
func checkDataFiles(fsys fs.FS, paths []string, withTests bool) error {
	skip := policyFilter(withTests)
	for _, root := range paths {
		err := fs.WalkDir(fsys, root, func(name string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil // the loader reports what cannot be read
			}
			info, err := d.Info()
			if err != nil {
				return nil
			}
			depth := 0
			if name != root {
				depth = strings.Count(strings.TrimPrefix(name, root+"/"), "/") + 1
			}
			if skip(name, info, depth) {
				if d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			switch strings.ToLower(path.Ext(name)) {
			case ".json", ".yaml", ".yml":
			default:
				return nil
			}
			if d.IsDir() {
				return nil
			}
			data, err := fs.ReadFile(fsys, name)
			if err != nil {
				return nil
			}
			return checkDataFile(name, data)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func checkDataFile(name string, data []byte) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var doc yaml.Node
		if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			return nil // a syntax error: the loader says where
		}
		for _, check := range []func(*yaml.Node) error{yamlguard.Aliases, yamlguard.DuplicateKeys} {
			var p *yamlguard.Problem
			if err := check(&doc); errors.As(err, &p) {
				return fmt.Errorf("%s:%d: %s", name, p.Line, p.Msg)
			}
		}
	}
}
