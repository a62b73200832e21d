package store

import (
	"context"
	"time"

	"github.com/otherwise/perform/internal/domain"
)

// The training memory's areas: a studio's own exercises, sessions,
// benchmarks, body measurements, check-ins, injuries, goals, training
// profiles, and the roster facts the triage reads. Perform's built-in
// exercise catalogue is data in the binary (internal/exercises), not rows.
// StudioStore embeds each area.

// Exercises are the studio's own exercises.
type Exercises interface {
	// ListExercises is every exercise the studio added, by name.
	ListExercises(ctx context.Context) ([]domain.Exercise, error)
	GetExercise(ctx context.Context, id string) (domain.Exercise, error)
	// CreateExercise: ConflictError on a name the studio already uses.
	CreateExercise(ctx context.Context, e *domain.Exercise) error
}

// SessionFilter narrows ListSessions. From and To are inclusive local
// dates ("" leaves that side open).
type SessionFilter struct {
	TraineeID string
	From, To  string
	Status    string
	// Ascending lists oldest first; the default is newest date first.
	Ascending bool
	// Exercises loads each session's exercises too (a summary has none).
	Exercises bool
	Page
}

// Sessions are workouts: planned, completed, skipped or missed.
//
// A completed session is unique per (trainee, date, sport, durationMin): a
// write that would make a second one answers *ConflictError whose
// ExistingID is the session already logged.
type Sessions interface {
	// ListSessions answers summary rows: every field but Exercises (nil),
	// totals included.
	ListSessions(ctx context.Context, f SessionFilter) (List[domain.Session], error)
	// SessionsBetween is a trainee's full sessions dated from..to
	// inclusive, oldest first (the read models bound the range).
	SessionsBetween(ctx context.Context, traineeID, from, to string) ([]domain.Session, error)
	GetSession(ctx context.Context, id string) (domain.Session, error)
	// CreateSessions writes one session or many (a program laid out).
	CreateSessions(ctx context.Context, sessions []*domain.Session) error
	// UpdateSession writes every mutable field; UpdatedAt is kept when
	// set, a zero one is the store's clock.
	UpdateSession(ctx context.Context, s *domain.Session) error
	// DeletePlannedSessions removes a program's sessions still planned on
	// or after from, answering how many.
	DeletePlannedSessions(ctx context.Context, programID, from string) (int, error)
}

// Benchmarks are named measures with their history.
type Benchmarks interface {
	// ListBenchmarks is a trainee's benchmarks by name, each with every
	// entry oldest first.
	ListBenchmarks(ctx context.Context, traineeID string) ([]domain.Benchmark, error)
	GetBenchmark(ctx context.Context, id string) (domain.Benchmark, error)
	// FindBenchmark finds a trainee's benchmark by name, case-insensitively.
	FindBenchmark(ctx context.Context, traineeID, name string) (domain.Benchmark, error)
	// ExerciseBenchmark finds the trainee's benchmark of an exercise's 1RM.
	ExerciseBenchmark(ctx context.Context, traineeID, exerciseID string) (domain.Benchmark, error)
	// ExerciseBests answers, for each of exerciseIDs the trainee has a
	// benchmark of (the first made, as ExerciseBenchmark), that benchmark
	// and its best value, in one query whatever the history holds: what a
	// logged workout's PR check reads.
	ExerciseBests(ctx context.Context, traineeID string, exerciseIDs []string) (map[string]ExerciseBest, error)
	// CreateBenchmark writes b and its Entries; ConflictError on a name
	// the trainee already has.
	CreateBenchmark(ctx context.Context, b *domain.Benchmark) error
	AddBenchmarkEntry(ctx context.Context, benchmarkID string, e *domain.BenchmarkEntry) error
}

// ExerciseBest is a trainee's benchmark of an exercise and its best value
// (nil while it has no entry).
type ExerciseBest struct {
	BenchmarkID string
	Name        string
	Direction   string
	Best        *float64
}

