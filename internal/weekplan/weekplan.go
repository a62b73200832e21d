// Package weekplan drafts a trainee's training week from what Perform knows of
// her: the days and minutes she has, her equipment, her injuries, her
// program's phase, four weeks of logged sets and her readiness.
//
// The pipeline has three parts, and only the middle one may ask a model:
//
//  1. The core (plain Go): the allowed exercises (equipment she has, her
//     level, her health conditions' rules, no exercise that loads an
//     injured area but the rehabilitation an injury's kind allows), each
//     exercise's prescription by a progression rule (double progression, an
//     RPE target or a linear step with a failure ladder) held to one load
//     table (the RTS RPE chart, table.go) over her trusted estimated 1RM,
//     her sport's sessions in minutes within +10% of her logged volume, the
//     deload (on schedule, on stalled main lifts, on poor readiness), and a
//     complete week built from these alone: her program's planned sessions
//     adjusted in place when she has them, each session filled to her
//     minutes. Loads always come from the rules.
//  2. A model, when one is configured, lays the week out: one call with a
//     strict tool whose enums are the allowed exercise ids and the available
//     days; it chooses days, order, substitutions within the allowed set and
//     short notes in the studio's language. The core then prescribes every
//     exercise it chose.
//  3. The validator checks the result before anything is saved; one repair
//     round gives the model its sentences, and a plan that still fails is
//     replaced by the core's own week, marked as the fallback.
//
// The package reads nothing and writes nothing: the lane gives it the
// trainee's records and stores the draft it returns.
package weekplan

import (
	"time"

	"github.com/otherwise/perform/internal/domain"
)

// PromptVersion names the brief and tool the model is given; it is kept
// with every draft, so a plan can be traced to the words that made it.
const PromptVersion = "weekly-plan/3"

// The progression rules a coach or a program may choose.
const (
	RuleDouble = "double_progression" // reps up within a range, then load up
	RuleRPE    = "rpe"                // load from e1RM and an RPE table
	RuleLinear = "linear"             // a fixed step each week, a failure ladder
)

// Rules are the rules in the order the tools list them.
var Rules = []string{RuleDouble, RuleRPE, RuleLinear}

// Adjustment kinds: why the week differs from a plain progression.
const (
	AdjustInjury       = "injury"
	AdjustReadiness    = "readiness"
	AdjustOverreaching = "overreaching"
	AdjustDeload       = "deload"
	AdjustStall        = "stall"
	AdjustReturn       = "return"
	AdjustAge          = "age"
	AdjustCondition    = "condition" // a health condition's rules (never her words)
	AdjustLevel        = "level"     // exercises beyond her experience left out
	AdjustData         = "data"      // logged sets the estimates could not trust
	AdjustSport        = "sport"     // her sport's sessions and their volume
	AdjustGoal         = "goal"      // what her goal adds (conditioning for fat loss)
	AdjustProgram      = "program"   // her program's planned sessions, adjusted in place
	AdjustRehab        = "rehab"     // rehabilitation exercises an injury's kind allows
	AdjustBooked       = "booked"    // booked appointments kept as fixed days
)

// Input is what the lane knows of the trainee and her week.
type Input struct {
	Today     string // the studio's local day, YYYY-MM-DD
	WeekStart string // the first day of the planned week (FirstDay)
	// FirstDay is the studio's first day of the week (training.StartOfWeek);
	// WeekStart must fall on it. The zero value is Sunday: callers set it.
	FirstDay time.Weekday
	// Days are the ISO weekdays she can train (1 Monday … 7 Sunday).
	Days []int
	// Minutes is the longest a session may take.
	Minutes int
	// Equipment is what she trains with; "none" is always there.
	Equipment  []string
	Experience string // beginner, intermediate or advanced ("" → beginner)
	Age        *int
	// Rule chooses the progression; "" lets the experience choose.
	Rule     string
	Injuries []domain.Injury // active and recovering
	// Program is her active program's position, when she has one.
	Program *Program
	// History is her completed sessions of the 4 weeks before WeekStart
	// (and any of its days already done), with their sets.
	History  []domain.Session
	CheckIns []domain.CheckIn // the 14 days before Today, and Today
	// Exercises resolves an exercise id: the catalogue, and the studio's own.
	Exercises []domain.Exercise
	Language  string // "he" or "en" for the notes; "" means "he"
	// Gender is the trainee's ("female", "male" or "" unknown): the
	// Hebrew notes read her in it.
	Gender string
	// Sport and Goal are her profile's (domain.Sports, domain.TrainingGoals).
	Sport string
	Goal  string
	// Conditions are her health conditions (domain.HealthConditions).
	Conditions []string
	// SeniorAge is the studio's age from which the senior rules apply (0: 60).
	SeniorAge int
	// Planned are the sessions already on her calendar in the planned week
	// (her active program's): the plan adjusts these in place.
	Planned []domain.Session
	// Booked are her appointments in the planned week, in the studio's
	// time: each day holding one booked (or attended) is a fixed training
	// day, whatever her Days say; a waitlisted or cancelled one is not.
	Booked []Appointment
}

