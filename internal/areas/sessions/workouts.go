package sessions

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/otherwise/perform/internal/answers"
	"github.com/otherwise/perform/internal/areas/catalog"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/training"
)

func (a *Area) logWorkout(c *lane.Call, in *logWorkoutInput) (answers.LoggedWorkout, error) {
	if e := checkClock("startTime", in.StartTime); e != nil {
		return answers.LoggedWorkout{}, e
	}
	today := c.LocalToday()
	if in.Date != nil && *in.Date > today {
		return answers.LoggedWorkout{}, lane.InvalidField("date", fmt.Sprintf("date %s is after today (%s in the studio's time zone); a workout is logged once done. Plan a future one with create_planned_session.", *in.Date, today))
	}
	if in.SessionID == nil && in.Sport == nil {
		return answers.LoggedWorkout{}, lane.InvalidField("sport", "sport is required when no sessionId is given: say what the workout was (strength, running…).")
	}
	var out answers.LoggedWorkout
	var existing string
	err := c.InTx(func(ss store.StudioStore) error {
		t, err := lane.Lookup(c.Ctx, ids.Trainee, c.ID(), ss.GetTrainee)
		if err != nil {
			return err
		}
		var logged []domain.SessionExercise
		var defs []domain.Exercise
		var errs []lane.FieldError
		for i, e := range in.Exercises {
			ex, fe := catalog.Exercise(c, ss, fmt.Sprintf("exercises[%d].exerciseId", i), e.ExerciseID)
			if fe != nil {
				errs = append(errs, *fe)
				continue
			}
			sets := make([]domain.SetEntry, len(e.Sets))
			for j, s := range e.Sets {
				sets[j] = domain.SetEntry{Reps: s.Reps, LoadKg: s.LoadKg, RIR: s.RIR, RPE: s.RPE, Seconds: s.Seconds, Metres: s.Metres, Done: s.Done == nil || *s.Done}
			}
			logged = append(logged, domain.SessionExercise{ExerciseID: ex.ID, Name: ex.Name, Sets: sets, Notes: e.Notes})
			defs = append(defs, ex)
		}
		if len(errs) > 0 {
			return lane.ValidationError(errs)
		}
		if err := checkLoads(c, ss, t.ID, logged, defs, lane.IsTrue(in.ConfirmLoads)); err != nil {
			return err
		}
		now := c.Now().UTC()
		x := domain.Session{ID: ids.New(ids.Session), TraineeID: t.ID, Date: today, Source: sessionSource(c), CreatedAt: now}
		if in.SessionID != nil {
			if x, err = lane.Lookup(c.Ctx, ids.Session, *in.SessionID, ss.GetSession); err != nil {
				return err
			}
			if x.TraineeID != t.ID {
				return lane.NotFound(ids.Session, x.ID)
			}
			if x.Status == domain.SessionCompleted {
				existing = x.ID
				return nil
			}
			logged = mergeActuals(x.Exercises, logged)
			if x.Date > today {
				x.Date = today // done early: it happened today
			}
		}
		x.Status, x.CompletedAt, x.UpdatedAt = domain.SessionCompleted, &now, now
		if in.Date != nil {
			x.Date = *in.Date
		}
		if in.Sport != nil {
			x.Sport = strings.ToLower(strings.TrimSpace(*in.Sport))
		}
		if x.Title == "" {
			x.Title = x.Sport
		}
		if in.Title != nil {
			x.Title = strings.TrimSpace(*in.Title)
		}
		for _, f := range []struct {
			name string
			dst  **string
			v    *string
		}{{"startTime", &x.StartTime, in.StartTime}, {"notes", &x.Notes, in.Notes}, {"feedback", &x.Feedback, in.Feedback}} {
			if f.v != nil {
				*f.dst = f.v
			}
		}
		if in.DurationMin != nil {
			x.DurationMin = in.DurationMin
		}
		if in.RPE != nil {
			x.RPE = in.RPE
		}
		x.Exercises = lane.NonNil(logged)
		x.Totals = training.Totals(x.Exercises)
		if in.SessionID != nil {
			err = ss.UpdateSession(c.Ctx, &x)
		} else {
			err = ss.CreateSessions(c.Ctx, []*domain.Session{&x})
		}
		if ce := (*store.ConflictError)(nil); errors.As(err, &ce) && ce.ExistingID != "" {
			existing = ce.ExistingID
			return err // rolled back; answered below
		}
		if err != nil {
			return err
		}
		c.SetResource(x.ID)
		out.Session = x
		out.PRs, err = recordPRs(c, ss, x)
		return err
	})
	if existing == "" {
		return out, err
	}
	// Already logged: nothing was written; answer the session that was.
	x, err := c.Studio().GetSession(c.Ctx, existing)
	if err != nil {
		return out, err
	}
	c.SetStatus(http.StatusOK)
	c.SetResource(x.ID)
	return answers.LoggedWorkout{Session: x, AlreadyLogged: true, PRs: []answers.PersonalRecord{}}, nil
}

