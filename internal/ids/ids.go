// Package ids makes and reads Perform's public ids. An id is a short prefix
// that names its kind, an underscore and 26 lowercase base32 characters
// (48 bits of milliseconds then 80 random bits), so ids sort roughly by
// creation and an error can say what kind of id the caller passed.
package ids

import (
	"crypto/rand"
	"encoding/base32"
	"encoding/binary"
	"strings"
	"time"
)

// Kind is the prefix of an id.
type Kind string

// The kinds of id Perform hands out.
const (
	Studio          Kind = "std"
	Coach           Kind = "coa"
	Tag             Kind = "tag"
	Trainee         Kind = "trn"
	Product         Kind = "prd"
	Subscription    Kind = "sub"
	ProgramTemplate Kind = "ptm"
	Program         Kind = "prg"
	FormTemplate    Kind = "frm"
	FormAssignment  Kind = "fas"
	FormResponse    Kind = "frs"
	Weight          Kind = "wgt"
	Task            Kind = "tsk"
	APIKey          Kind = "key"
	Audit           Kind = "aud"
	Notification    Kind = "ntf"
	Request         Kind = "req"
	AgentMessage    Kind = "amg"
	AgentProposal   Kind = "apr"
	Exercise        Kind = "exr"
	Session         Kind = "ses"
	Benchmark       Kind = "bmk"
	BenchmarkEntry  Kind = "bme"
	Measurement     Kind = "msr"
	CheckIn         Kind = "chk"
	Injury          Kind = "inj"
	Goal            Kind = "gol"
	Feedback        Kind = "fbk"
	PlanDraft       Kind = "pld"
	OAuthClient     Kind = "ocl"
	OAuthGrant      Kind = "ogr"
	Slot            Kind = "slt"
	Appointment     Kind = "apt"
	CreditUse       Kind = "cru"
	Charge          Kind = "chg"
	Payment         Kind = "pay"
	PaymentEvent    Kind = "pev"
)

// kinds maps each kind to the noun a person would use and the tool that
// lists valid ids of that kind.
var kinds = map[Kind]struct{ noun, source string }{
	Studio:          {"studio", "GET /validate"},
	Coach:           {"coach", "list_coaches"},
	Tag:             {"tag", "list_tags"},
	Trainee:         {"trainee", "search_trainees"},
	Product:         {"plan", "list_plans"},
	Subscription:    {"subscription", "list_trainee_subscriptions"},
	ProgramTemplate: {"program template", "list_program_templates"},
	Program:         {"program", "list_trainee_programs"},
	FormTemplate:    {"form", "list_forms"},
	FormAssignment:  {"form assignment", "send_form"},
	FormResponse:    {"form response", "list_trainee_form_responses"},
	Weight:          {"weight entry", "list_trainee_weights"},
	Task:            {"task", "list_tasks"},
	APIKey:          {"API key", "GET /keys"},
	Audit:           {"audit event", "perform audit"},
	Notification:    {"notification", "GET /notifications"},
	Request:         {"request", ""},
	AgentMessage:    {"agent message", ""},
	AgentProposal:   {"assistant proposal", ""},
	Exercise:        {"exercise", "search_exercises"},
	Session:         {"session", "list_trainee_sessions"},
	Benchmark:       {"benchmark", "get_trainee_benchmarks"},
	BenchmarkEntry:  {"benchmark entry", "get_trainee_benchmarks"},
	Measurement:     {"measurement", "GET /trainees/{id}/measurements"},
	CheckIn:         {"check-in", "list_trainee_checkins"},
	Injury:          {"injury", "get_trainee_overview"},
	Goal:            {"goal", "get_trainee_overview"},
	Feedback:        {"feedback", "GET /feedback"},
	PlanDraft:       {"weekly plan draft", "draft_weekly_plan"},
	OAuthClient:     {"OAuth client", "perform oauth client add"},
	OAuthGrant:      {"connected app", "the connected apps page"},
	Slot:            {"appointment slot", "list_appointment_slots"},
	Appointment:     {"appointment", "list_appointments"},
	CreditUse:       {"credit use", "get_trainee_billing"},
	Charge:          {"charge", "get_trainee_billing"},
	Payment:         {"payment", "list_payments"},
	PaymentEvent:    {"payment event", "GET /payment-events"},
}

const alphabet = "0123456789abcdefghjkmnpqrstvwxyz"

var enc = base32.NewEncoding(alphabet).WithPadding(base32.NoPadding)

// encodedLen is the length of an id after its prefix and underscore.
var encodedLen = enc.EncodedLen(16)

// New returns a fresh id of the given kind.
func New(k Kind) string { return newAt(k, time.Now()) }

// newAt is New at the instant t.
func newAt(k Kind, t time.Time) string {
	var b [16]byte
	ms := uint64(t.UnixMilli())
	binary.BigEndian.PutUint64(b[:8], ms<<16)
	_, _ = rand.Read(b[6:])
	return string(k) + "_" + enc.EncodeToString(b[:])
}

// KindOf returns the kind an id claims by its prefix, and whether that
// prefix is one Perform uses.
func KindOf(id string) (Kind, bool) {
	prefix, _, ok := strings.Cut(id, "_")
	if !ok {
		return "", false
	}
	k := Kind(prefix)
	_, known := kinds[k]
	return k, known
}

// Is reports whether id carries kind k's prefix.
func Is(id string, k Kind) bool {
	return len(id) > len(k)+1 && strings.HasPrefix(id, string(k)) && id[len(k)] == '_'
}

// Valid reports whether id is an id of kind k as New makes them: the
// prefix, an underscore and 26 characters of the id alphabet. A path or
// input id that is not Valid names nothing, so it is "not found" without a
// query (and never reaches a database or a log as it was sent).
func Valid(id string, k Kind) bool {
	if !Is(id, k) || len(id) != len(k)+1+encodedLen {
		return false
	}
	for i := len(k) + 1; i < len(id); i++ {
		if !strings.ContainsRune(alphabet, rune(id[i])) {
			return false
		}
	}
	return true
}

// Noun is how a person calls the kind ("trainee", "plan").
func (k Kind) Noun() string { return kinds[k].noun }

// Source is the tool or endpoint that lists valid ids of the kind.
func (k Kind) Source() string { return kinds[k].source }

// Kinds are every kind Perform hands out, in no set order (the scrubber
// finds ids of all of them inside text).
func Kinds() []Kind {
	out := make([]Kind, 0, len(kinds))
	for k := range kinds {
		out = append(out, k)
	}
	return out
}
