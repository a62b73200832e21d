// Package public holds the lane's routes for an agent platform's key: the
// studio's public offer, and the verification that turns a platform's
// conversation into a trainee (one-time codes over WhatsApp, the
// auth-context broker's callbacks, the forward payload it replays).
package public

import (
	"context"
	"log/slog"
	"time"

	"github.com/otherwise/perform/internal/audit"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/ratelimit"
)

// Options configure the public area.
type Options struct {
	// Codes sends an agent platform's end user the one-time code of a
	// verification over WhatsApp (login.Gateway: the conversation is the
	// phone's international digits). nil writes the code to Logger, as the
	// browser sign-in does without a gateway.
	Codes CodeGateway
	// CodeSends counts the verification codes sent to each trainee,
	// VerifyCodesPerHour an hour; the server shares it in Redis like the
	// other limits, so every instance holds one count. nil: counted in
	// this process.
	CodeSends ratelimit.Limiter
	// Broker configures the callback to an agent platform's auth-context
	// broker (broker.go).
	Broker BrokerOptions
	// Audit records the callbacks' outcomes; nil records nothing.
	Audit  audit.Sink
	Logger *slog.Logger
}

// CodeGateway sends one WhatsApp message (login.Gateway's shape).
type CodeGateway interface {
	Send(ctx context.Context, conversationID, text string) error
}

// Area is the public routes and their background work.
type Area struct {
	codes     CodeGateway
	codeSends ratelimit.Limiter
	broker    *broker
	audit     audit.Sink
	logger    *slog.Logger
}

// New builds the public area; Close waits for its background work.
func New(o Options) *Area {
	a := &Area{codes: o.Codes, codeSends: o.CodeSends, broker: newBroker(o.Broker), audit: o.Audit, logger: o.Logger}
	if a.codeSends == nil {
		a.codeSends = ratelimit.NewMemory(VerifyCodesPerHour, time.Hour)
	}
	if a.logger == nil {
		a.logger = slog.New(slog.DiscardHandler)
	}
	return a
}

// Routes adds the public routes.
func (a *Area) Routes(rs *lane.Routes) { a.platformRoutes(rs) }
