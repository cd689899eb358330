package terraform

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// readLocks reads the providers of the dependency lock file in dir, by source address
// ("registry.terraform.io/hashicorp/aws"). A missing or unreadable lock file, or a provider
// block that is not what terraform writes, vouches for nothing: terraform itself reports
// what is wrong with the file.
func readLocks(dir string) map[string]providerLock {
	locks := map[string]providerLock{}
	src, err := os.ReadFile(filepath.Join(dir, lockFileName))
	if err != nil {
		return locks
	}
	f, diags := hclsyntax.ParseConfig(src, lockFileName, hcl.InitialPos)
	if diags.HasErrors() {
		return locks
	}
	body, ok := f.Body.(*hclsyntax.Body)
	if !ok {
		return locks
	}
	for _, b := range body.Blocks {
		if b.Type != "provider" || len(b.Labels) != 1 {
			continue
		}
		addr := b.Labels[0]
		if parts := strings.Split(addr, "/"); len(parts) != 3 || !safeName(parts[0]) || !safeName(parts[1]) || !safeName(parts[2]) {
			continue
		}
		lock, ok := providerBlock(b.Body)
		if ok && safeName(lock.version) {
			locks[addr] = lock
		}
	}
	return locks
}

func providerBlock(body *hclsyntax.Body) (providerLock, bool) {
	var lock providerLock
	if a := body.Attributes["version"]; a != nil {
		v, diags := a.Expr.Value(nil)
		if diags.HasErrors() || v.Type() != cty.String || v.IsNull() {
			return lock, false
		}
		lock.version = v.AsString()
	}
	if a := body.Attributes["hashes"]; a != nil {
		v, diags := a.Expr.Value(nil)
		if diags.HasErrors() || v.IsNull() || !(v.Type().IsTupleType() || v.Type().IsListType()) {
			return lock, false
		}
		for it := v.ElementIterator(); it.Next(); {
			_, h := it.Element()
			if h.Type() == cty.String && h.IsKnown() && !h.IsNull() {
				lock.hashes = append(lock.hashes, h.AsString())
			}
		}
	}
	return lock, lock.version != ""
}
