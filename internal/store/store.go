// Package store is Perform's persistence: one set of interfaces, two engines
// (embedded SQLite by default, Postgres for scale-out) behind one
// database/sql implementation that differs only in dialect and migrations.
//
// Everything a studio owns is reached through Store.Studio(id), so a query
// cannot forget its tenant: an id from another studio is simply not found.
package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/otherwise/perform/internal/domain"
)

// ErrNotFound is returned when a row does not exist in the studio asked.
var ErrNotFound = domain.ErrNotFound

// ErrInvalidText is returned for a search term that is not text Perform
// accepts (internal/text). The lane refuses such text at its edge; the
// store refuses it too, so no engine matches a NUL against every row or
// fails inside its driver.
var ErrInvalidText = errors.New("not text Perform accepts")

// ConflictError is returned when a write would break a uniqueness rule.
// Message is a sentence fit for the caller; ExistingID names the row in the way.
type ConflictError struct {
	Message    string
	ExistingID string
}

func (e *ConflictError) Error() string { return e.Message }

// Page selects a window of a list. Limit is 1..200 (the lane validates it).
type Page struct {
	Limit  int
	Offset int
}

// List is one page of a list and the total number of matching rows.
type List[T any] struct {
	Items []T
	Total int
}

// TraineeFilter narrows SearchTrainees. Each word of Q (QueryWords)
// matches a substring of the first name, the last name, the phone digits or
// the email, case-insensitively, in any order.
type TraineeFilter struct {
	Q string
	// Sounds matches each word of Q (that is not digits) by its sound
	// keys instead, so a word finds a name written in the other script
	// or spelled another way ("Tamar" finds תמר, "Avraham" finds
	// Abraham; translit).
	Sounds       bool
	Status       string
	CoachID      string
	Tag          string // tag name
	CreatedAfter *time.Time
	UpdatedAfter *time.Time
	Page
}

// TaskFilter narrows ListTasks.
type TaskFilter struct {
	Status   string
	ClientID string
	CoachID  string
	Page
}

// DueForm is a form assignment waiting for the periodic announcement.
type DueForm struct {
	StudioID   string
	Assignment domain.FormAssignment
}

// CoachRef is an active coach with a phone, across studios (for the agent).
type CoachRef struct {
	Coach      domain.Coach
	StudioID   string
	StudioName string
}

// Store is the whole database.
type Store interface {
	Global
	// Studio returns the store of one studio's data.
	Studio(studioID string) StudioStore
	// Agent is the WhatsApp assistant's state (agent.go).
	Agent() AgentStore
	// Proposals are the writes the WhatsApp assistant proposed to coaches.
	Proposals() ProposalStore
	// OAuth is the authorization server's state (oauth.go).
	OAuth() OAuthStore
	// Login is the browser sign-in's state (login.go).
	Login() LoginStore
	// Platform is the agent platforms' verified conversations (platform.go).
	Platform() PlatformStore
	// Codes are the one-time codes of every door that verifies a phone
	// (codes.go, internal/otc).
	Codes() CodeStore
	// Digests are the coaches' morning digests on WhatsApp (digest.go).
	Digests() DigestStore
	// Budget is the model budget's counters and model calls (model_budget.go).
	Budget() BudgetStore
	// PaymentHooks are the studios' payment processor webhooks and the
	// events they took (payment_hooks.go).
	PaymentHooks() PaymentHookStore
	// InTx runs fn in one transaction. The Store given to fn is bound to it;
	// fn's error rolls everything back.
	InTx(ctx context.Context, fn func(tx Store) error) error
	// SQLTx is the transaction this Store is bound to (nil outside InTx), so
	// River jobs can be inserted in the same transaction as their data.
	SQLTx() *sql.Tx
	// DB is the underlying pool, for tests that reach past the store (to
	// age a row, say). Code that runs beside the store takes Pool(st).
	DB() *sql.DB
	// Engine is "sqlite" or "postgres".
	Engine() string
	// Rebind turns a query written with ? placeholders into the engine's form.
	Rebind(query string) string
	Ping(ctx context.Context) error
	Close() error
}

