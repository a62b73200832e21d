package lane

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/exercises"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/text"
	"github.com/otherwise/perform/internal/training"
)

// Workout sessions: the summary list, one session, a planned session, a
// logged workout (with its PRs) and the modifications of a planned one.

type sessionsQuery struct {
	From   *string `json:"from,omitempty" jsonschema:"Only sessions on or after this local date, YYYY-MM-DD." lane:"format=date"`
	To     *string `json:"to,omitempty" jsonschema:"Only sessions on or before this local date, YYYY-MM-DD; at most 366 days after from." lane:"format=date"`
	Status *string `json:"status,omitempty" jsonschema:"Only sessions with this status." lane:"enum=planned|completed|skipped|missed"`
	PageQuery
}

// sessionRow is a session in a list: metadata and totals, no exercises.
// It leaves out what the path already says (the trainee) and what is
// empty, so a page of 50 stays small enough for a model to read at once.
type sessionRow struct {
	ID          string    `json:"id"`
	ProgramID   *string   `json:"programId,omitempty"`
	Date        string    `json:"date"`
	StartTime   *string   `json:"startTime,omitempty"`
	Sport       string    `json:"sport"`
	Title       string    `json:"title"`
	Status      string    `json:"status"`
	Source      string    `json:"source"`
	DurationMin *int      `json:"durationMin,omitempty"`
	RPE         *int      `json:"rpe,omitempty"`
	Totals      rowTotals `json:"totals"`
}

// rowTotals are a row's non-zero totals.
type rowTotals struct {
	VolumeKg float64 `json:"volumeKg,omitempty"`
	Sets     int     `json:"sets,omitempty"`
	Reps     int     `json:"reps,omitempty"`
	Seconds  int     `json:"seconds,omitempty"`
	Metres   float64 `json:"metres,omitempty"`
}

func rowOf(x domain.Session) sessionRow {
	t := x.Totals
	return sessionRow{ID: x.ID, ProgramID: x.ProgramID, Date: x.Date, StartTime: x.StartTime, Sport: x.Sport,
		Title: x.Title, Status: x.Status, Source: x.Source, DurationMin: x.DurationMin, RPE: x.RPE,
		Totals: rowTotals{VolumeKg: t.VolumeKg, Sets: t.Sets, Reps: t.Reps, Seconds: t.Seconds, Metres: t.Metres}}
}

type plannedSessionInput struct {
	Date        *string                `json:"date" jsonschema:"The session's local date, YYYY-MM-DD." lane:"format=date,null=false" when:"start"`
	StartTime   *string                `json:"startTime,omitempty" jsonschema:"Local start time, HH:MM (24-hour)." lane:"maxLength=5"`
	Sport       string                 `json:"sport" jsonschema:"The sport or type: strength, running, cycling, mobility…" lane:"minLength=1,maxLength=50"`
	Title       *string                `json:"title,omitempty" jsonschema:"The session's title; the sport when omitted." lane:"minLength=1,maxLength=200"`
	DurationMin *int                   `json:"durationMin,omitempty" jsonschema:"Planned length in minutes." lane:"min=1,max=600"`
	Notes       *string                `json:"notes,omitempty" jsonschema:"A note for the trainee." lane:"maxLength=2000"`
	Exercises   []plannedExerciseInput `json:"exercises,omitempty" jsonschema:"The planned exercises, in order, with their targets." lane:"maxItems=30"`
}

type setInput struct {
	Reps    *int     `json:"reps,omitempty" lane:"min=0,max=1000"`
	LoadKg  *float64 `json:"loadKg,omitempty" jsonschema:"External load; omit for body weight." lane:"min=0,max=1000"`
	RIR     *float64 `json:"rir,omitempty" jsonschema:"Reps in reserve." lane:"min=0,max=10"`
	RPE     *float64 `json:"rpe,omitempty" lane:"min=1,max=10"`
	Seconds *int     `json:"seconds,omitempty" lane:"min=0,max=86400"`
	Metres  *float64 `json:"metres,omitempty" lane:"min=0,max=1000000"`
	Done    *bool    `json:"done,omitempty" jsonschema:"false: not done (default true)."`
}

