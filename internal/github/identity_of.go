package github

import "context"

// IdentityOf is who tfgate writes as through api: configured when set, else what the client
// learnt or resolved once (Client.Identity, shared by every caller of the run), else
// ResolveIdentity for another API.
func IdentityOf(ctx context.Context, api API, configured string) (Identity, error) {
	if configured != "" {
		return Identity{Login: configured, Source: "config"}, nil
	}
	if c, ok := api.(interface {
		Identity(context.Context) (Identity, error)
	}); ok {
		return c.Identity(ctx)
	}
	return ResolveIdentity(ctx, api, "")
}
