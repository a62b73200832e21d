// Package public holds the lane's routes for an agent platform's key: the
// studio's public offer, and the verification that turns a platform's
// conversation into a trainee (one-time codes over WhatsApp, the
// auth-context broker's callbacks, the forward payload it replays).
package public

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/riverqueue/river"

	"github.com/otherwise/perform/internal/audit"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/otc"
	"github.com/otherwise/perform/internal/ratelimit"
	"github.com/otherwise/perform/internal/secret"
	"github.com/otherwise/perform/internal/store"
)

// Options configure the public area.
type Options struct {
	// Store is the lane's store, which the background jobs (callbacks)
	// read and write. Needed with Register; a lane without River may
	// leave it nil.
	Store store.Store
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
	// CodeSendsDown reports that CodeSends cannot count now (Redis does not
	// answer): every start_verification then answers that no code could be
	// sent, before any trainee is looked up. nil: never.
	CodeSendsDown func() bool
	// Courier sends the verification codes as River jobs inserted in the
	// transaction that writes them, sealed (the server's, shared with the
	// browser sign-in). Nil: sent from this process in the background.
	Courier *otc.Courier
	// SecretKey (PERFORM_SECRET_KEY) seals a platform's callback token in
	// its job (without it the token rides as it is), and opens the
	// verification codes queued before the Courier sent them.
	SecretKey []byte
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
	gateway   CodeGateway
	codes     *otc.Codes
	sendsDown func() bool
	broker    *broker
	box       *secret.Box
	store     store.Store
	jobs      atomic.Pointer[river.Client[*sql.Tx]]
	audit     audit.Sink
	logger    *slog.Logger
}

// codePurpose is the agent platforms' door in internal/otc.
const codePurpose = "platform"

// New builds the public area. Its outbound work runs as River jobs once
// Register and SetJobs are called; without them callbacks are not sent.
func New(o Options) *Area {
	a := &Area{gateway: o.Codes, sendsDown: o.CodeSendsDown, broker: newBroker(o.Broker), audit: o.Audit, logger: o.Logger, store: o.Store}
	if a.logger == nil {
		a.logger = slog.New(slog.DiscardHandler)
	}
	if a.sendsDown == nil {
		a.sendsDown = func() bool { return false }
	}
	if len(o.SecretKey) > 0 {
		box, err := secret.New(o.SecretKey)
		if err != nil {
			a.logger.Error("agent platform: PERFORM_SECRET_KEY is unusable, so verification codes are sent from this process", "err", err)
		} else {
			a.box = box
		}
	}
	sends := o.CodeSends
	if sends == nil {
		sends = ratelimit.NewMemory(VerifyCodesPerHour, time.Hour)
	}
	// Every call binds the codes to its own store (WithStore): this one
	// only stands in until then.
	a.codes = otc.New(otc.Options{Purpose: codePurpose, Store: noCodeStore{}, Sender: otc.SenderFunc(a.deliverCode), Sends: sends,
		MaxTries: verifyMaxTries, TTL: verifyCodeTTL, Logger: a.logger, Courier: o.Courier})
	return a
}

// Register adds the area's River workers: the auth-context callbacks and
// the verification codes. Options.Store must be set.
func (a *Area) Register(workers *river.Workers) {
	river.AddWorker(workers, &callbackWorker{a: a})
	river.AddWorker(workers, &codeWorker{a: a})
}

// SetJobs gives the area the River client its jobs are inserted with.
func (a *Area) SetJobs(c *river.Client[*sql.Tx]) { a.jobs.Store(c) }

// Routes adds the public routes.
func (a *Area) Routes(rs *lane.Routes) { a.platformRoutes(rs) }

// Declare says what the public area runs beside its routes: the
// callbacks' and codes' workers, and the codes it may still be sending
// itself when the server stops.
func (a *Area) Declare(d *lane.Declaration) {
	d.Workers, d.Jobs, d.Close = a.Register, a.SetJobs, a.CloseWait
}

// Close waits, until ctx is done, for the codes this process is still
// sending itself (without PERFORM_SECRET_KEY). The rest of the area's
// outbound work is River's, which the server stops.
func (a *Area) Close(ctx context.Context) error {
	done := make(chan struct{})
	go func() { a.codes.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("verification codes still being sent when the server stopped: %w", ctx.Err())
	}
}

// CloseWait is Close with a wait of otc.SendTimeout at most.
func (a *Area) CloseWait() error {
	ctx, cancel := context.WithTimeout(context.Background(), otc.SendTimeout)
	defer cancel()
	return a.Close(ctx)
}

// noCodeStore stands in for the codes' store until a call gives its own.
type noCodeStore struct{}

var errNoCodeStore = errors.New("public: the one-time codes were used without a store")

func (noCodeStore) PutCode(context.Context, store.OneTimeCode) error { return errNoCodeStore }
func (noCodeStore) TryCode(context.Context, []byte) (store.OneTimeCode, error) {
	return store.OneTimeCode{}, errNoCodeStore
}
func (noCodeStore) UseCode(context.Context, []byte, []byte) (bool, error) {
	return false, errNoCodeStore
}
func (noCodeStore) DeleteCode(context.Context, []byte) error    { return errNoCodeStore }
func (noCodeStore) SweepCodes(context.Context, time.Time) error { return errNoCodeStore }
