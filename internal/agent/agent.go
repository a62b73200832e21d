// Package agent is the coach WhatsApp assistant. A SmartSend flow posts each
// inbound message to the webhook; the message is stored and a River job is
// scheduled a few seconds later, so a burst of messages gets one reply. The
// reply turn works out which coach is writing, asks an Anthropic model with
// the coach tools scoped to the coach's studio (run through the automation
// lane with a studio key the agent mints for itself) and sends the reply back
// through SmartSend.
//
// Everything a turn needs lives in the database (agent_* tables, migration
// 0100_agent.sql): a SIGKILL between any two steps loses no message, and a
// resumed turn sends only the chunks not yet recorded as sent.
package agent

import (
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	"github.com/riverqueue/river"

	"github.com/otherwise/perform/internal/config"
	"github.com/otherwise/perform/internal/laneclient"
	"github.com/otherwise/perform/internal/llm"
	"github.com/otherwise/perform/internal/modelbudget"
	"github.com/otherwise/perform/internal/phone"
	"github.com/otherwise/perform/internal/secret"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/tools"
)

// Defaults and limits from the specification.
const (
	DailyCap        = 200            // handled bursts per phone per UTC day
	pendingMaxAge   = time.Hour      // older pending messages are dropped, never answered late
	historyEntries  = 24             // entries handed to the model
	historyMaxAge   = 48 * time.Hour // entries older than this are forgotten
	maxModelSteps   = 8
	maxOutputTokens = 1200
	chunkMaxRunes   = 3500
	jobMaxAttempts  = 10 // retries cover crashes and gateway outages; model failures are answered, not retried
)

// LLM configures the Anthropic Messages API.
type LLM struct {
	APIKey      string // ANTHROPIC_API_KEY; empty makes every model call fail with "agent AI is not configured"
	BaseURL     string // ANTHROPIC_BASE_URL; empty means Anthropic's
	WorkspaceID string // ANTHROPIC_WORKSPACE_ID; sent as anthropic-workspace-id when set
	Model       string // AGENT_MODEL; empty means config.DefaultAgentModel
}

// Options configure an Agent. Store, Lane and SecretKey are required.
type Options struct {
	Store store.Store
	// Lane runs the tools; build it with source "agent" so the audit says who called.
	Lane *laneclient.Client
	// Gateway sends replies; nil means SmartSend at SmartSendURL with SmartSendKey.
	Gateway      Gateway
	SmartSendKey string // AGENT_SMARTSEND_API_KEY; empty disables the agent
	SmartSendURL string // SMARTSEND_API_URL
	// WebhookSecret is SMARTSEND_WEBHOOK_SECRET; empty refuses every webhook call.
	WebhookSecret string
	// PilotPhones (AGENT_PILOT_PHONES) limits the agent to these coaches; empty means everyone.
	PilotPhones []string
	// PhoneCoaches (AGENT_PHONE_COACHES) pins a phone to a coach id.
	PhoneCoaches map[string]string
	LLM          LLM
	// Debounce is how long after a message its reply job runs
	// (AGENT_DEBOUNCE_MS); 0 means config.DefaultAgentDebounce, negative
	// means at once.
	Debounce time.Duration
	// SecretKey (PERFORM_SECRET_KEY, 32 bytes) seals the studio keys the agent keeps.
	SecretKey []byte
	// Tools is the tool set offered to the model; nil means tools.AgentSubset().
	Tools []tools.Tool
	// Now is the clock of the business rules (message age, daily cap,
	// history) and of lease expiry; nil means time.Now. Job scheduling uses
	// the real clock.
	Now    func() time.Time
	Logger *slog.Logger
	// LeaseTTL is how long a crashed turn blocks its phone; 0 means 15 s.
	LeaseTTL time.Duration
	// ProposalTTL is how long a proposed write waits for the coach's answer
	// (AGENT_PROPOSAL_TTL_MINUTES); 0 means config.DefaultAgentProposalTTL.
	ProposalTTL time.Duration
	// Budget is the one model budget every model call is checked against
	// and charged to (budget.go); nil: none.
	Budget ModelBudget

	// For tests: a lower daily cap (0 means DailyCap) and a hook called
	// when a reply job finds its phone busy.
	dailyCap int
	onBusy   func(phone string)
	// For tests: called at each step of executing confirmed proposals; an
	// error there ends the turn as a crash would (see proposals.go).
	proposalStep func(step string) error
}

// Agent is the WhatsApp assistant. Build it with New, add its worker with
// Register before the River client is built (one that works
// jobs.QueueHolding: jobs.Config.Holding), hand it the client with SetJobs,
// and serve Webhook at POST /v1/agent/webhook.
type Agent struct {
	st           store.Store
	lane         *laneclient.Client
	gateway      Gateway
	enabled      bool
	secret       []byte // webhook token
	pilot        map[string]bool
	pins         map[string]string
	box          *secret.Box
	model        *model
	traineeModel *model // a trainee's turns: her tools, her brief
	debounce     time.Duration
	leaseTTL     time.Duration
	now          func() time.Time
	log          *slog.Logger
	jobs         atomic.Pointer[river.Client[*sql.Tx]]
	intake       *intake
	turnObserver func(outcome string) // metrics hook; nil means none
	dailyCap     int                  // DailyCap; tests lower it
	onBusy       func(phone string)   // a reply job found its phone busy; tests watch it

	// stepObserver is the metrics hook per model call; nil means none.
	stepObserver func(model string, u llm.Usage)
	proposalTTL  time.Duration
	proposalStep func(step string) error // tests: a crash between the steps of a confirmation
	budget       ModelBudget
}

