// Package auth is who is calling: the principal, studio API keys, scopes,
// and what Perform's own surfaces settled about a request, carried in its
// context.Context. Turning a credential into its principal is
// auth/credentials' (the one Authenticator); this package stays free of
// the store and the domain, for the clients built on it (perform-mcp).
package auth

import (
	"slices"
	"time"

	"github.com/otherwise/perform/internal/ids"
)

// SourceHeader names the calling surface (api, mcp or agent) on an
// in-process request. The lane never reads it: the in-process transport
// moves it into the context (see WithSource), and a request from the
// network is always api, whatever it sends.
const SourceHeader = "X-Perform-Source"

// Principal is the authenticated caller of a request: credentials.NewPrincipal
// builds it, an Authenticator answers it, and store access takes the studio
// from it.
type Principal struct {
	StudioID     string
	StudioName   string
	StudioSlug   string
	Region       string
	Tier         string
	TimeZone     *time.Location // the studio's zone: its local days (nil: domain.DefaultTimeZone)
	FirstDay     time.Weekday   // the first day of the studio's week (domain.Studio.FirstDay; the zero value, Sunday, is the default zone's)
	Kind         CredentialKind // what the credential is
	CredentialID string         // the API key id or the OAuth grant id
	Subject      string         // coach or trainee id, when the credential names one (a studio key names none)
	Scopes       []string       // what the credential may do; each lane route needs one
	Source       string         // api, mcp or agent: from Perform's own surfaces only
}

// IsTrainee reports a principal that speaks for one trainee (a trainee's
// own OAuth grant, an agent platform's conversation verified as one, or a
// studio key's in-process caller speaking for one): its subject is a
// trainee id. Every rule that holds for trainees asks this.
func (p *Principal) IsTrainee() bool { return ids.Is(p.Subject, ids.Trainee) }

// AsTrainee is a copy of p speaking for trainee traineeID, with the
// trainee scopes and nothing more: its credential stays p's.
func (p *Principal) AsTrainee(traineeID string) *Principal {
	cp := *p
	cp.Subject, cp.Scopes = traineeID, slices.Clone(TraineeScopes)
	return &cp
}
