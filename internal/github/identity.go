package github

import (
	"context"
	"fmt"
	"strings"
)

// ActionsBot is the login GitHub Actions' GITHUB_TOKEN posts as.
const ActionsBot = "github-actions[bot]"

// Identity is who tfgate posts as. Only comments and issues written by it (and carrying
// tfgate's marker) are ever edited, deleted or read back.
type Identity struct {
	Login  string
	Source string // "config", "GET /user" or "installation token"
}

// Is reports whether u is this identity. GitHub logins are case-insensitive.
func (id Identity) Is(u User) bool {
	return id.Login != "" && strings.EqualFold(id.Login, u.Login)
}

// ResolveIdentity is configured when not empty (the config's login, needed for a GitHub
// App token other than GITHUB_TOKEN, whose bot is "<app>[bot]"), else the token's user from
// GET /user. An installation token may not call GET /user (403 "Resource not accessible by
// integration"); that token is GITHUB_TOKEN, so the identity is github-actions[bot].
func ResolveIdentity(ctx context.Context, api API, configured string) (Identity, error) {
	if configured != "" {
		return Identity{Login: configured, Source: "config"}, nil
	}
	u, err := api.AuthenticatedUser(ctx)
	if err == nil {
		return Identity{Login: u.Login, Source: "GET /user"}, nil
	}
	if HTTPStatus(err) == 403 && strings.Contains(err.Error(), "Resource not accessible by integration") {
		return Identity{Login: ActionsBot, Source: "installation token"}, nil
	}
	return Identity{}, fmt.Errorf("learn who tfgate posts as: %w (set the login in the config)", err)
}

// Identity resolves the client's identity once (Options.Login first) and caches it.
func (c *Client) Identity(ctx context.Context) (Identity, error) {
	c.identityMu.Lock()
	defer c.identityMu.Unlock()
	if c.identity != nil {
		return *c.identity, nil
	}
	id, err := ResolveIdentity(ctx, c, c.o.Login)
	if err != nil {
		return Identity{}, err
	}
	c.identity = &id
	return id, nil
}

// learnIdentity caches who the token writes as from something it just created (a status's
// creator), when neither Options.Login nor an earlier lookup said: any token's writes
// name it, where GET /user is refused to installation tokens (a GitHub App's too).
func (c *Client) learnIdentity(u User) {
	if u.Login == "" || c.o.Login != "" {
		return
	}
	c.identityMu.Lock()
	defer c.identityMu.Unlock()
	if c.identity == nil {
		c.identity = &Identity{Login: u.Login, Source: "status creator"}
	}
}
