package domain

import (
	"encoding/json"
	"time"
)

// The training memory: what a trainee did, plans to do, measures and feels.
// The lane stores kilograms, metres, seconds and minutes; a trainee's
// preferred units are for display only.

// Exercise categories.
const (
	CategoryStrength     = "strength"
	CategoryCardio       = "cardio"
	CategoryMobility     = "mobility"
	CategoryPlyometric   = "plyometric"
	CategoryCore         = "core"
	CategoryConditioning = "conditioning"
)

// How an exercise is measured.
const (
	MeasureRepsLoad = "reps_load" // reps × kg
	MeasureReps     = "reps"      // reps only (body weight)
	MeasureTime     = "time"      // seconds
	MeasureDistance = "distance"  // metres (and usually time)
)

// BodyAreas is the fixed list of areas an injury, a soreness report or an
// exercise's load names.
var BodyAreas = []string{
	"neck", "shoulder", "upper_back", "lower_back", "chest", "elbow", "wrist", "hand",
	"abdomen", "hip", "groin", "glute", "hamstring", "quadriceps", "knee", "calf", "shin", "ankle", "foot",
}

// Exercise is one entry of the catalogue: Perform's own (ID a slug such as
// "back-squat", Custom false) or a studio's (ID exr_…, Custom true).
type Exercise struct {
	ID           string   `json:"id"`
	Name         string   `json:"name"`
	NameHe       string   `json:"nameHe"`
	Aliases      []string `json:"aliases"`
	Category     string   `json:"category"`
	Primary      []string `json:"primaryMuscles"`
	Secondary    []string `json:"secondaryMuscles"`
	Equipment    []string `json:"equipment"`
	Unilateral   bool     `json:"unilateral"`
	Measure      string   `json:"measure"`
	Loads        []string `json:"loadsAreas"`   // BodyAreas this exercise loads
	Alternatives []string `json:"alternatives"` // exercise ids: same pattern, other equipment
	// Pattern is the exercise's movement pattern (MovementPatterns) and
	// Level the least experience it asks for (beginner, intermediate,
	// advanced; "" counts as beginner).
	Pattern   string     `json:"pattern,omitempty"`
	Level     string     `json:"level,omitempty"`
	Custom    bool       `json:"custom"`
	CreatedAt *time.Time `json:"createdAt,omitempty"`
}

// ExerciseTarget is what a planned exercise asks for. Load is one of LoadKg,
// PercentRM, or an effort (RPE or RIR); cardio asks for Seconds or Metres.
type ExerciseTarget struct {
	Sets        *int     `json:"sets,omitempty"`
	Reps        *int     `json:"reps,omitempty"`
	LoadKg      *float64 `json:"loadKg,omitempty"`
	PercentRM   *float64 `json:"percent1RM,omitempty"`
	RPE         *float64 `json:"rpe,omitempty"`
	RIR         *int     `json:"rir,omitempty"`
	RestSeconds *int     `json:"restSeconds,omitempty"`
	Tempo       *string  `json:"tempo,omitempty"`
	Seconds     *int     `json:"seconds,omitempty"`
	Metres      *float64 `json:"metres,omitempty"`
}

// PlannedExercise is one exercise of a program day.
type PlannedExercise struct {
	ExerciseID string         `json:"exerciseId"`
	Name       string         `json:"name"`
	Target     ExerciseTarget `json:"target"`
	Notes      *string        `json:"notes,omitempty"`
}

// ProgramDay is one session of a program week. Weekday is ISO (1 Monday …
// 7 Sunday); without it the trainee's availability, then Mon/Wed/Fri…,
// gives the day.
type ProgramDay struct {
	Weekday     *int              `json:"weekday,omitempty"`
	Title       string            `json:"title"`
	Sport       string            `json:"sport"`
	DurationMin *int              `json:"durationMin,omitempty"`
	Exercises   []PlannedExercise `json:"exercises"`
}

// ProgramWeek is one week of a phase.
type ProgramWeek struct {
	Days []ProgramDay `json:"days"`
}

// ProgramPhase is a block of weeks with one focus (base, build, peak, deload…).
type ProgramPhase struct {
	Name  string        `json:"name"`
	Focus *string       `json:"focus,omitempty"`
	Weeks []ProgramWeek `json:"weeks"`
}

// ProgramStructure is a template's phases → weeks → days → exercises.
type ProgramStructure struct {
	Phases []ProgramPhase `json:"phases"`
}

// Session statuses and sources.
const (
	SessionPlanned   = "planned"
	SessionCompleted = "completed"
	SessionSkipped   = "skipped"
	SessionMissed    = "missed"

	SessionFromProgram = "program"
	SessionFromCoach   = "coach"
	SessionFromTrainee = "trainee"
)

