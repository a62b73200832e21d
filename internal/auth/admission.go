package auth

import (
	"context"
	"crypto/subtle"
	"net/http"
	"sync/atomic"
)

// Admission is what a surface of this process settled about the request
// a context serves before the lane sees it: the credential it
// authenticated (the bearer token and its principal) and the one unit of
// the rate limit it counted for that credential. The /mcp gate hands it to
// the lane call a message leads to, and a group call to each of its
// writes, so the lane neither reads the credential again within the same
// request nor counts it twice. Like WithSource, only code in this process
// can set it: a request from the network always authenticates itself.
type Admission struct {
	token     string
	principal Principal
	taken     atomic.Bool
}

type admissionKey struct{}

// Admit returns ctx carrying the admission of p, authenticated from token
// and counted once against p's credential.
func Admit(ctx context.Context, token string, p *Principal) context.Context {
	return context.WithValue(ctx, admissionKey{}, &Admission{token: token, principal: *p})
}

// AdmissionFrom returns the admission ctx carries, if any.
func AdmissionFrom(ctx context.Context) (*Admission, bool) {
	a, ok := ctx.Value(admissionKey{}).(*Admission)
	return a, ok && a != nil
}

// Principal is a copy of the admitted principal.
func (a *Admission) Principal() *Principal {
	p := a.principal
	p.Scopes = p.Scopes[:len(p.Scopes):len(p.Scopes)] // shared, read-only: an append copies
	return &p
}

// For is a copy of the admitted principal when r carries the very token it
// was admitted for; any other credential (or none), or no admission (a nil
// a), is the caller's to authenticate.
func (a *Admission) For(r *http.Request) (*Principal, bool) {
	if a == nil {
		return nil, false
	}
	token, ok := Bearer(r.Header.Get("Authorization"))
	if !ok || subtle.ConstantTimeCompare([]byte(token), []byte(a.token)) != 1 {
		return nil, false
	}
	return a.Principal(), true
}

// Take reports whether the admission's unit of the rate limit is for
// credentialID and not taken yet, and takes it: it answers true once, so a
// message that leads to several lane calls pays for every one after the
// first. A nil a has nothing to take.
func (a *Admission) Take(credentialID string) bool {
	return a != nil && a.principal.CredentialID == credentialID && a.taken.CompareAndSwap(false, true)
}
