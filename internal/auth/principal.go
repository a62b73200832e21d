// Package auth carries the request principal (who is calling, for which
// studio) in context.Context and makes and checks studio API keys.
package auth

import "context"

// SourceHeader tells the lane which surface made a call (api, mcp or agent),
// for the audit trail; the lane client sets it, the lane reads it.
const SourceHeader = "X-Perform-Source"

// Principal is the authenticated caller of a request. The lane's auth
// middleware sets it; store access takes the studio from it.
type Principal struct {
	StudioID     string
	StudioName   string
	StudioSlug   string
	Region       string
	Tier         string
	CredentialID string   // the API key id (or, later, the OAuth grant)
	Subject      string   // coach or trainee id, when the credential names one
	Scopes       []string // empty for a studio API key: it may do everything the lane offers
	Source       string   // api, mcp or agent
}

type principalKey struct{}

// WithPrincipal returns ctx carrying p.
func WithPrincipal(ctx context.Context, p *Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// PrincipalFrom returns the principal ctx carries, if any.
func PrincipalFrom(ctx context.Context) (*Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(*Principal)
	return p, ok && p != nil
}
