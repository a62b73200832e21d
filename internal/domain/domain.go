// Package domain holds the studio's data as the lane returns it. JSON names
// are the lane's wire names. Dates without a time ("2026-03-01") are strings
// in ISO form; instants are time.Time and travel as RFC 3339 in UTC.
package domain

import (
	"encoding/json"
	"time"

	"github.com/otherwise/perform/internal/money"
)

// Tier is a studio's plan with Perform, and the limits that come with it.
type Tier struct {
	Name              string `json:"name"`
	MaxActiveTrainees int    `json:"maxActiveTrainees"`
	MaxAPIKeys        int    `json:"maxApiKeys"`
}

// Tiers are the plans a studio can be on. "free" is the default.
var Tiers = map[string]Tier{
	"free":     {Name: "free", MaxActiveTrainees: 25, MaxAPIKeys: 3},
	"pro":      {Name: "pro", MaxActiveTrainees: 500, MaxAPIKeys: 10},
	"business": {Name: "business", MaxActiveTrainees: 1_000_000, MaxAPIKeys: 50},
}

type Studio struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Slug      string          `json:"slug"`
	Region    string          `json:"region"`
	Tier      string          `json:"tier"`
	Settings  json.RawMessage `json:"settings,omitempty"`
	CreatedAt time.Time       `json:"createdAt"`
}

// Limits returns the studio's tier limits (the free tier's for an unknown tier).
func (s Studio) Limits() Tier {
	if t, ok := Tiers[s.Tier]; ok {
		return t
	}
	return Tiers["free"]
}

type Coach struct {
	ID           string     `json:"id"`
	Name         string     `json:"name"`
	Phone        *string    `json:"phone"`
	Email        *string    `json:"email"`
	Gender       *string    `json:"gender,omitempty"` // female, male or other; left out when not given
	Active       bool       `json:"active"`
	LastActiveAt *time.Time `json:"lastActiveAt"`
	CreatedAt    time.Time  `json:"createdAt"`
}

type Tag struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	CreatedAt time.Time `json:"createdAt"`
}

// Trainee statuses.
const (
	TraineeActive   = "active"
	TraineePaused   = "paused"
	TraineeArchived = "archived"
)