type loggedExerciseInput struct {
	ExerciseID string     `json:"exerciseId" jsonschema:"From search_exercises: a built-in slug (back-squat) or exr_…." lane:"minLength=1,maxLength=100"`
	Sets       []setInput `json:"sets" jsonschema:"In order." lane:"maxItems=50"`
	Notes      *string    `json:"notes,omitempty" lane:"maxLength=500"`
}

type logWorkoutInput struct {
	SessionID   *string               `json:"sessionId,omitempty" jsonschema:"A planned session of this trainee (ses_…) to complete with these actuals; omit to log a workout that was not planned." lane:"minLength=1,maxLength=100"`
	Date        *string               `json:"date,omitempty" jsonschema:"The workout's local date, YYYY-MM-DD, not after today; the planned session's date, else today, when omitted." lane:"format=date" when:"start"`
	StartTime   *string               `json:"startTime,omitempty" jsonschema:"Local start time, HH:MM (24-hour)." lane:"maxLength=5"`
	Sport       *string               `json:"sport,omitempty" jsonschema:"The sport or type: strength, running, cycling, mobility…; required unless sessionId is given." lane:"minLength=1,maxLength=50"`
	Title       *string               `json:"title,omitempty" jsonschema:"The session's title; the planned session's, else the sport, when omitted." lane:"minLength=1,maxLength=200"`
	DurationMin *int                  `json:"durationMin,omitempty" jsonschema:"How long it took in minutes." lane:"min=1,max=600"`
	RPE         *int                  `json:"rpe,omitempty" jsonschema:"Session RPE, 1 to 10." lane:"min=1,max=10"`
	Notes       *string               `json:"notes,omitempty" jsonschema:"Notes on the workout." lane:"maxLength=2000"`
	Feedback    *string               `json:"feedback,omitempty" jsonschema:"The trainee's feedback." lane:"maxLength=2000"`
	Exercises   []loggedExerciseInput `json:"exercises,omitempty" jsonschema:"The exercises done, in order, each with its sets." lane:"maxItems=30"`
}

// loggedWorkout is the answer of logging a workout.
type loggedWorkout struct {
	Session domain.Session `json:"session"`
	// AlreadyLogged: the trainee already had a completed session of that
	// date, sport and duration; it is answered and nothing was written.
	AlreadyLogged bool             `json:"alreadyLogged"`
	PRs           []personalRecord `json:"prs" jsonschema:"The exercises whose best estimated 1RM of this session (Epley, sets of 1 to 12 reps) beat the trainee's benchmark; each is a new benchmark entry."`
}

type personalRecord struct {
	BenchmarkID  string   `json:"benchmarkId"`
	Name         string   `json:"name"`
	ExerciseID   string   `json:"exerciseId"`
	E1RMKg       float64  `json:"e1rmKg"`
	LoadKg       float64  `json:"loadKg"`
	Reps         int      `json:"reps"`
	PreviousBest *float64 `json:"previousBest" jsonschema:"The benchmark's best before; null when this is its first value."`
}

type modifySessionInput struct {
	Operation     string   `json:"operation" jsonschema:"reduce_volume (percent off the sets, then the reps), raise_intensity (loadPercent and/or rpeIncrease), swap_exercise (exerciseId for replacementId or its first catalogue alternative), reschedule (date)." lane:"enum=reduce_volume|raise_intensity|swap_exercise|reschedule"`
	Percent       *float64 `json:"percent,omitempty" jsonschema:"reduce_volume: the share to take off, 1 to 90 percent." lane:"min=1,max=90"`
	LoadPercent   *float64 `json:"loadPercent,omitempty" jsonschema:"raise_intensity: raise loadKg and percent1RM targets by this percentage, 0.5 to 50 (loads rounded to 0.5)." lane:"min=0.5,max=50"`
	RPEIncrease   *float64 `json:"rpeIncrease,omitempty" jsonschema:"raise_intensity: add this to RPE targets (at most 10) and take it off RIR targets (at least 0), 0.5 to 3." lane:"min=0.5,max=3"`
	ExerciseID    *string  `json:"exerciseId,omitempty" jsonschema:"swap_exercise: the session's exercise to replace." lane:"minLength=1,maxLength=100"`
	ReplacementID *string  `json:"replacementId,omitempty" jsonschema:"swap_exercise: the exercise to put in its place (built-in id or exr_…); the first catalogue alternative when omitted." lane:"minLength=1,maxLength=100"`
	Date          *string  `json:"date,omitempty" jsonschema:"reschedule: the new local date, YYYY-MM-DD." lane:"format=date" when:"start"`
	StartTime     *string  `json:"startTime,omitempty" jsonschema:"reschedule: the new local start time, HH:MM; the old one is kept when omitted." lane:"maxLength=5"`
}

