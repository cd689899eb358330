package git

import (
	"context"
	"net/url"
	"strings"
)

// RemoteURL is the URL of the remote name (`git remote get-url`).
func (g Git) RemoteURL(ctx context.Context, name string) (string, error) {
	out, err := g.run(ctx, "remote", "get-url", name)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// RepoFromURL reads "owner/name" from a git remote URL on host: https://HOST/owner/name(.git),
// ssh://git@HOST/owner/name.git or git@HOST:owner/name.git. ok is false for any other URL.
func RepoFromURL(remote, host string) (string, bool) {
	var p string
	if u, err := url.Parse(remote); err == nil && u.Scheme != "" && u.Host != "" {
		if !strings.EqualFold(u.Hostname(), host) {
			return "", false
		}
		p = u.Path
	} else if at, rest, ok := strings.Cut(remote, ":"); ok && strings.Contains(at, "@") {
		_, h, _ := strings.Cut(at, "@")
		if !strings.EqualFold(h, host) {
			return "", false
		}
		p = rest
	} else {
		return "", false
	}
	p = strings.TrimSuffix(strings.Trim(p, "/"), ".git")
	owner, name, ok := strings.Cut(p, "/")
	if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
		return "", false
	}
	return owner + "/" + name, true
}
