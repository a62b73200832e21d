package oauth

import (
	"fmt"
	"slices"
	"strings"

	"github.com/otherwise/perform/internal/auth"
)

// Trainee scopes (see auth): what a trainee may let an app do with their own records.
const (
	ScopeProfileRead   = auth.ScopeProfileRead
	ScopeTrainingRead  = auth.ScopeTrainingRead
	ScopeTrainingWrite = auth.ScopeTrainingWrite
	ScopeHealthRead    = auth.ScopeHealthRead
	ScopeHealthWrite   = auth.ScopeHealthWrite
	ScopeCoachRead     = auth.ScopeCoachRead
)

// TraineeScopes are every scope a trainee's grant may hold, in display order.
var TraineeScopes = auth.TraineeScopes

// CoachScopes are every scope a coach's grant may hold: a studio key's
// minus studio:admin, which stays with the studio's own apps.
var CoachScopes = []string{auth.ScopeStudioRead, auth.ScopeStudioWrite, auth.ScopeBilling}

// Scopes are every scope the server knows, coach ones first.
var Scopes = append(slices.Clone(CoachScopes), TraineeScopes...)

// What each scope lets an app do is said in words, in Hebrew and in
// English, by webui's catalogue (webui.ScopeWords): every page that shows
// a scope shows those words.

// ParseScope reads an OAuth scope parameter (space-separated, RFC 6749
// section 3.3): each scope known, each once, in the order of Scopes. An
// empty parameter gives none; the caller picks the default.
func ParseScope(param string) ([]string, error) {
	words := strings.Fields(param)
	for _, w := range words {
		if !slices.Contains(Scopes, w) {
			return nil, fmt.Errorf("%q is not a scope of this server; the scopes are %s", w, strings.Join(Scopes, " "))
		}
	}
	out := []string{}
	for _, s := range Scopes {
		if slices.Contains(words, s) {
			out = append(out, s)
		}
	}
	return out, nil
}

// allowedScopes are the scopes a person of kind may hand out.
func allowedScopes(personKind string) []string {
	if personKind == personCoach {
		return CoachScopes
	}
	return TraineeScopes
}

// grantScopes is what a person of kind is granted for requested (parsed):
// the requested scopes they may hold (a client that asks for every scope
// the server lists gets the coach or the trainee half), all of them when
// nothing was asked, and an error when none of the request is theirs.
func grantScopes(personKind string, requested []string) ([]string, error) {
	allowed := allowedScopes(personKind)
	if len(requested) == 0 {
		return slices.Clone(allowed), nil
	}
	var out []string
	for _, s := range requested {
		if slices.Contains(allowed, s) {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("a %s may grant only %s; the app asked for %s", personKind, strings.Join(allowed, " "), strings.Join(requested, " "))
	}
	return out, nil
}

// subset reports whether every scope of a is in b.
func subset(a, b []string) bool {
	for _, s := range a {
		if !slices.Contains(b, s) {
			return false
		}
	}
	return true
}
