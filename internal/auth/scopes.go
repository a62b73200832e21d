package auth

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// CredentialKind says what a principal's credential is: every kind
// resolves to the same Principal (NewPrincipal).
type CredentialKind string

const (
	KindStudioKey  CredentialKind = "studio_key"
	KindOAuthGrant CredentialKind = "oauth_grant"
	// KindPlatformKey is a studio key an agent platform holds: the studio's
	// customer-facing agent calls /mcp with it for end users, so it reaches
	// only the routes opened to platforms (the studio's public offer).
	KindPlatformKey CredentialKind = "platform_key"
)

// Key kinds as the CLI and the lane name them.
const (
	KeyKindStudio   = "studio"
	KeyKindPlatform = "platform"
)

// ParseKeyKind reads a key kind as the CLI and POST /keys take it: studio
// (the default, also when empty) or platform.
func ParseKeyKind(kind string) (CredentialKind, error) {
	switch strings.TrimSpace(kind) {
	case "", KeyKindStudio, string(KindStudioKey):
		return KindStudioKey, nil
	case KeyKindPlatform, string(KindPlatformKey):
		return KindPlatformKey, nil
	}
	return "", fmt.Errorf("%q is not a key kind; a key is studio (the studio's own integrations) or platform (an agent platform answering the studio's customers)", kind)
}

// ScopePublicRead is the one scope of a platform key: the studio's public
// offer (name, plans, program templates, how to join). No studio or
// trainee route names it.
const ScopePublicRead = "public:read"

// PlatformScopes are what a platform key holds.
var PlatformScopes = []string{ScopePublicRead}

// Scopes a studio credential can hold. They are independent: studio:admin
// does not include studio:write, so each route needs exactly one of them.
// Trainee scopes (training:read, …) arrive with the OAuth grants.
const (
	// ScopeStudioRead reads the studio's data (the coach tools that look).
	ScopeStudioRead = "studio:read"
	// ScopeStudioWrite makes the coach tools' writes: trainees, plans,
	// tasks, programs, notes; never deletes, never messages a trainee.
	ScopeStudioWrite = "studio:write"
	// ScopeStudioAdmin is for the studio's own apps: deleting, freezing and
	// cancelling, coaches, tags, the catalog, keys, the outbox.
	ScopeStudioAdmin = "studio:admin"
	// ScopeBilling reads and records what trainees owe and paid: charges,
	// payments, refunds and the reasons "owes", "package_ends" and
	// "no_credits". Keys made before it keep the scopes they had; a key
	// made since holds it unless its scopes leave it out.
	ScopeBilling = "billing"
)

// Trainee scopes: what a trainee's OAuth grant may do with the trainee's
// own records. A trainee principal reaches only routes that name one.
const (
	ScopeProfileRead   = "profile:read"   // the profile, plans and form answers
	ScopeTrainingRead  = "training:read"  // programs and training history
	ScopeTrainingWrite = "training:write" // logging sessions and sets
	ScopeHealthRead    = "health:read"    // weights, measurements, check-ins, injuries
	ScopeHealthWrite   = "health:write"
	ScopeCoachRead     = "coach:read" // the coach's insights and resources
)

// TraineeScopes are every scope a trainee's grant may hold, in display order.
var TraineeScopes = []string{ScopeProfileRead, ScopeTrainingRead, ScopeTrainingWrite, ScopeHealthRead, ScopeHealthWrite, ScopeCoachRead}

// StudioScopes are every scope a studio key may hold, in display order.
var StudioScopes = []string{ScopeStudioRead, ScopeStudioWrite, ScopeStudioAdmin, ScopeBilling}

// DefaultKeyScopes is what a studio key holds when its creator names none,
// and what every key made before scopes existed holds: everything, so
// today's integrations keep working.
var DefaultKeyScopes = StudioScopes

// AssistantScopes is what the WhatsApp assistant's own key holds: what the
// coach tools need and no more.
var AssistantScopes = []string{ScopeStudioRead, ScopeStudioWrite, ScopeBilling}

// ParseScopes reads a list of scopes separated by commas or spaces, as the
// CLI and the lane take them. It refuses an unknown scope with a sentence
// listing the known ones; an empty list gives DefaultKeyScopes.
func ParseScopes(list string) ([]string, error) {
	return CheckScopes(strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == ' ' }))
}

// CheckScopes validates scopes, drops duplicates and puts them in display
// order; none gives DefaultKeyScopes.
func CheckScopes(scopes []string) ([]string, error) {
	if len(scopes) == 0 {
		return slices.Clone(DefaultKeyScopes), nil
	}
	out := make([]string, 0, len(scopes))
	for _, s := range StudioScopes {
		if slices.Contains(scopes, s) {
			out = append(out, s)
		}
	}
	for _, s := range scopes {
		if !slices.Contains(StudioScopes, s) {
			return nil, fmt.Errorf("%q is not a scope; a studio key's scopes are %s", s, strings.Join(StudioScopes, ", "))
		}
	}
	return out, nil
}

// Has reports whether the principal holds scope.
func (p *Principal) Has(scope string) bool { return slices.Contains(p.Scopes, scope) }

// A ScopeChange is how a live studio key's scopes change: Set names its
// whole new list, or Add and Remove name what it gains and loses (both at
// once; a scope in both is refused). The CLI (perform key scopes) and the
// lane (PATCH /keys/{id}) take it the same way.
type ScopeChange struct {
	Set, Add, Remove []string
}

// Empty reports whether the change names no scope at all.
func (c ScopeChange) Empty() bool { return len(c.Set)+len(c.Add)+len(c.Remove) == 0 }

// ErrNoScopes refuses a change that would leave a key no scope.
var ErrNoScopes = errors.New("a key keeps at least one scope; to stop a key, revoke it")

// Apply is the scopes a key holding have holds after the change, in
// display order, each scope named checked as CheckScopes checks it. A
// change naming nothing, both Set and Add or Remove, a scope both added and
// removed, or one leaving no scope is refused with a sentence.
func (c ScopeChange) Apply(have []string) ([]string, error) {
	switch {
	case c.Empty():
		return nil, errors.New("name the scopes to set, or to add or remove")
	case len(c.Set) > 0 && len(c.Add)+len(c.Remove) > 0:
		return nil, errors.New("set the whole list, or add and remove scopes, not both")
	}
	for _, list := range [][]string{c.Set, c.Add, c.Remove} {
		if len(list) > 0 {
			if _, err := CheckScopes(list); err != nil {
				return nil, err
			}
		}
	}
	for _, s := range c.Add {
		if slices.Contains(c.Remove, s) {
			return nil, fmt.Errorf("%q is both added and removed; name it once", s)
		}
	}
	next := c.Set
	if len(c.Set) == 0 {
		next = slices.DeleteFunc(append(slices.Clone(have), c.Add...), func(s string) bool { return slices.Contains(c.Remove, s) })
	}
	if len(next) == 0 {
		return nil, ErrNoScopes
	}
	return CheckScopes(next)
}