type modifiedSession struct {
	Session   domain.Session `json:"session"`
	Operation string         `json:"operation"`
	// Changed counts the exercises whose targets changed (1 for a reschedule).
	Changed int    `json:"changed"`
	Summary string `json:"summary"`
}

type updateSessionInput struct {
	Status    *string `json:"status,omitempty" jsonschema:"skipped or missed for a session not done, planned to put one back; log a workout to complete it." lane:"enum=planned|skipped|missed,null=false"`
	Title     *string `json:"title,omitempty" jsonschema:"The session's title." lane:"minLength=1,maxLength=200,null=false"`
	StartTime *string `json:"startTime,omitempty" jsonschema:"Local start time, HH:MM; null clears it." lane:"maxLength=5"`
	RPE       *int    `json:"rpe,omitempty" jsonschema:"Session RPE, 1 to 10; null clears it." lane:"min=1,max=10"`
	Notes     *string `json:"notes,omitempty" jsonschema:"Notes; null clears them." lane:"maxLength=2000"`
	Feedback  *string `json:"feedback,omitempty" jsonschema:"The trainee's feedback; null clears it." lane:"maxLength=2000"`
}

// checkRange answers the 422 for a from..to range that is reversed or
// longer than maxRangeDays.
func checkRange(from, to *string) *Error {
	if from == nil || to == nil {
		return nil
	}
	f, err1 := time.Parse(time.DateOnly, *from)
	t, err2 := time.Parse(time.DateOnly, *to)
	if err1 != nil || err2 != nil {
		return nil // the schema's format check answers it
	}
	days := int(t.Sub(f).Hours()/24) + 1 // both ends count, as c.days counts them
	switch {
	case days < 1:
		return InvalidField("to", fmt.Sprintf("to %s is before from %s; give a range whose to is on or after its from.", *to, *from))
	case days > maxRangeDays:
		return InvalidField("to", fmt.Sprintf("from %s to %s is %d days; a range is at most %d days, so ask for it in parts.", *from, *to, days, maxRangeDays))
	}
	return nil
}

// checkClock answers the 422 for a start time that is not HH:MM.
func checkClock(field string, v *string) *Error {
	if v == nil {
		return nil
	}
	if _, err := time.Parse("15:04", *v); err != nil || len(*v) != 5 {
		return InvalidField(field, fmt.Sprintf("%s must be a local time HH:MM (24-hour), such as 07:30; got %q.", field, text.Truncate(*v, 20)))
	}
	return nil
}

// exercise resolves an exercise id: built-in, or one of the studio's own. The FieldError names field.
func (c *Call) exercise(ss store.StudioStore, field, id string) (domain.Exercise, *FieldError) {
	id = strings.TrimSpace(id)
	if e, ok := exercises.Get(id); ok {
		return e, nil
	}
	if ids.Is(id, ids.Exercise) {
		e, err := ss.GetExercise(c.Ctx, id)
		if err == nil {
			return e, nil
		}
		if !errors.Is(err, store.ErrNotFound) {
			return domain.Exercise{}, &FieldError{field, fmt.Sprintf("%s %s could not be read; try again.", field, id)}
		}
		return domain.Exercise{}, &FieldError{field, fmt.Sprintf("%s %s is not an exercise of this studio; use a built-in exercise id (such as back-squat) or one of the studio's own exercises.", field, text.Truncate(id, 100))}
	}
	return domain.Exercise{}, &FieldError{field, fmt.Sprintf("%s %q is not a built-in exercise id (such as back-squat, bench-press, running) or a studio exercise id (exr_…).", field, text.Truncate(id, 100))}
}