type Trainee struct {
	ID        string    `json:"id"`
	FirstName string    `json:"firstName"`
	LastName  string    `json:"lastName"`
	Phone     string    `json:"phone"` // E.164
	Email     *string   `json:"email"`
	BirthDate *string   `json:"birthDate"`
	Gender    *string   `json:"gender"`
	HeightCm  *float64  `json:"heightCm"`
	WeightKg  *float64  `json:"weightKg"`
	Goal      *string   `json:"goal"`
	StepsGoal *int      `json:"stepsGoal"`
	Status    string    `json:"status"`
	Tags      []string  `json:"tags"`     // tag names, sorted
	CoachIDs  []string  `json:"coachIds"` // sorted
	StartedOn *string   `json:"startedOn"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// Product is a plan a studio sells. A nil Price means the price is set per
// trainee; a nil DurationDays means open-ended until cancelled. Price is in
// minor units of Currency (Price.Currency is always Currency) and travels
// as a number in major units (349.9).
type Product struct {
	ID           string       `json:"id"`
	Name         string       `json:"name"`
	Price        *money.Money `json:"price"`
	Currency     string       `json:"currency"`
	DurationDays *int         `json:"durationDays"`
	Active       bool         `json:"active"`
	// Kind is package, membership or other (PlanPackage …). A package
	// holds Sessions in all, valid ValidDays from its subscription's start
	// (nil: no expiry); a membership holds Sessions a week (nil:
	// unlimited) for a Period (week or month) that renews while AutoRenew.
	Kind      string    `json:"kind"`
	Sessions  *int      `json:"sessions"`
	ValidDays *int      `json:"validDays"`
	Period    *string   `json:"period"`
	AutoRenew bool      `json:"autoRenew"`
	CreatedAt time.Time `json:"createdAt"`
}

// Plan kinds and membership periods.
const (
	PlanPackage    = "package"
	PlanMembership = "membership"
	PlanOther      = "other"

	PeriodWeek  = "week"
	PeriodMonth = "month"
)

// Subscription statuses. Stored state is one of active, frozen or cancelled;
// scheduled, live and ended are read off the dates of an active one.
const (
	SubScheduled = "scheduled"
	SubLive      = "live"
	SubFrozen    = "frozen"
	SubCancelled = "cancelled"
	SubEnded     = "ended"
)

// Subscription is a trainee's plan. EndsOn is the last day of the plan
// (inclusive); nil means open-ended.
type Subscription struct {
	ID          string       `json:"id"`
	TraineeID   string       `json:"traineeId"`
	ProductID   string       `json:"productId"`
	ProductName string       `json:"productName"`
	StartedOn   string       `json:"startedOn"`
	EndsOn      *string      `json:"endsOn"`
	Price       *money.Money `json:"price"` // in Currency, as a Product's
	Currency    string       `json:"currency"`
	Status      string       `json:"status"`
	CreatedAt   time.Time    `json:"createdAt"`
	// PaymentState, SessionsUsed, SessionsLeft and ExpiresOn are a
	// package's or membership's billing beside its status (PaymentState),
	// filled where the reader may see billing; left out otherwise.
	PaymentState string  `json:"paymentState,omitempty"`
	SessionsUsed *int    `json:"sessionsUsed,omitempty"`
	SessionsLeft *int    `json:"sessionsLeft,omitempty"`
	ExpiresOn    *string `json:"expiresOn,omitempty"`
}

type ProgramTemplate struct {
	ID          string  `json:"id"`
	Name        string  `json:"name"`
	Description *string `json:"description"`
	Weeks       *int    `json:"weeks"`
	// Structure is the template's phases, weeks, days and exercises; nil
	// for a template that is only a name.
	Structure *ProgramStructure `json:"structure,omitempty"`
	CreatedAt time.Time         `json:"createdAt"`
}

// Program statuses.
const (
	ProgramActive   = "active"
	ProgramReplaced = "replaced"
)

type Program struct {
	ID         string    `json:"id"`
	TraineeID  string    `json:"traineeId"`
	TemplateID string    `json:"templateId"`
	Name       string    `json:"name"`
	StartsOn   string    `json:"startsOn"`
	Status     string    `json:"status"`
	CreatedAt  time.Time `json:"createdAt"`
}

// FormField is one question of a form template.
type FormField struct {
	Key      string   `json:"key"`
	Label    string   `json:"label"`
	Type     string   `json:"type"` // text, number, date, choice, scale
	Required bool     `json:"required,omitempty"`
	Options  []string `json:"options,omitempty"`
}

type FormTemplate struct {
	ID          string      `json:"id"`
	Name        string      `json:"name"`
	Description *string     `json:"description"`
	Fields      []FormField `json:"fields"`
	CreatedAt   time.Time   `json:"createdAt"`
}

// FormAssignment is a form sent to a trainee. Notify nil means the periodic
// notifier announces it once; false means it is never announced.
type FormAssignment struct {
	ID             string          `json:"id"`
	TraineeID      string          `json:"traineeId"`
	FormTemplateID string          `json:"formTemplateId"`
	FormName       string          `json:"formName"`
	DueAt          *time.Time      `json:"dueAt"`
	Prompt         *string         `json:"prompt"`
	Notify         *bool           `json:"notify"`
	FieldValues    json.RawMessage `json:"fieldValues,omitempty"`
	Status         string          `json:"status"` // pending, completed
	AnnouncedAt    *time.Time      `json:"announcedAt"`
	CreatedAt      time.Time       `json:"createdAt"`
}

type FormResponse struct {
	ID             string          `json:"id"`
	TraineeID      string          `json:"traineeId"`
	FormTemplateID string          `json:"formTemplateId"`
	FormName       string          `json:"formName"`
	AssignmentID   *string         `json:"assignmentId"`
	Answers        json.RawMessage `json:"answers"`
	SubmittedAt    time.Time       `json:"submittedAt"`
	LoggedBy       string          `json:"-"` // LoggedByTrainee or LoggedByCoach
}

type Weight struct {
	ID         string    `json:"id"`
	TraineeID  string    `json:"traineeId"`
	WeightKg   float64   `json:"weightKg"`
	RecordedAt time.Time `json:"recordedAt"`
	CreatedAt  time.Time `json:"createdAt"`
	LoggedBy   string    `json:"-"` // LoggedByTrainee or LoggedByCoach
}

// Task statuses.
const (
	TaskOpen    = "open"
	TaskDone    = "done"
	TaskSnoozed = "snoozed"
)

// Task is a to-do for a coach. ClientID is the trainee it concerns.
type Task struct {
	ID          string     `json:"id"`
	Title       string     `json:"title"`
	ClientID    *string    `json:"clientId"`
	Detail      *string    `json:"detail"`
	DueAt       *time.Time `json:"dueAt"`
	Priority    int        `json:"priority"`
	CoachID     *string    `json:"coachId"`
	Status      string     `json:"status"`
	SnoozeUntil *time.Time `json:"snoozeUntil"`
	Source      string     `json:"source"`
	CreatedAt   time.Time  `json:"createdAt"`
	UpdatedAt   time.Time  `json:"updatedAt"`
}

// APIKey is a studio key as stored: only its hash and display prefix.
type APIKey struct {
	ID         string     `json:"id"`
	StudioID   string     `json:"studioId"`
	Name       string     `json:"name"`
	Prefix     string     `json:"prefix"`
	Kind       string     `json:"kind"`   // auth.KindStudioKey or auth.KindPlatformKey; empty at creation: a studio key
	Scopes     []string   `json:"scopes"` // what the key may do (auth.StudioScopes); empty at creation: the default
	Hash       []byte     `json:"-"`
	CreatedAt  time.Time  `json:"createdAt"`
	LastUsedAt *time.Time `json:"lastUsedAt"`
	RevokedAt  *time.Time `json:"revokedAt"`
}

// Sources of a request, as the audit and the outbox record them.
const (
	SourceAPI   = "api"
	SourceMCP   = "mcp"
	SourceAgent = "agent"
	// SourceWhatsApp is a trainee's own turn on the WhatsApp assistant.
	SourceWhatsApp = "whatsapp"
	SourceJob      = "job"
	SourceCLI      = "cli" // the operator's perform commands (key create)
)

type AuditEvent struct {
	ID           string  `json:"id"`
	StudioID     string  `json:"studioId"`
	CredentialID string  `json:"credentialId"`
	Method       string  `json:"method"`
	Route        string  `json:"route"`
	ResourceID   string  `json:"resourceId"`
	Status       int     `json:"status"`
	DurationMs   float64 `json:"durationMs"`
	RequestID    string  `json:"requestId"`
	Source       string  `json:"source"`
	// Conversation is the agent platform's claims about the end user on a
	// platform key's call (auth.Conversation as JSON), else empty.
	Conversation json.RawMessage `json:"conversation,omitempty"`
	At           time.Time       `json:"at"`
}

// Notification kinds: every push that would reach a trainee.
const (
	NotifyWelcome         = "welcome"
	NotifyWhatsAppInvite  = "whatsapp_invite"
	NotifyPlanAssigned    = "plan_assigned"
	NotifyProgramAssigned = "program_assigned"
	NotifyFormAssigned    = "form_assigned"
	NotifyMessage         = "message"
	NotifyFreeze          = "freeze"
)

// Notification is one row of the outbox.
type Notification struct {
	ID        string          `json:"id"`
	TraineeID string          `json:"traineeId"`
	Kind      string          `json:"kind"`
	Source    string          `json:"source"`
	Payload   json.RawMessage `json:"payload,omitempty"`
	CreatedAt time.Time       `json:"createdAt"`
}

// Derive replaces a stored "active" state with scheduled, live or ended,
// read off the dates against today ("YYYY-MM-DD").
func (s *Subscription) Derive(today string) {
	if s.Status != "active" {
		return
	}
	switch {
	case s.StartedOn > today:
		s.Status = SubScheduled
	case s.EndsOn != nil && *s.EndsOn < today:
		s.Status = SubEnded
	default:
		s.Status = SubLive
	}
}
