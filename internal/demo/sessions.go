package demo

import (
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/exercises"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/training"
)

// session is one session of the plan on date: completed with its sets,
// skipped or missed when past; planned from today on.
func (a *athlete) session(rnd *rand.Rand, pt planTemplate, d planDay, w int, date string, programID *string, today string, zone *time.Location) *domain.Session {
	p := phase{sets: 3, reps: 10, percent: 65}
	if len(pt.phases) > 0 {
		p = pt.phaseOf(w)
	}
	minutes := d.minutes
	x := &domain.Session{ID: ids.New(ids.Session), TraineeID: a.t.ID, ProgramID: programID, Date: date, StartTime: new([]string{"07:00", "18:30", "20:00"}[a.k%3]),
		Sport: daySport(pt, d), Title: d.title, Status: domain.SessionPlanned, Source: domain.SessionFromProgram, DurationMin: &minutes,
		Exercises: plannedExercises(pt, d, p, w), CreatedAt: dayAt(date, 8, zone).AddDate(0, 0, -14)}
	if programID == nil {
		x.Source = domain.SessionFromCoach
	}
	if x.CreatedAt.After(dayAt(today, 6, zone)) {
		x.CreatedAt = dayAt(today, 6, zone)
	}
	x.UpdatedAt = x.CreatedAt
	if date >= today {
		return x
	}
	switch r := rnd.IntN(100); {
	case r < 6:
		x.Status, x.Notes = domain.SessionSkipped, new([]string{"Sick", "עבודה עד מאוחר", "Travelling"}[rnd.IntN(3)])
		return x
	case r < 14:
		x.Status = domain.SessionMissed
		return x
	}
	// Completed: sets done at the phase's load of a 1RM that grows about
	// half a percent a week of training.
	weeksIn := float64(dayCount(a.start, date)) / 7
	growth := 1 + 0.005*weeksIn
	for i := range x.Exercises {
		ex := &x.Exercises[i]
		e, _ := exercises.Get(ex.ExerciseID)
		tg := ex.Target
		switch {
		case tg.Metres != nil:
			pace := a.fitness / 5000 / (1 + 0.003*weeksIn) * (0.97 + 0.06*rnd.Float64()) // seconds per metre
			m := *tg.Metres * (0.95 + 0.1*rnd.Float64())
			m = math.Round(m/10) * 10
			secs := int(m * pace)
			ex.Sets = []domain.SetEntry{{Metres: &m, Seconds: &secs, Done: true}}
			minutes = secs / 60
		case tg.Seconds != nil && tg.Sets == nil:
			ex.Sets = []domain.SetEntry{{Seconds: new(*tg.Seconds), Done: true}}
		case tg.Seconds != nil:
			for range *tg.Sets {
				ex.Sets = append(ex.Sets, domain.SetEntry{Seconds: new(*tg.Seconds + 5*rnd.IntN(4)), Done: true})
			}
		default:
			share := 0.0
			for _, l := range d.lifts {
				if l.id == ex.ExerciseID {
					share = l.share
				}
			}
			for s := range *tg.Sets {
				reps := *tg.Reps
				if s == *tg.Sets-1 && rnd.IntN(4) == 0 {
					reps-- // the last set fell short
				}
				set := domain.SetEntry{Reps: &reps, Done: true, RPE: new(float64(7 + rnd.IntN(3)))}
				if e.Measure == domain.MeasureRepsLoad && tg.PercentRM != nil && share > 0 {
					load := math.Round(a.squat1RM*share*growth**tg.PercentRM/100/2.5) * 2.5
					set.LoadKg = &load
				}
				ex.Sets = append(ex.Sets, set)
			}
		}
	}
	x.Status = domain.SessionCompleted
	x.Totals = training.Totals(x.Exercises)
	x.DurationMin = &minutes
	x.RPE = new(5 + rnd.IntN(5))
	if rnd.IntN(6) == 0 {
		x.Feedback = new([]string{"Felt strong today", "הרגשתי כבד, אבל סיימתי", "Great session, legs on fire", "Knees a bit achy on squats"}[rnd.IntN(4)])
	}
	done := dayAt(date, 19, zone).Add(time.Duration(minutes) * time.Minute)
	x.CompletedAt, x.UpdatedAt = &done, done
	a.notePRs(x, done)
	return x
}

// notePRs records, as the lane does, an entry for each tracked lift whose
// best estimated 1RM in x beats the trainee's best so far.
func (a *athlete) notePRs(x *domain.Session, at time.Time) {
	for _, l := range training.BestLifts(x.Exercises) {
		if !slices.Contains(prLifts, l.ExerciseID) || l.E1RM <= a.best[l.ExerciseID] {
			continue
		}
		a.best[l.ExerciseID] = l.E1RM
		sid := x.ID
		a.entries[l.ExerciseID] = append(a.entries[l.ExerciseID], domain.BenchmarkEntry{ID: ids.New(ids.BenchmarkEntry), Value: l.E1RM, RecordedAt: at, Source: domain.BenchmarkFromSession, SessionID: &sid})
	}
}

// markMissed turns a session into one the trainee missed.
func markMissed(x *domain.Session) {
	for i := range x.Exercises {
		x.Exercises[i].Sets = []domain.SetEntry{}
	}
	x.Status, x.Totals, x.RPE, x.Feedback, x.CompletedAt = domain.SessionMissed, domain.SessionTotals{}, nil, nil, nil
	x.UpdatedAt = x.CreatedAt
}
