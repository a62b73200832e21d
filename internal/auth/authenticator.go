package auth

import (
	"context"
	"net/http"
	"sync/atomic"
)

// Authenticator turns the credential a request carries into its principal.
// Studio keys are the one implementation today (in the lane); OAuth grants
// and platform keys add theirs behind the same interface.
type Authenticator interface {
	// Authenticate answers the request's principal, or a *Refusal. A
	// refusal may carry the principal of a credential that exists but may
	// not be used (a revoked key), so the refusal is filed under its studio.
	Authenticate(ctx context.Context, r *http.Request) (*Principal, error)
}

// Refusal is a credential that was missing, unknown or not usable, with
// the sentence for the caller.
type Refusal struct {
	Message string
	Missing bool // no credential at all
}

func (e *Refusal) Error() string { return e.Message }

type sourceKey struct{}

// WithSource marks ctx as a call from one of Perform's own surfaces (mcp,
// agent). Only code in this process can do it: the in-process transport
// does, for the clients built on it. The key is unexported, and nothing
// from the network reaches a context, so a network request is always api.
func WithSource(ctx context.Context, source string) context.Context {
	return context.WithValue(ctx, sourceKey{}, source)
}

// SourceFrom returns the surface ctx was marked with, if any.
func SourceFrom(ctx context.Context) (string, bool) {
	s, ok := ctx.Value(sourceKey{}).(string)
	return s, ok && s != ""
}

type clientAddrKey struct{}

// WithClientAddr records the network address of the client whose request
// ctx serves, so an in-process call made on its behalf (a tool call of
// /mcp) is limited against that address when its credential fails.
func WithClientAddr(ctx context.Context, addr string) context.Context {
	return context.WithValue(ctx, clientAddrKey{}, addr)
}

// ClientAddrFrom returns the address WithClientAddr recorded, if any.
func ClientAddrFrom(ctx context.Context) (string, bool) {
	s, ok := ctx.Value(clientAddrKey{}).(string)
	return s, ok && s != ""
}

// ClientAddr is the network address r came from: for an in-process call,
// the address of the request it serves, when known (WithClientAddr).
func ClientAddr(r *http.Request) string {
	if a, ok := ClientAddrFrom(r.Context()); ok {
		return a
	}
	return r.RemoteAddr
}

// admission is one rate-limit unit a surface already counted for a
// credential; the first lane call it makes for that credential takes it.
type admission struct {
	credentialID string
	taken        atomic.Bool
}

type admissionKey struct{}

// WithAdmission records that the request ctx serves was already counted
// against the rate limit of credentialID (the /mcp endpoint counts each MCP
// message), so the one in-process lane call it leads to is not counted
// again. Like WithSource, only code in this process can set it.
func WithAdmission(ctx context.Context, credentialID string) context.Context {
	return context.WithValue(ctx, admissionKey{}, &admission{credentialID: credentialID})
}

// TakeAdmission reports whether ctx carries an admission for credentialID
// not taken yet, and takes it: it answers true once per admission, so a
// message that leads to several lane calls pays for every one after the first.
func TakeAdmission(ctx context.Context, credentialID string) bool {
	a, ok := ctx.Value(admissionKey{}).(*admission)
	return ok && a.credentialID == credentialID && a.taken.CompareAndSwap(false, true)
}
