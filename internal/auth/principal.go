// Package auth carries the request principal (who is calling, for which
// studio) in context.Context and makes and checks studio API keys.
package auth

import (
	"context"
	"strings"
	"time"

	"github.com/otherwise/perform/internal/ids"
)

// SourceHeader names the calling surface (api, mcp or agent) on an
// in-process request. The lane never reads it: the in-process transport
// moves it into the context (see WithSource), and a request from the
// network is always api, whatever it sends.
const SourceHeader = "X-Perform-Source"

// Principal is the authenticated caller of a request. The lane's auth
// middleware sets it; store access takes the studio from it.
type Principal struct {
	StudioID     string
	StudioName   string
	StudioSlug   string
	Region       string
	Tier         string
	TimeZone     *time.Location // the studio's zone: its local days (nil: domain.DefaultTimeZone)
	FirstDay     time.Weekday   // the first day of the studio's week (domain.Studio.FirstDay; the zero value, Sunday, is the default zone's)
	Kind         CredentialKind // what the credential is
	CredentialID string         // the API key id (or, later, the OAuth grant)
	Subject      string         // coach or trainee id, when the credential names one (a studio key names none)
	Scopes       []string       // what the credential may do; each lane route needs one
	Source       string         // api, mcp or agent: from Perform's own surfaces only
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

// IsTrainee reports a principal that speaks for one trainee (a trainee's
// own OAuth grant, or an agent platform's conversation verified as one):
// its subject is a trainee id.
func (p *Principal) IsTrainee() bool {
	return strings.HasPrefix(p.Subject, string(ids.Trainee)+"_")
}
