// Package answers holds the lane's answers that are more than one domain
// record: what a write did beside the record it stored. The route that
// answers one returns its type here, and a reader of the answer (the
// WhatsApp assistant's receipts) decodes into the same type, so a field
// renamed is renamed for both. An answer that is one record is that
// record's domain type.
//
// It imports only domain and training, so any reader may import it.
package answers

import (
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/training"
)

// AssignedProgram is the answer of assigning a program
// (POST /trainees/{id}/programs/assign).
type AssignedProgram struct {
	domain.Program
	// SessionsPlanned is how many planned sessions the template's structure
	// laid out (0 for a template without one), first to last.
	SessionsPlanned int     `json:"sessionsPlanned"`
	FirstSessionOn  *string `json:"firstSessionOn"`
	LastSessionOn   *string `json:"lastSessionOn"`
	// SessionsRemoved counts the replaced programs' planned sessions removed.
	SessionsRemoved int `json:"sessionsRemoved"`
}

// LoggedWorkout is the answer of logging a workout
// (POST /trainees/{id}/workouts).
type LoggedWorkout struct {
	Session domain.Session `json:"session"`
	// AlreadyLogged: the trainee already had a completed session of that
	// date, sport and duration; it is answered and nothing was written.
	AlreadyLogged bool             `json:"alreadyLogged"`
	PRs           []PersonalRecord `json:"prs" jsonschema:"The exercises whose best estimated 1RM of this session (Epley, sets of 1 to 12 reps) beat the trainee's benchmark; each is a new benchmark entry."`
}

// PersonalRecord is a set of a logged workout that beat the trainee's
// benchmark of its exercise.
type PersonalRecord struct {
	BenchmarkID  string   `json:"benchmarkId"`
	Name         string   `json:"name"`
	ExerciseID   string   `json:"exerciseId"`
	E1RMKg       float64  `json:"e1rmKg"`
	LoadKg       float64  `json:"loadKg"`
	Reps         int      `json:"reps"`
	PreviousBest *float64 `json:"previousBest" jsonschema:"The benchmark's best before; null when this is its first value."`
}

// CheckIn is the answer of a daily check-in (POST /trainees/{id}/check-ins).
type CheckIn struct {
	domain.CheckIn
	Updated bool `json:"updated" jsonschema:"true when the trainee had checked in that day already and this updated it (the fields sent replace theirs)."`
}

// Injury is an injury and, unless resolved, what it means for the
// trainee's planned sessions (POST /trainees/{id}/injuries,
// PATCH /injuries/{id}).
type Injury struct {
	domain.Injury
	Guidance *training.Guidance `json:"guidance,omitempty" jsonschema:"Unless resolved: the planned exercises of the next 14 days that load the area or that the injury names, each with the catalogue's alternatives that spare the area."`
}

// Triage is a page of the trainees who need a coach now, with a sentence
// over all of it (GET /trainees/needs-attention).
type Triage struct {
	Summary    string               `json:"summary" jsonschema:"How many need attention, and for which reasons, over the whole list (not only this page)."`
	Active     int                  `json:"activeTrainees" jsonschema:"The active trainees asked about (the coach's or the studio's)."`
	Counts     map[string]int       `json:"counts" jsonschema:"Reason code to how many of the whole list have it."`
	Items      []training.Attention `json:"items" jsonschema:"Most urgent first: score is the sum of the reasons' severities (low_readiness 90, active_injury 80, plan_ended 75, no_recent_session 60, missed_sessions 55, plan_ending 50, weight_off_goal 40, overdue_tasks 35, form_past_due 30, feedback 25)."`
	Total      int                  `json:"total"`
	NextOffset *int                 `json:"nextOffset" jsonschema:"The offset of the next page; null on the last page."`
	Fine       []FineTrainee        `json:"fine,omitempty" jsonschema:"With tag: the tagged trainees who need nothing now, with their last completed session's day."`
}

// FineTrainee is a trainee of the asked tag who needs nothing now.
type FineTrainee struct {
	TraineeID       string  `json:"traineeId"`
	Name            string  `json:"name"`
	LastCompletedOn *string `json:"lastCompletedOn"`
}
