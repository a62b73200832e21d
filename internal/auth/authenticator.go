package auth

import (
	"context"
	"net/http"
	"strings"
)

// Authenticator turns the credential a request carries into its principal.
// credentials.Authenticator is Perform's; the lane and the /mcp gate take
// this interface.
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

// Bearer is the token of an "Authorization: Bearer …" header value (the
// scheme in any case, spaces around trimmed), if it has one.
func Bearer(header string) (string, bool) {
	scheme, token, ok := strings.Cut(strings.TrimSpace(header), " ")
	token = strings.TrimSpace(token)
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
		return "", false
	}
	return token, true
}

type speaksForKey struct{}

// WithCoach records that the in-process caller of ctx speaks for one coach
// of the studio its studio key opens (the WhatsApp assistant, for the
// coach whose phone wrote), so "who is asking" resolves to her as it does
// for her own OAuth grant. It narrows what a studio key means and never
// widens it: the lane gives the principal this subject only for a studio
// key, and only when the coach is that studio's. Like WithSource, only
// code in this process can set it.
func WithCoach(ctx context.Context, coachID string) context.Context {
	return context.WithValue(ctx, speaksForKey{}, coachID)
}

// CoachFrom returns the coach WithCoach recorded, if any.
func CoachFrom(ctx context.Context) (string, bool) {
	id, ok := ctx.Value(speaksForKey{}).(string)
	return id, ok && id != ""
}

type speaksForTraineeKey struct{}

// WithTrainee records that the in-process caller of ctx speaks for one
// trainee of the studio its studio key opens (the WhatsApp assistant, for
// the trainee whose phone wrote). The lane then treats the call exactly as
// her own OAuth grant's: her subject, the trainee scopes, her records only,
// scrubbed answers and her per-person limits. Unlike WithCoach it never
// falls back to the studio key: a trainee the studio does not have is
// refused. Like WithSource, only code in this process can set it.
func WithTrainee(ctx context.Context, traineeID string) context.Context {
	return context.WithValue(ctx, speaksForTraineeKey{}, traineeID)
}

// TraineeFrom returns the trainee WithTrainee recorded, if any.
func TraineeFrom(ctx context.Context) (string, bool) {
	id, ok := ctx.Value(speaksForTraineeKey{}).(string)
	return id, ok
}