// New checks the options and builds an Agent.
func New(o Options) (*Agent, error) {
	if o.Store == nil {
		return nil, errors.New("agent: a store is required")
	}
	if o.Lane == nil {
		return nil, errors.New("agent: a lane client is required to run the tools")
	}
	box, err := secret.New(o.SecretKey)
	if err != nil {
		return nil, fmt.Errorf("agent: %w", err)
	}
	if b, ok := o.Budget.(*modelbudget.Budget); ok && b == nil {
		o.Budget = nil // a nil *Budget is no budget
	}
	a := &Agent{
		st:       o.Store,
		lane:     o.Lane,
		gateway:  o.Gateway,
		enabled:  o.SmartSendKey != "",
		secret:   []byte(o.WebhookSecret),
		pilot:    map[string]bool{},
		pins:     map[string]string{},
		box:      box,
		debounce: o.Debounce,
		leaseTTL: o.LeaseTTL,
		now:      o.Now,
		log:      o.Logger,
		dailyCap: DailyCap,
		onBusy:   o.onBusy,

		proposalTTL:  o.ProposalTTL,
		proposalStep: o.proposalStep,
		budget:       o.Budget,
	}
	if a.proposalTTL <= 0 {
		a.proposalTTL = config.DefaultAgentProposalTTL
	}
	if o.dailyCap > 0 {
		a.dailyCap = o.dailyCap
	}
	if a.gateway == nil {
		a.gateway = NewSmartSend(o.SmartSendURL, o.SmartSendKey, nil)
	}
	switch {
	case a.debounce == 0:
		a.debounce = config.DefaultAgentDebounce
	case a.debounce < 0:
		a.debounce = 0 // reply at once
	}
	if a.leaseTTL <= 0 {
		a.leaseTTL = 15 * time.Second
	}
	if a.now == nil {
		a.now = time.Now
	}
	if a.log == nil {
		a.log = slog.Default()
	}
	for _, p := range o.PilotPhones {
		if strings.TrimSpace(p) == "" {
			continue
		}
		a.pilot[phoneKey(p)] = true
	}
	for p, coachID := range o.PhoneCoaches {
		a.pins[phoneKey(p)] = coachID
	}
	toolSet := o.Tools
	if toolSet == nil {
		toolSet = tools.AgentSubset()
	}
	if a.model, err = newModel(o.LLM, toolSet, promptRules, a.log); err != nil {
		return nil, err
	}
	if a.traineeModel, err = newModel(o.LLM, tools.TraineeAssistantSubset(), traineeRules, a.log); err != nil {
		return nil, err
	}
	a.intake = newIntake(a, o.Store.Engine())
	return a, nil
}

// ObserveTurns sets a hook called once per finished turn with its outcome
// (for metrics): replied, welcome, failed, not_linked, not_in_pilot,
// cap_reached, capped, revoked, disconnected, reconnected, key_limit,
// choose_studio (the coach was asked which studio), studio_chosen,
// digest_set (the morning digest's command, digest_command.go), and
// for answers to proposed writes proposals_executed, proposals_declined,
// proposal_expired, proposal_unclear; and for a trainee's turns
// trainee_asked (consent asked), trainee_agreed, trainee_stopped,
// trainee_undone, trainee_undo_none, trainee_undo_late, trainee_cut_off;
// and requeued (a turn of several messages ran out of model steps, and
// its messages went back to be answered one by one, bounds.go).
func (a *Agent) ObserveTurns(f func(outcome string)) { a.turnObserver = f }

// Register adds the reply and recovery workers, and the morning digest's
// (digest.go). Call it before the River client is built.
func (a *Agent) Register(workers *river.Workers) {
	river.AddWorker(workers, &replyWorker{a: a})
	river.AddWorker(workers, &recoverWorker{a: a})
	a.registerDigest(workers)
}

// SetJobs hands the agent the River client it schedules replies on, and
// adds the periodic job that resumes turns a crashed process left open.
func (a *Agent) SetJobs(c *river.Client[*sql.Tx]) {
	if a.jobs.Swap(c) == c {
		return
	}
	if pj := c.PeriodicJobs(); pj != nil {
		if _, err := pj.AddSafely(recoveryJob()); err != nil {
			a.log.Warn("agent: the recovery job could not be added; crashed turns wait for River's rescue", "err", err)
		}
	}
	a.addDigestJob(c)
}

// Close stops the intake: a message arriving from now on is refused (the
// webhook answers an error, so the sender delivers it again), the messages
// already accepted are written with their reply jobs, and Close returns
// once the intake's goroutines have. Call it after the HTTP server has
// stopped and before the store closes; calling it again does nothing.
func (a *Agent) Close() error {
	a.intake.close()
	return nil
}

// phoneKey is how a phone is stored and compared (see phone.Key).
func phoneKey(raw string) string { return phone.Key(raw) }

func (a *Agent) inPilot(key string) bool {
	return len(a.pilot) == 0 || a.pilot[key]
}