// Measurements are body measurements beyond weight.
type Measurements interface {
	// ListMeasurements is newest recordedAt first.
	ListMeasurements(ctx context.Context, traineeID string, page Page) (List[domain.Measurement], error)
	CreateMeasurement(ctx context.Context, m *domain.Measurement) error
	// MeasurementsBetween and WeightsBetween are oldest first, from ≤ recordedAt < to.
	MeasurementsBetween(ctx context.Context, traineeID string, from, to time.Time) ([]domain.Measurement, error)
	WeightsBetween(ctx context.Context, traineeID string, from, to time.Time) ([]domain.Weight, error)
}

// CheckIns are daily check-ins, one per trainee per local day.
type CheckIns interface {
	// CheckInOn is the trainee's check-in of day, or ErrNotFound.
	CheckInOn(ctx context.Context, traineeID, day string) (domain.CheckIn, error)
	// PutCheckIn writes c as the check-in of (c.TraineeID, c.Day): a new
	// row, or the one already there replaced (keeping its id and
	// createdAt, which c then carries), answering whether one was there.
	PutCheckIn(ctx context.Context, c *domain.CheckIn) (replaced bool, err error)
	// ListCheckIns is newest day first, from..to inclusive ("" open).
	ListCheckIns(ctx context.Context, traineeID, from, to string, page Page) (List[domain.CheckIn], error)
}

// Injuries are a trainee's injuries.
type Injuries interface {
	// ListInjuries is newest onset first; status "" lists every status.
	ListInjuries(ctx context.Context, traineeID, status string) ([]domain.Injury, error)
	GetInjury(ctx context.Context, id string) (domain.Injury, error)
	CreateInjury(ctx context.Context, i *domain.Injury) error
	// UpdateInjury writes every mutable field; UpdatedAt as UpdateSession.
	UpdateInjury(ctx context.Context, i *domain.Injury) error
}

// Goals are a trainee's goals.
type Goals interface {
	// ListGoals is oldest first; status "" lists every status.
	ListGoals(ctx context.Context, traineeID, status string) ([]domain.Goal, error)
	GetGoal(ctx context.Context, id string) (domain.Goal, error)
	CreateGoal(ctx context.Context, g *domain.Goal) error
	// UpdateGoal writes every mutable field; UpdatedAt as UpdateSession.
	UpdateGoal(ctx context.Context, g *domain.Goal) error
}

// TrainingProfiles are trainees' training profiles.
type TrainingProfiles interface {
	// GetTrainingProfile is ErrNotFound until one is put.
	GetTrainingProfile(ctx context.Context, traineeID string) (domain.TrainingProfile, error)
	PutTrainingProfile(ctx context.Context, p *domain.TrainingProfile) error
}

// RosterQuery asks for the facts of the roster triage. Today and
// WeekStart (the first day of the studio's week) are local days; Now is the instant
// "past due" and "overdue" compare with.
type RosterQuery struct {
	Today     string
	WeekStart string
	Now       time.Time
	// Zone is the studio's, whose midnights bound the weeks of weigh-ins
	// (nil: UTC).
	Zone *time.Location
	// CoachID keeps the trainees of one coach ("" all).
	CoachID string
	// Tag keeps the trainees with this tag name ("" all).
	Tag string
}

// Roster is the studio-wide reading of the triage.
type Roster interface {
	// RosterFacts answers the facts of every active trainee, in a fixed
	// number of queries whatever the roster's size.
	RosterFacts(ctx context.Context, q RosterQuery) ([]domain.RosterFacts, error)
}

// RosterRead asks one roster question (domain.RosterQuestions) over a
// window: From and To are local days, inclusive; Since and Until the same
// window as instants (Until exclusive) for what is kept by the instant;
// Zone turns instants into local days.
type RosterRead struct {
	Question     string
	From, To     string
	Since, Until time.Time
	Zone         *time.Location
	// CoachID keeps the trainees of one coach ("" all).
	CoachID string
	// Tag keeps the trainees with this tag name ("" all).
	Tag  string
	Page Page
}

// RosterReads answers roster questions in SQL: one query a page whatever
// the roster's size, the total counted by the same query.
type RosterReads interface {
	ReadRoster(ctx context.Context, q RosterRead) (List[domain.RosterRow], error)
	// RosterSize is how many active trainees the question is asked of.
	RosterSize(ctx context.Context, coachID, tag string) (int, error)
}