func (l *Lane) sessionRoutes(rs *Routes) {
	Add(rs, "GET", "/trainees/{id}/sessions", "A trainee's workout sessions, newest date first, as summary rows (metadata and totals, no exercises or sets; GET /sessions/{id} has those).", func(c *Call, q *sessionsQuery) (ListOf[sessionRow], error) {
		if e := checkRange(q.From, q.To); e != nil {
			return ListOf[sessionRow]{}, e
		}
		ss := c.Studio()
		if _, err := Lookup(c.Ctx, ids.Trainee, c.ID(), ss.GetTrainee); err != nil {
			return ListOf[sessionRow]{}, err
		}
		f := store.SessionFilter{TraineeID: c.ID(), Page: q.Page()}
		if q.From != nil {
			f.From = *q.From
		}
		if q.To != nil {
			f.To = *q.To
		}
		if q.Status != nil {
			f.Status = *q.Status
		}
		res, err := ss.ListSessions(c.Ctx, f)
		rows := store.List[sessionRow]{Items: make([]sessionRow, len(res.Items)), Total: res.Total}
		for i, x := range res.Items {
			rows.Items[i] = rowOf(x)
		}
		return PageOf(rows, q.Page()), err
	}, Tool("list_trainee_sessions"), Trainee(auth.ScopeTrainingRead), TraineeTool("list_sessions"),
		Allow(Under("items", sessionRowFields...)...), Allow("total", "nextOffset"))
	Add(rs, "GET", "/sessions/{id}", "One session's full record: its exercises in order with targets and the sets done, and its totals.", func(c *Call, _ *NoInput) (domain.Session, error) {
		return Lookup(c.Ctx, ids.Session, c.ID(), c.Studio().GetSession)
	}, Tool("get_session"), Trainee(auth.ScopeTrainingRead), TraineeTool("get_session_details"), Allow(sessionFields...))
	Add(rs, "POST", "/trainees/{id}/sessions", "Plan a session for a trainee (source coach; trainee when the trainee plans it). Nothing is sent to the trainee.", l.createPlannedSession, Tool("create_planned_session"), Created(),
		Trainee(auth.ScopeTrainingWrite), TraineeTool("create_planned_session"), Allow(sessionFields...))
	Add(rs, "POST", "/trainees/{id}/workouts", "Log a workout: a new completed session, or a planned one completed with its actuals. The same trainee, date, sport and duration is one workout: a repeat answers 200 with the session already logged. Sets that beat the trainee's estimated 1RM record PRs.", l.logWorkout, Tool("log_workout"), Created(),
		Trainee(auth.ScopeTrainingWrite), TraineeTool("log_workout"), Allow(Under("session", sessionFields...)...),
		Allow("alreadyLogged", "prs.benchmarkId", "prs.exerciseId", "prs.name", "prs.loadKg", "prs.reps", "prs.e1rmKg", "prs.previousBest"))
	Add(rs, "POST", "/sessions/{id}/modify", "Modify a planned session: reduce its volume, raise its intensity, swap an exercise or reschedule it.", l.modifySession,
		Trainee(auth.ScopeTrainingWrite), TraineeTool("modify_training_session", "swap_exercise"),
		Allow("summary", "operation", "changed"), Allow(Under("session", sessionFields...)...))
	Add(rs, "PATCH", "/sessions/{id}", "Change a session's status (skipped, missed, back to planned), title, start time, RPE, notes or feedback.", l.updateSession)
	l.benchmarkRoutes(rs)
}