// Who logged a record a trainee may withdraw soon after (a weigh-in, a
// measurement, a check-in, a form's answers; a session says it in its
// Source): the trainee herself, or the studio (a coach, a studio key, the
// assistant for a coach). Only its author withdraws it; a record from
// before authors were kept has none, and is nobody's to withdraw.
const (
	LoggedByTrainee = SessionFromTrainee
	LoggedByCoach   = SessionFromCoach
)

// SetEntry is one performed set.
type SetEntry struct {
	Reps    *int     `json:"reps,omitempty"`
	LoadKg  *float64 `json:"loadKg,omitempty"`
	RIR     *float64 `json:"rir,omitempty"`
	RPE     *float64 `json:"rpe,omitempty"`
	Seconds *int     `json:"seconds,omitempty"`
	Metres  *float64 `json:"metres,omitempty"`
	Done    bool     `json:"done"`
}

// SessionExercise is one exercise of a session: its target (when planned)
// and the sets actually done.
type SessionExercise struct {
	ExerciseID string          `json:"exerciseId"`
	Name       string          `json:"name"`
	Target     *ExerciseTarget `json:"target,omitempty"`
	Sets       []SetEntry      `json:"sets"`
	Notes      *string         `json:"notes,omitempty"`
}

// SessionTotals are computed from a session's done sets.
type SessionTotals struct {
	VolumeKg float64 `json:"volumeKg"` // Σ reps × loadKg
	Sets     int     `json:"sets"`
	Reps     int     `json:"reps"`
	Seconds  int     `json:"seconds"`
	Metres   float64 `json:"metres"`
}

// Session is one workout: planned, completed, skipped or missed. Date is
// the trainee's local day (the studio's time zone).
type Session struct {
	ID          string            `json:"id"`
	TraineeID   string            `json:"traineeId"`
	ProgramID   *string           `json:"programId"`
	Date        string            `json:"date"`
	StartTime   *string           `json:"startTime"` // HH:MM local
	Sport       string            `json:"sport"`
	Title       string            `json:"title"`
	Status      string            `json:"status"`
	Source      string            `json:"source"`
	DurationMin *int              `json:"durationMin"`
	RPE         *int              `json:"rpe"` // session RPE 1–10
	Notes       *string           `json:"notes"`
	Feedback    *string           `json:"feedback"`
	Exercises   []SessionExercise `json:"exercises"`
	Totals      SessionTotals     `json:"totals"`
	CompletedAt *time.Time        `json:"completedAt"`
	CreatedAt   time.Time         `json:"createdAt"`
	UpdatedAt   time.Time         `json:"updatedAt"`
}

// Benchmark directions and entry sources.
const (
	HigherIsBetter = "higher"
	LowerIsBetter  = "lower"

	BenchmarkFromSession = "session" // a PR found in a logged set (Epley e1RM)
	BenchmarkFromCoach   = "coach"
	BenchmarkFromTrainee = "trainee"
)

// BenchmarkEntry is one value of a benchmark; none is ever overwritten.
type BenchmarkEntry struct {
	ID         string    `json:"id"`
	Value      float64   `json:"value"`
	RecordedAt time.Time `json:"recordedAt"`
	Source     string    `json:"source"`
	SessionID  *string   `json:"sessionId,omitempty"`
	Notes      *string   `json:"notes,omitempty"`
}

// Benchmark is a named measure of a trainee: a lift's 1RM (ExerciseID
// set), a 5 km time, max pull-ups, a custom one. Entries are oldest first.
type Benchmark struct {
	ID         string           `json:"id"`
	TraineeID  string           `json:"traineeId"`
	Name       string           `json:"name"`
	ExerciseID *string          `json:"exerciseId"`
	Unit       string           `json:"unit"`
	Direction  string           `json:"direction"`
	Entries    []BenchmarkEntry `json:"entries"`
	CreatedAt  time.Time        `json:"createdAt"`
}

// Measurement is one body measurement beyond weight; a nil field was not measured.
type Measurement struct {
	ID         string    `json:"id"`
	TraineeID  string    `json:"traineeId"`
	RecordedAt time.Time `json:"recordedAt"`
	BodyFatPct *float64  `json:"bodyFatPct"`
	WaistCm    *float64  `json:"waistCm"`
	HipsCm     *float64  `json:"hipsCm"`
	ChestCm    *float64  `json:"chestCm"`
	ArmCm      *float64  `json:"armCm"`
	ThighCm    *float64  `json:"thighCm"`
	RestingHR  *int      `json:"restingHr"`
	Notes      *string   `json:"notes"`
	CreatedAt  time.Time `json:"createdAt"`
	LoggedBy   string    `json:"-"` // LoggedByTrainee or LoggedByCoach
}