// Global holds what is not inside one studio: studios themselves, API keys,
// the audit trail and the cross-studio reads of background work. Each area
// is an interface of its own, so a consumer can depend on the one it uses.
type Global interface {
	Studios
	APIKeys
	Audit
	Background
}

// Studios are the tenants.
type Studios interface {
	CreateStudio(ctx context.Context, s *domain.Studio) error // ConflictError on a taken slug
	StudioByID(ctx context.Context, id string) (domain.Studio, error)
	StudioBySlug(ctx context.Context, slug string) (domain.Studio, error)
	ListStudios(ctx context.Context) ([]domain.Studio, error)
	UpdateStudioSettings(ctx context.Context, studioID string, settings json.RawMessage) error
}

// APIKeys are the studios' credentials.
type APIKeys interface {
	CreateAPIKey(ctx context.Context, k *domain.APIKey) error
	// APIKeyByHash finds a key and its studio in one indexed query. A revoked
	// key is returned too (RevokedAt set); the caller decides.
	APIKeyByHash(ctx context.Context, hash []byte) (domain.APIKey, domain.Studio, error)
	// CredentialsEpoch is a counter the database moves forward, in the same
	// transaction, whenever something a key's principal is made of changes
	// (a key's revocation, scopes, kind or name; a studio's name, slug,
	// region, tier or settings), by triggers of the migrations. A principal
	// read while the epoch was n is current as long as the epoch is n.
	CredentialsEpoch(ctx context.Context) (int64, error)
	// TouchAPIKey sets last_used_at to at unless it was set less than a minute before at.
	TouchAPIKey(ctx context.Context, keyID string, at time.Time) error
	ListAPIKeys(ctx context.Context, studioID string) ([]domain.APIKey, error)
	// FindAPIKey finds a key by id or display prefix, in any studio when studioID is "".
	FindAPIKey(ctx context.Context, studioID, idOrPrefix string) (domain.APIKey, error)
	RevokeAPIKey(ctx context.Context, keyID string, at time.Time) error
	// SetAPIKeyScopes gives the live key keyID of studioID (of any studio
	// when studioID is "") the scopes change answers for it (as it is, scopes and kind),
	// under the key's row lock, with ev (when not nil) as its audit event,
	// in one transaction (joining the caller's, if any). No such key is
	// ErrNotFound, a revoked one *ConflictError; change's error is answered
	// as it is. The credentials epoch moves with the scopes (a trigger), so
	// a principal kept for the key is read again on its next request.
	SetAPIKeyScopes(ctx context.Context, studioID, keyID string, change func(k domain.APIKey) ([]string, error), ev *domain.AuditEvent) (domain.APIKey, error)
	CountLiveAPIKeys(ctx context.Context, studioID string) (int, error)
	// MintAPIKey is how a key is made within the plan (the lane, the CLI
	// and the assistant all use it): under the studio's lock it writes k
	// when the studio has fewer than maxLive live keys, else *LimitError,
	// and writes ev (when not nil) as the creation's audit event in the
	// same transaction.
	MintAPIKey(ctx context.Context, k *domain.APIKey, maxLive int, ev *domain.AuditEvent) error
}

// Audit is the trail of the lane's writes.
type Audit interface {
	InsertAudit(ctx context.Context, events []domain.AuditEvent) error
	// ListAudit is newest first.
	ListAudit(ctx context.Context, studioID string, page Page) (List[domain.AuditEvent], error)
}

// Background holds the cross-studio reads and upkeep of background work.
type Background interface {
	// DueForms lists assignments with notify unset, not yet announced,
	// created at or before createdBefore, oldest first.
	DueForms(ctx context.Context, createdBefore time.Time, limit int) ([]DueForm, error)
	// MarkFormAnnounced sets announced_at; false when it was already set
	// (another worker won), so the outbox row is written once.
	MarkFormAnnounced(ctx context.Context, assignmentID string, at time.Time) (bool, error)

	ActiveCoachByID(ctx context.Context, coachID string) (CoachRef, error)

	// ExpireIdempotencyKeys deletes every studio's idempotency records
	// created before before (the daily upkeep passes now - IdempotencyTTL).
	ExpireIdempotencyKeys(ctx context.Context, before time.Time) (int64, error)
}

