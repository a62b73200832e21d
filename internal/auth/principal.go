// Package auth is who is calling: it makes and checks studio API keys,
// turns the credential a request carries into its principal (Credentials,
// the one Authenticator of studio keys, platform keys with their verified
// conversations, and OAuth grants), and carries what Perform's own surfaces
// settled about a request in its context.Context.
package auth

import (
	"slices"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
)

// SourceHeader names the calling surface (api, mcp or agent) on an
// in-process request. The lane never reads it: the in-process transport
// moves it into the context (see WithSource), and a request from the
// network is always api, whatever it sends.
const SourceHeader = "X-Perform-Source"

// Principal is the authenticated caller of a request: NewPrincipal builds
// it, an Authenticator answers it, and store access takes the studio from it.
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

// Credential is what a lookup found behind a token: its kind and id, the
// person it names, if any, and its scopes.
type Credential struct {
	Kind    CredentialKind
	ID      string
	Subject string
	Scopes  []string
}

// NewPrincipal is the principal of credential c of studio s: every kind of
// credential becomes a principal here.
func NewPrincipal(s domain.Studio, c Credential) *Principal {
	return &Principal{
		StudioID:     s.ID,
		StudioName:   s.Name,
		StudioSlug:   s.Slug,
		Region:       s.Region,
		Tier:         s.Tier,
		TimeZone:     s.TimeZone(),
		FirstDay:     s.FirstDay(),
		Kind:         c.Kind,
		CredentialID: c.ID,
		Subject:      c.Subject,
		Scopes:       c.Scopes,
	}
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