// CheckIn is a trainee's daily check-in; one per local Day.
type CheckIn struct {
	ID           string    `json:"id"`
	TraineeID    string    `json:"traineeId"`
	Day          string    `json:"day"`
	Readiness    *int      `json:"readiness"` // 1–10
	Soreness     *int      `json:"soreness"`  // 1–10
	SoreAreas    []string  `json:"soreAreas"` // BodyAreas
	SleepHours   *float64  `json:"sleepHours"`
	SleepQuality *int      `json:"sleepQuality"` // 1–5
	Mood         *int      `json:"mood"`         // 1–5
	Stress       *int      `json:"stress"`       // 1–5
	Note         *string   `json:"note"`
	CreatedAt    time.Time `json:"createdAt"`
	UpdatedAt    time.Time `json:"updatedAt"`
	// LoggedBy is who logged it first (LoggedByTrainee or LoggedByCoach);
	// an update of the day's check-in keeps it.
	LoggedBy string `json:"-"`
}

// Injury statuses and sides.
const (
	InjuryActive     = "active"
	InjuryRecovering = "recovering"
	InjuryResolved   = "resolved"
)

// InjurySides are the sides an injury can be on.
var InjurySides = []string{"left", "right", "both", "none"}

// InjuryKinds are what an injury is; the weekly plan's rules read the kind
// beside the area and the severity ("" is pain without a diagnosis).
var InjuryKinds = []string{"tendinopathy", "sprain", "strain", "fracture", "after_surgery", "pain"}

// HealthConditions are the conditions a training profile may hold. They are
// health data: read under the health scopes, and shown to a model only as
// the rules' outcomes.
var HealthConditions = []string{"hypertension", "pregnancy", "osteoporosis", "heart_condition"}

// Sports a training profile may name as her main one; "" is strength.
var Sports = []string{"strength", "running", "cycling", "swimming", "conditioning", "general"}

// TrainingGoals a training profile may name; "" is general fitness.
var TrainingGoals = []string{"strength", "hypertrophy", "fat_loss", "endurance", "general", "rehab"}

type Injury struct {
	ID                string    `json:"id"`
	TraineeID         string    `json:"traineeId"`
	Area              string    `json:"area"`     // BodyAreas
	Side              string    `json:"side"`     // InjurySides
	Severity          int       `json:"severity"` // 1–5
	Kind              string    `json:"kind"`     // InjuryKinds ("" pain)
	Status            string    `json:"status"`
	OnsetOn           string    `json:"onsetOn"`
	ResolvedOn        *string   `json:"resolvedOn"`
	AffectedExercises []string  `json:"affectedExercises"` // exercise ids
	Notes             *string   `json:"notes"`
	CreatedAt         time.Time `json:"createdAt"`
	UpdatedAt         time.Time `json:"updatedAt"`
}

// Goal kinds and statuses.
const (
	GoalBenchmark   = "benchmark"   // BenchmarkID reaching TargetValue
	GoalMeasurement = "measurement" // Measure (weightKg, bodyFatPct, waistCm…) reaching TargetValue
	GoalConsistency = "consistency" // TargetValue completed sessions a week
	GoalText        = "text"        // free text: no computed progress

	GoalActive    = "active"
	GoalCompleted = "completed"
	GoalAbandoned = "abandoned"
)

type Goal struct {
	ID          string     `json:"id"`
	TraineeID   string     `json:"traineeId"`
	Title       string     `json:"title"`
	Kind        string     `json:"kind"`
	BenchmarkID *string    `json:"benchmarkId"`
	Measure     *string    `json:"measure"`
	TargetValue *float64   `json:"targetValue"`
	Unit        *string    `json:"unit"`
	TargetDate  *string    `json:"targetDate"`
	Status      string     `json:"status"`
	CompletedAt *time.Time `json:"completedAt"`
	CreatedAt   time.Time  `json:"createdAt"`
	UpdatedAt   time.Time  `json:"updatedAt"`
}

// TrainingProfile is what a trainee trains with and how. Availability
// holds ISO weekdays (1 Monday … 7 Sunday). Onboarding lists the intake
// parts done ("profile", "availability", "equipment", "benchmarks", "goals").
type TrainingProfile struct {
	TraineeID      string    `json:"traineeId"`
	Equipment      []string  `json:"equipment"`
	Availability   []int     `json:"availability"`
	SessionMinutes *int      `json:"sessionMinutes"`
	Experience     *string   `json:"experience"` // beginner, intermediate, advanced
	Sport          string    `json:"sport"`      // Sports ("" strength)
	Goal           string    `json:"goal"`       // TrainingGoals ("" general)
	Conditions     []string  `json:"conditions"` // HealthConditions
	Units          string    `json:"units"`      // metric, imperial (display only)
	Onboarding     []string  `json:"onboarding"`
	UpdatedAt      time.Time `json:"updatedAt"`
}

// TraineeAssistant reports whether the studio lets its trainees use the
// WhatsApp assistant (settings.traineeAssistant; off unless set).
func (s Studio) TraineeAssistant() bool {
	var set struct {
		TraineeAssistant bool `json:"traineeAssistant"`
	}
	return len(s.Settings) > 0 && json.Unmarshal(s.Settings, &set) == nil && set.TraineeAssistant
}