// StudioStore is one studio's data. Every method is scoped to that studio:
// an id that belongs to another studio gives ErrNotFound. Each area is an
// interface of its own, so a consumer can depend on the one it uses, and a
// new domain adds its areas here.
type StudioStore interface {
	Coaches
	Tags
	Trainees
	Catalogue
	Subscriptions
	Programs
	Forms
	Weights
	Tasks
	Outbox
	Idempotency
	Exercises
	Sessions
	Benchmarks
	Measurements
	CheckIns
	Injuries
	Goals
	TrainingProfiles
	Roster
	RosterReads
	TraineeFeedback
	Personas
	PendingForms
	PlanDrafts
	Appointments
	Credits
	Billing
}

// Coaches are the studio's staff.
type Coaches interface {
	ListCoaches(ctx context.Context, page Page) (List[domain.Coach], error)
	GetCoach(ctx context.Context, id string) (domain.Coach, error)
	CreateCoach(ctx context.Context, c *domain.Coach) error
	UpdateCoach(ctx context.Context, c *domain.Coach) error
}

// Tags label trainees.
type Tags interface {
	ListTags(ctx context.Context, page Page) (List[domain.Tag], error)
	CreateTag(ctx context.Context, t *domain.Tag) error // ConflictError on a taken name
	DeleteTag(ctx context.Context, id string) error
}

// Trainees are the studio's clients.
type Trainees interface {
	SearchTrainees(ctx context.Context, f TraineeFilter) (List[domain.Trainee], error)
	// NearTrainees: the trainees whose names are most like f.Q by trigram
	// similarity, for when SearchTrainees finds none.
	NearTrainees(ctx context.Context, f TraineeFilter, limit int) ([]domain.Trainee, error)
	GetTrainee(ctx context.Context, id string) (domain.Trainee, error)
	TraineeByPhone(ctx context.Context, e164 string) (domain.Trainee, error)
	// CreateTrainee and UpdateTrainee write the tag and coach lists too,
	// creating tags that do not exist yet. ConflictError on a taken phone.
	// UpdatedAt is kept when set; a zero one is the store's clock.
	CreateTrainee(ctx context.Context, t *domain.Trainee) error
	UpdateTrainee(ctx context.Context, t *domain.Trainee) error
	DeleteTrainee(ctx context.Context, id string) error
	// WithdrawRecord deletes a record of the trainee that by
	// (domain.LoggedByTrainee or LoggedByCoach) logged at or after since
	// (see Withdrawable); anything else is ErrNotFound.
	WithdrawRecord(ctx context.Context, traineeID, id, by string, since time.Time) error
	CountActiveTrainees(ctx context.Context) (int, error)
	// ReserveActiveTrainee locks the studio for the rest of the
	// transaction and answers *LimitError when it has max active trainees
	// already. Call it inside InTx before writing one more active trainee.
	ReserveActiveTrainee(ctx context.Context, max int) error
}

// Catalogue is what a studio offers: products, program templates and form
// templates.
type Catalogue interface {
	ListProducts(ctx context.Context, search string, page Page) (List[domain.Product], error)
	GetProduct(ctx context.Context, id string) (domain.Product, error)
	CreateProduct(ctx context.Context, p *domain.Product) error
	UpdateProduct(ctx context.Context, p *domain.Product) error

	ListProgramTemplates(ctx context.Context, search string, page Page) (List[domain.ProgramTemplate], error)
	GetProgramTemplate(ctx context.Context, id string) (domain.ProgramTemplate, error)
	CreateProgramTemplate(ctx context.Context, t *domain.ProgramTemplate) error
	// UpdateProgramTemplate writes name, description, weeks and structure.
	UpdateProgramTemplate(ctx context.Context, t *domain.ProgramTemplate) error

	ListFormTemplates(ctx context.Context, search string, page Page) (List[domain.FormTemplate], error)
	GetFormTemplate(ctx context.Context, id string) (domain.FormTemplate, error)
	CreateFormTemplate(ctx context.Context, t *domain.FormTemplate) error
}

