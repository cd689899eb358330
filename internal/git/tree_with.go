package git

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"path"
	"strings"
)

// TreeWith is the name git gives the tree of rev with files (slash-separated paths relative
// to the top level) holding new content, each keeping its mode — computed as git does,
// nothing written — and the mode of each file. Every file must exist in rev. A commit
// written elsewhere (GitHub's Git data API) with that content has this tree.
func (g Git) TreeWith(ctx context.Context, rev string, files map[string][]byte) (tree string, modes map[string]string, err error) {
	modes = map[string]string{}
	dirs := map[string]bool{"": true}
	for f := range files {
		for d := path.Dir(f); d != "."; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	var build func(dir string) (string, error)
	build = func(dir string) (string, error) {
		args := []string{"ls-tree", "-z", "--full-tree", rev}
		if dir != "" {
			args = append(args, "--", dir+"/")
		}
		out, err := g.run(ctx, args...)
		if err != nil {
			return "", err
		}
		var b bytes.Buffer
		for _, rec := range splitZ(out) {
			meta, name, ok := strings.Cut(rec, "\t")
			f := strings.Fields(meta)
			if !ok || len(f) != 3 {
				return "", fmt.Errorf("git ls-tree %s: unexpected line %q", rev, rec)
			}
			mode, sha := f[0], f[2]
			if content, edited := files[name]; edited && f[1] == "blob" {
				sha, modes[name] = objectName("blob", content), mode
			} else if f[1] == "tree" && dirs[name] {
				if sha, err = build(name); err != nil {
					return "", err
				}
			}
			raw, _ := hex.DecodeString(sha)
			fmt.Fprintf(&b, "%s %s\x00", strings.TrimPrefix(mode, "0"), path.Base(name))
			b.Write(raw)
		}
		return objectName("tree", b.Bytes()), nil
	}
	if tree, err = build(""); err != nil {
		return "", nil, err
	}
	for f := range files {
		if modes[f] == "" {
			return "", nil, fmt.Errorf("%s is not a file of %s", f, rev)
		}
	}
	return tree, modes, nil
}

// objectName is git's name of an object: the SHA-1 of "<type> <size>\0<data>".
func objectName(typ string, data []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "%s %d\x00", typ, len(data))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}