func (l *Lane) createPlannedSession(c *Call, in *plannedSessionInput) (domain.Session, error) {
	if e := checkClock("startTime", in.StartTime); e != nil {
		return domain.Session{}, e
	}
	var out domain.Session
	err := c.InTx(func(ss store.StudioStore) error {
		t, err := Lookup(c.Ctx, ids.Trainee, c.ID(), ss.GetTrainee)
		if err != nil {
			return err
		}
		var errs []FieldError
		var planned []domain.SessionExercise
		for i, e := range in.Exercises {
			ex, fe := c.exercise(ss, fmt.Sprintf("exercises[%d].exerciseId", i), e.ExerciseID)
			if fe != nil {
				errs = append(errs, *fe)
				continue
			}
			tg := e.target()
			planned = append(planned, domain.SessionExercise{ExerciseID: ex.ID, Name: ex.Name, Target: &tg, Sets: []domain.SetEntry{}, Notes: e.Notes})
		}
		if len(errs) > 0 {
			return ValidationError(errs)
		}
		now := l.now().UTC()
		out = domain.Session{
			ID: ids.New(ids.Session), TraineeID: t.ID, Date: *in.Date, StartTime: in.StartTime,
			Sport: strings.ToLower(strings.TrimSpace(in.Sport)), Status: domain.SessionPlanned, Source: c.sessionSource(),
			DurationMin: in.DurationMin, Notes: in.Notes, Exercises: orEmpty(planned), CreatedAt: now, UpdatedAt: now,
		}
		out.Title = out.Sport
		if in.Title != nil {
			out.Title = strings.TrimSpace(*in.Title)
		}
		if err := ss.CreateSessions(c.Ctx, []*domain.Session{&out}); err != nil {
			return err
		}
		c.SetResource(out.ID)
		return nil
	})
	return out, err
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func (l *Lane) logWorkout(c *Call, in *logWorkoutInput) (loggedWorkout, error) {
	if e := checkClock("startTime", in.StartTime); e != nil {
		return loggedWorkout{}, e
	}
	today := c.LocalToday()
	if in.Date != nil && *in.Date > today {
		return loggedWorkout{}, InvalidField("date", fmt.Sprintf("date %s is after today (%s in the studio's time zone); a workout is logged once done. Plan a future one with create_planned_session.", *in.Date, today))
	}
	if in.SessionID == nil && in.Sport == nil {
		return loggedWorkout{}, InvalidField("sport", "sport is required when no sessionId is given: say what the workout was (strength, running…).")
	}
	var out loggedWorkout
	var existing string
	err := c.InTx(func(ss store.StudioStore) error {
		t, err := Lookup(c.Ctx, ids.Trainee, c.ID(), ss.GetTrainee)
		if err != nil {
			return err
		}
		var logged []domain.SessionExercise
		var errs []FieldError
		for i, e := range in.Exercises {
			ex, fe := c.exercise(ss, fmt.Sprintf("exercises[%d].exerciseId", i), e.ExerciseID)
			if fe != nil {
				errs = append(errs, *fe)
				continue
			}
			sets := make([]domain.SetEntry, len(e.Sets))
			for j, s := range e.Sets {
				sets[j] = domain.SetEntry{Reps: s.Reps, LoadKg: s.LoadKg, RIR: s.RIR, RPE: s.RPE, Seconds: s.Seconds, Metres: s.Metres, Done: s.Done == nil || *s.Done}
			}
			logged = append(logged, domain.SessionExercise{ExerciseID: ex.ID, Name: ex.Name, Sets: sets, Notes: e.Notes})
		}
		if len(errs) > 0 {
			return ValidationError(errs)
		}
		now := l.now().UTC()
		x := domain.Session{ID: ids.New(ids.Session), TraineeID: t.ID, Date: today, Source: c.sessionSource(), CreatedAt: now}
		if in.SessionID != nil {
			if x, err = Lookup(c.Ctx, ids.Session, *in.SessionID, ss.GetSession); err != nil {
				return err
			}
			if x.TraineeID != t.ID {
				return NotFound(ids.Session, x.ID)
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
		x.Exercises = orEmpty(logged)
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
		out.PRs, err = c.recordPRs(ss, x)
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
	c.status = http.StatusOK
	c.SetResource(x.ID)
	return loggedWorkout{Session: x, AlreadyLogged: true, PRs: []personalRecord{}}, nil
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
func (c *Call) recordPRs(ss store.StudioStore, x domain.Session) ([]personalRecord, error) {
	prs := []personalRecord{}
	lifts := training.BestLifts(x.Exercises)
	if len(lifts) == 0 {
		return prs, nil
	}
	exIDs := make([]string, len(lifts))
	for i, l := range lifts {
		exIDs[i] = l.ExerciseID
	}
	bests, err := ss.ExerciseBests(c.Ctx, x.TraineeID, exIDs)
	if err != nil {
		return nil, err
	}
	at := c.entryTime(x.Date)
	for _, lift := range lifts {
		sid := x.ID
		entry := domain.BenchmarkEntry{ID: ids.New(ids.BenchmarkEntry), Value: lift.E1RM, RecordedAt: at, Source: domain.BenchmarkFromSession, SessionID: &sid}
		pr := personalRecord{ExerciseID: lift.ExerciseID, E1RMKg: lift.E1RM, LoadKg: lift.LoadKg, Reps: lift.Reps}
		eb, ok := bests[lift.ExerciseID]
		if !ok {
			exID := lift.ExerciseID
			b := domain.Benchmark{ID: ids.New(ids.Benchmark), TraineeID: x.TraineeID, Name: lift.Name + " 1RM", ExerciseID: &exID,
				Unit: "kg", Direction: domain.HigherIsBetter, Entries: []domain.BenchmarkEntry{entry}, CreatedAt: c.l.now().UTC()}
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
			if st := training.Stats(named, c.l.now()); st.Best != nil {
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
func (c *Call) entryTime(date string) time.Time {
	now := c.l.now().UTC()
	if date == c.LocalToday() {
		return now
	}
	d, err := time.ParseInLocation(time.DateOnly, date, c.Zone())
	if err != nil {
		return now
	}
	return d.Add(12 * time.Hour).UTC()
}

// modifiable is the path's session when its status is one of allow, else
// the conflict sentence naming the statuses that can be changed.
func (c *Call) modifiable(ss store.StudioStore, allow ...string) (domain.Session, error) {
	x, err := Lookup(c.Ctx, ids.Session, c.ID(), ss.GetSession)
	if err != nil {
		return x, err
	}
	if !slices.Contains(allow, x.Status) {
		return x, Conflict(fmt.Sprintf("Session %s is %s; only a session with status %s can be changed this way.", x.ID, x.Status, strings.Join(allow, " or ")))
	}
	return x, nil
}

// modifySession is open to a studio:write key (the coach tools and, later,
// the trainee's): it only reshapes a planned session's targets or date,
// notifies no one and can be undone by another modification.
func (l *Lane) modifySession(c *Call, in *modifySessionInput) (modifiedSession, error) {
	out := modifiedSession{Operation: in.Operation}
	need := func(field string, set bool, why string) *Error {
		if set {
			return nil
		}
		return InvalidField(field, fmt.Sprintf("%s is required for %s: %s.", field, in.Operation, why))
	}
	switch in.Operation {
	case "reduce_volume":
		if e := need("percent", in.Percent != nil, "the share of the volume to take off, 1 to 90"); e != nil {
			return out, e
		}
	case "raise_intensity":
		if e := need("loadPercent", in.LoadPercent != nil || in.RPEIncrease != nil, "give loadPercent (load up by that percentage), rpeIncrease (RPE up by that much), or both"); e != nil {
			return out, e
		}
	case "swap_exercise":
		if e := need("exerciseId", in.ExerciseID != nil, "the session's exercise to replace (get_session lists them)"); e != nil {
			return out, e
		}
	case "reschedule":
		if e := need("date", in.Date != nil, "the new local date, YYYY-MM-DD"); e != nil {
			return out, e
		}
		if e := checkClock("startTime", in.StartTime); e != nil {
			return out, e
		}
	}
	err := c.InTx(func(ss store.StudioStore) error {
		allow := []string{domain.SessionPlanned}
		if in.Operation == "reschedule" {
			allow = append(allow, domain.SessionSkipped, domain.SessionMissed)
		}
		x, err := c.modifiable(ss, allow...)
		if err != nil {
			return err
		}
		switch in.Operation {
		case "reduce_volume":
			x.Exercises, out.Changed = training.ReduceVolume(x.Exercises, *in.Percent)
			out.Summary = fmt.Sprintf("Volume reduced by %g%% on %d exercises (sets first, then reps).", *in.Percent, out.Changed)
		case "raise_intensity":
			var load, rpe float64
			if in.LoadPercent != nil {
				load = *in.LoadPercent
			}
			if in.RPEIncrease != nil {
				rpe = *in.RPEIncrease
			}
			x.Exercises, out.Changed = training.RaiseIntensity(x.Exercises, load, rpe)
			out.Summary = fmt.Sprintf("Intensity raised on %d exercises.", out.Changed)
		case "swap_exercise":
			from := strings.TrimSpace(*in.ExerciseID)
			if !slices.ContainsFunc(x.Exercises, func(e domain.SessionExercise) bool { return e.ExerciseID == from }) {
				have := make([]string, len(x.Exercises))
				for i, e := range x.Exercises {
					have[i] = e.ExerciseID
				}
				return InvalidField("exerciseId", fmt.Sprintf("exerciseId %s is not in session %s; its exercises are %s.", text.Truncate(from, 100), x.ID, orNone(have)))
			}
			to, err := c.replacement(ss, from, in.ReplacementID)
			if err != nil {
				return err
			}
			x.Exercises, out.Changed = training.SwapExercise(x.Exercises, from, to)
			out.Summary = fmt.Sprintf("%s replaced by %s (%s), targets kept.", from, to.Name, to.ID)
		case "reschedule":
			old := x.Date
			x.Date, x.Status, out.Changed = *in.Date, domain.SessionPlanned, 1
			if in.StartTime != nil {
				x.StartTime = in.StartTime
			}
			out.Summary = fmt.Sprintf("Moved from %s to %s.", old, x.Date)
		}
		if out.Changed == 0 {
			return InvalidField("operation", fmt.Sprintf("%s changes nothing in session %s: none of its exercises has a target it applies to.", in.Operation, x.ID))
		}
		x.UpdatedAt = l.now().UTC()
		if err := ss.UpdateSession(c.Ctx, &x); err != nil {
			return err
		}
		out.Session = x
		return nil
	})
	return out, err
}

func orNone(list []string) string {
	if len(list) == 0 {
		return "none"
	}
	return strings.Join(list, ", ")
}

// replacement is the exercise a swap puts in: the one given, else the
// catalogue's first alternative of from.
func (c *Call) replacement(ss store.StudioStore, from string, given *string) (domain.Exercise, error) {
	if given != nil {
		ex, fe := c.exercise(ss, "replacementId", *given)
		if fe != nil {
			return ex, ValidationError([]FieldError{*fe})
		}
		return ex, nil
	}
	alts := exercises.Alternatives(from)
	if len(alts) == 0 {
		return domain.Exercise{}, InvalidField("replacementId", fmt.Sprintf("The catalogue lists no alternative for %s; give replacementId, the exercise to put in its place.", from))
	}
	return alts[0], nil
}

func (l *Lane) updateSession(c *Call, in *updateSessionInput) (domain.Session, error) {
	if e := checkClock("startTime", in.StartTime); e != nil {
		return domain.Session{}, e
	}
	var x domain.Session
	err := c.InTx(func(ss store.StudioStore) error {
		var err error
		if x, err = Lookup(c.Ctx, ids.Session, c.ID(), ss.GetSession); err != nil {
			return err
		}
		if in.Status != nil && x.Status == domain.SessionCompleted && *in.Status != domain.SessionCompleted {
			return Conflict(fmt.Sprintf("Session %s is completed with its sets; its status stays completed.", x.ID))
		}
		if in.Status != nil {
			x.Status = *in.Status
		}
		if in.Title != nil {
			x.Title = strings.TrimSpace(*in.Title)
		}
		if c.Has("startTime") {
			x.StartTime = in.StartTime
		}
		if c.Has("rpe") {
			x.RPE = in.RPE
		}
		if c.Has("notes") {
			x.Notes = in.Notes
		}
		if c.Has("feedback") {
			x.Feedback = in.Feedback
		}
		x.UpdatedAt = l.now().UTC()
		return ss.UpdateSession(c.Ctx, &x)
	})
	return x, err
}