// Subscriptions are trainees' purchases of products.
type Subscriptions interface {
	// Subscriptions come back with Status set to the stored state (active,
	// frozen or cancelled); domain.Subscription.Derive reads the rest off the dates.
	ListSubscriptions(ctx context.Context, traineeID string) ([]domain.Subscription, error)
	GetSubscription(ctx context.Context, id string) (domain.Subscription, error)
	CreateSubscription(ctx context.Context, s *domain.Subscription) error
	SetSubscriptionState(ctx context.Context, id, state string) error
}

// Programs are program templates given to trainees.
type Programs interface {
	ListPrograms(ctx context.Context, traineeID string) ([]domain.Program, error)
	GetProgram(ctx context.Context, id string) (domain.Program, error)
	CreateProgram(ctx context.Context, p *domain.Program) error
	// ReplaceActivePrograms marks the trainee's active programs replaced.
	ReplaceActivePrograms(ctx context.Context, traineeID string) error
}

// Forms are form templates assigned to trainees and their responses.
type Forms interface {
	CreateFormAssignment(ctx context.Context, a *domain.FormAssignment) error
	GetFormAssignment(ctx context.Context, id string) (domain.FormAssignment, error)
	// CreateFormResponse also completes its assignment when it has one.
	CreateFormResponse(ctx context.Context, r *domain.FormResponse) error
	// ListFormResponses is newest first.
	ListFormResponses(ctx context.Context, traineeID string, page Page) (List[domain.FormResponse], error)
}

// Weights are trainees' weigh-ins.
type Weights interface {
	// ListWeights is newest recordedAt first.
	ListWeights(ctx context.Context, traineeID string, page Page) (List[domain.Weight], error)
	CreateWeight(ctx context.Context, w *domain.Weight) error
}

// Tasks are the coaches' to-do items.
type Tasks interface {
	ListTasks(ctx context.Context, f TaskFilter) (List[domain.Task], error)
	GetTask(ctx context.Context, id string) (domain.Task, error)
	CreateTask(ctx context.Context, t *domain.Task) error
	// UpdateTask writes every mutable field; UpdatedAt is kept when set,
	// a zero one is the store's clock.
	UpdateTask(ctx context.Context, t *domain.Task) error
}

// Outbox holds the notifications waiting to be sent.
type Outbox interface {
	// AddNotification writes one outbox row.
	AddNotification(ctx context.Context, n *domain.Notification) error
	// ListNotifications is newest first.
	ListNotifications(ctx context.Context, page Page) (List[domain.Notification], error)
}

// Idempotency holds the Idempotency-Key records of the lane's writes (see
// idempotency.go). BeginIdempotent claims key (started true) or returns
// its record; FinishIdempotent stores the answer of the request that made
// the claim Begin returned; ReleaseIdempotent forgets that unfinished claim
// so a retry runs for real. Both leave a claim taken over since alone. A
// claim is held lease from now, and RenewIdempotent holds it longer while
// its request lives; one past its hold is taken over. A record older than
// keepFor is expired and claimed afresh.
type Idempotency interface {
	BeginIdempotent(ctx context.Context, key, requestHash string, now time.Time, lease, keepFor time.Duration) (rec IdempotentRecord, started bool, err error)
	RenewIdempotent(ctx context.Context, claim IdempotentRecord, until time.Time) (held bool, err error)
	FinishIdempotent(ctx context.Context, claim IdempotentRecord, status int, body []byte) error
	ReleaseIdempotent(ctx context.Context, claim IdempotentRecord) error
}