// Appointment is a booked appointment as the plan reads it: its day and
// local start in the studio's time zone.
type Appointment struct {
	ID      string
	Date    string // the studio's local day, YYYY-MM-DD
	Start   string // local start, HH:MM
	Minutes int    // its length
	With    string // the coach's name, or the place ("" neither)
	Status  string // domain.AppointmentBooked or AppointmentAttended
}

// Program is where the trainee's active program stands in the planned week.
type Program struct {
	Name  string
	Phase string // the structure's phase name ("" without one)
	Week  int    // the program's week, 1 the first
}

// Plan is a week of sessions.
type Plan struct {
	WeekStart string    `json:"weekStart"`
	Rule      string    `json:"rule"`
	Deload    bool      `json:"deload"`
	Sessions  []Session `json:"sessions"`
	// HardSets is the week's working sets, and the last full week's logged.
	HardSets     int `json:"hardSets"`
	LastHardSets int `json:"lastWeekHardSets"`
	// Adjustments say what was changed and why (injury, readiness …).
	Adjustments []Adjustment `json:"adjustments"`
	Summary     string       `json:"summary"`
}

// Session is one planned day.
type Session struct {
	// PlannedID is the id of the planned session this one adjusts in place
	// ("" for a session the plan adds).
	PlannedID   string `json:"plannedId,omitempty"`
	Date        string `json:"date"`
	Weekday     int    `json:"weekday"`
	Title       string `json:"title"`
	DurationMin int    `json:"durationMin"` // estimated, warm-up included
	Items       []Item `json:"exercises"`
	Note        string `json:"note,omitempty"`
}

// Item is one exercise with its prescription. Every working set carries an
// intensity: RIR, RPE or a percentage of 1RM.
type Item struct {
	ExerciseID string `json:"exerciseId"`
	Name       string `json:"name"`
	Sets       int    `json:"sets"`
	Reps       int    `json:"reps,omitempty"`
	RepsMax    int    `json:"repsMax,omitempty"` // the top of a rep range (double progression)
	Seconds    int    `json:"seconds,omitempty"`
	// Minutes and DistanceKm prescribe an endurance item (a run, a ride, a swim).
	Minutes     int      `json:"minutes,omitempty"`
	DistanceKm  *float64 `json:"distanceKm,omitempty"`
	LoadKg      *float64 `json:"loadKg,omitempty"`
	Percent1RM  *float64 `json:"percent1RM,omitempty"`
	RPE         *float64 `json:"rpe,omitempty"`
	RIR         *int     `json:"rir,omitempty"`
	RestSeconds int      `json:"restSeconds"`
	// Basis says where the load comes from, in a few words.
	Basis string `json:"basis"`
	Note  string `json:"note,omitempty"`
	pad   bool   // added by the core to fill the session to her minutes
}

// Adjustment is one change to the plain progression and its reason.
type Adjustment struct {
	Kind      string   `json:"kind"`
	Reason    string   `json:"reason"`
	Exercises []string `json:"exercises,omitempty"` // ids avoided or changed
	// forModel is the reason as the model is given it, when it differs:
	// a health condition's rules without the condition's name.
	forModel string
}

// Report is how the plan was made and what the validator found.
type Report struct {
	Valid bool `json:"valid"`
	// Problems are the validator's sentences about the plan as saved
	// (none when valid); Repaired lists those the repair round fixed.
	Problems []string `json:"problems"`
	Repaired []string `json:"repaired,omitempty"`
	Fallback bool     `json:"fallback"`
	// FallbackReason says why the core's own week was used.
	FallbackReason string  `json:"fallbackReason,omitempty"`
	Model          string  `json:"model,omitempty"`
	PromptVersion  string  `json:"promptVersion"`
	ModelCalls     int     `json:"modelCalls"`
	InputTokens    int64   `json:"inputTokens,omitempty"`
	OutputTokens   int64   `json:"outputTokens,omitempty"`
	CostUSD        float64 `json:"costUsd,omitempty"`
}