// mergeActuals puts logged sets on a planned session's exercises: an
// exercise logged takes its planned target (the first planned one of that
// id not yet used); planned exercises not logged stay with no sets, and
// logged ones not planned follow them.
func mergeActuals(planned, logged []domain.SessionExercise) []domain.SessionExercise {
	out := make([]domain.SessionExercise, len(planned))
	copy(out, planned)
	used := make([]bool, len(planned))
	var extra []domain.SessionExercise
	for _, lx := range logged {
		i := slices.IndexFunc(out, func(p domain.SessionExercise) bool { return p.ExerciseID == lx.ExerciseID })
		for i >= 0 && used[i] {
			j := slices.IndexFunc(out[i+1:], func(p domain.SessionExercise) bool { return p.ExerciseID == lx.ExerciseID })
			if j < 0 {
				i = -1
				break
			}
			i += 1 + j
		}
		if i < 0 {
			extra = append(extra, lx)
			continue
		}
		used[i] = true
		out[i].Sets = lx.Sets
		if lx.Notes != nil {
			out[i].Notes = lx.Notes
		}
	}
	for i := range out {
		if out[i].Sets == nil {
			out[i].Sets = []domain.SetEntry{}
		}
	}
	return append(out, extra...)
}

// recordPRs records a benchmark entry for every exercise whose best e1RM
// of x beats the trainee's benchmark of it, creating "<name> 1RM" (kg,
// higher is better) for an exercise that has none. It reads every
// exercise's best in one query, whatever the history holds.
func recordPRs(c *lane.Call, ss store.StudioStore, x domain.Session) ([]answers.PersonalRecord, error) {
	prs := []answers.PersonalRecord{}
	lifts := training.BestLifts(x.Exercises)
	if len(lifts) == 0 {
		return prs, nil
	}
	exIDs := make([]string, len(lifts))
	for i, lift := range lifts {
		exIDs[i] = lift.ExerciseID
	}
	bests, err := ss.ExerciseBests(c.Ctx, x.TraineeID, exIDs)
	if err != nil {
		return nil, err
	}
	at := entryTime(c, x.Date)
	for _, lift := range lifts {
		sid := x.ID
		entry := domain.BenchmarkEntry{ID: ids.New(ids.BenchmarkEntry), Value: lift.E1RM, RecordedAt: at, Source: domain.BenchmarkFromSession, SessionID: &sid}
		pr := answers.PersonalRecord{ExerciseID: lift.ExerciseID, E1RMKg: lift.E1RM, LoadKg: lift.LoadKg, Reps: lift.Reps}
		eb, ok := bests[lift.ExerciseID]
		if !ok {
			exID := lift.ExerciseID
			b := domain.Benchmark{ID: ids.New(ids.Benchmark), TraineeID: x.TraineeID, Name: lift.Name + " 1RM", ExerciseID: &exID,
				Unit: "kg", Direction: domain.HigherIsBetter, Entries: []domain.BenchmarkEntry{entry}, CreatedAt: c.Now().UTC()}
			err := ss.CreateBenchmark(c.Ctx, &b)
			var ce *store.ConflictError
			if !errors.As(err, &ce) {
				if err != nil {
					return nil, err
				}
				pr.BenchmarkID, pr.Name = b.ID, b.Name
				prs = append(prs, pr)
				continue
			}
			// A benchmark of that name the coach made by hand: it is the one.
			named, err := ss.GetBenchmark(c.Ctx, ce.ExistingID)
			if err != nil {
				return nil, err
			}
			eb = store.ExerciseBest{BenchmarkID: named.ID, Name: named.Name, Direction: named.Direction}
			if st := training.Stats(named, c.Now()); st.Best != nil {
				eb.Best = &st.Best.Value
			}
		}
		if eb.Best != nil && !training.Better(eb.Direction, entry.Value, *eb.Best) {
			continue
		}
		if err := ss.AddBenchmarkEntry(c.Ctx, eb.BenchmarkID, &entry); err != nil {
			return nil, err
		}
		pr.BenchmarkID, pr.Name, pr.PreviousBest = eb.BenchmarkID, eb.Name, eb.Best
		prs = append(prs, pr)
	}
	return prs, nil
}

// entryTime is when a value found in a session of date is recorded: now
// for today's session, else midday of that local day, so a workout logged
// late sits in the history where it happened.
func entryTime(c *lane.Call, date string) time.Time {
	now := c.Now().UTC()
	if date == c.LocalToday() {
		return now
	}
	d, err := time.ParseInLocation(time.DateOnly, date, c.Zone())
	if err != nil {
		return now
	}
	return d.Add(12 * time.Hour).UTC()
}
