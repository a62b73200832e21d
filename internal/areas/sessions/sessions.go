package sessions

import (
	"fmt"
	"strings"
	"time"

	"github.com/otherwise/perform/internal/areas/catalog"
	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/text"
	"github.com/otherwise/perform/internal/training"
)

// Workout sessions: the summary list, one session, a planned session, a
// logged workout (with its PRs) and the modifications of a planned one.

type sessionsQuery struct {
	From   *string `json:"from,omitempty" jsonschema:"Only sessions on or after this local date, YYYY-MM-DD." lane:"format=date"`
	To     *string `json:"to,omitempty" jsonschema:"Only sessions on or before this local date, YYYY-MM-DD; at most 366 days after from. Default today (what was done), no limit with status planned." lane:"format=date"`
	Status *string `json:"status,omitempty" jsonschema:"Only sessions with this status; planned lists what is ahead too." lane:"enum=planned|completed|skipped|missed"`
	View   string  `json:"view,omitempty" jsonschema:"full adds the exercises' targets and sets (limit=1: the latest session whole)." lane:"enum=compact|full"`
	lane.PageQuery
}

// SessionRow is a session in a list: metadata and totals, no exercises.
// It leaves out what the path already says (the trainee) and what is
// empty, so a page of 50 stays small enough for a model to read at once.
type SessionRow struct {
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
	// Exercises name what was done (or is planned), compactly.
	Exercises []string `json:"exercises,omitempty" jsonschema:"The exercises in order, each with what was done (3×5 @80kg) or, planned, its target."`
	// Detail is the exercises whole, with view=full.
	Detail []domain.SessionExercise `json:"detail,omitempty" jsonschema:"With view=full: the exercises with targets and sets."`
}

// rowTotals are a row's non-zero totals.
type rowTotals struct {
	VolumeKg float64 `json:"volumeKg,omitempty"`
	Sets     int     `json:"sets,omitempty"`
	Reps     int     `json:"reps,omitempty"`
	Seconds  int     `json:"seconds,omitempty"`
	Metres   float64 `json:"metres,omitempty"`
}

func RowOf(x domain.Session) SessionRow {
	t := x.Totals
	r := SessionRow{ID: x.ID, ProgramID: x.ProgramID, Date: x.Date, StartTime: x.StartTime, Sport: x.Sport,
		Title: x.Title, Status: x.Status, Source: x.Source, DurationMin: x.DurationMin, RPE: x.RPE,
		Totals: rowTotals{VolumeKg: t.VolumeKg, Sets: t.Sets, Reps: t.Reps, Seconds: t.Seconds, Metres: t.Metres}}
	for _, e := range x.Exercises {
		r.Exercises = append(r.Exercises, training.Compact(e))
	}
	return r
}

type plannedSessionInput struct {
	Date        *string                        `json:"date" jsonschema:"The session's local date, YYYY-MM-DD." lane:"format=date,null=false" when:"start"`
	StartTime   *string                        `json:"startTime,omitempty" jsonschema:"Local start time, HH:MM (24-hour)." lane:"maxLength=5"`
	Sport       string                         `json:"sport" jsonschema:"The sport or type: strength, running, cycling, mobility…" lane:"minLength=1,maxLength=50"`
	Title       *string                        `json:"title,omitempty" jsonschema:"The session's title; the sport when omitted." lane:"minLength=1,maxLength=200"`
	DurationMin *int                           `json:"durationMin,omitempty" jsonschema:"Planned length in minutes." lane:"min=1,max=600"`
	Notes       *string                        `json:"notes,omitempty" jsonschema:"A note for the trainee." lane:"maxLength=2000"`
	Exercises   []catalog.PlannedExerciseInput `json:"exercises,omitempty" jsonschema:"The planned exercises, in order, with their targets." lane:"maxItems=30"`
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
	ExerciseID string     `json:"exerciseId" jsonschema:"A built-in slug (back-squat), exr_… or the exercise's name (search_exercises)." lane:"minLength=1,maxLength=100"`
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
	// ConfirmLoads keeps sets far past the trainee's best (never past what people lift).
	ConfirmLoads *bool `json:"confirmLoads,omitempty" jsonschema:"true: a load far past her best is right."`
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
// longer than lane.MaxRangeDays.
func checkRange(from, to *string) *lane.Error {
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
		return lane.InvalidField("to", fmt.Sprintf("to %s is before from %s; give a range whose to is on or after its from.", *to, *from))
	case days > lane.MaxRangeDays:
		return lane.InvalidField("to", fmt.Sprintf("from %s to %s is %d days; a range is at most %d days, so ask for it in parts.", *from, *to, days, lane.MaxRangeDays))
	}
	return nil
}

// checkClock answers the 422 for a start time that is not HH:MM.
func checkClock(field string, v *string) *lane.Error {
	if v == nil {
		return nil
	}
	if _, err := time.Parse("15:04", *v); err != nil || len(*v) != 5 {
		return lane.InvalidField(field, fmt.Sprintf("%s must be a local time HH:MM (24-hour), such as 07:30; got %q.", field, text.Truncate(*v, 20)))
	}
	return nil
}

func (a *Area) sessionRoutes(rs *lane.Routes) {
	lane.Add(rs, "GET", "/trainees/{id}/sessions", "A trainee's workout sessions, newest date first (status planned: soonest first), as rows naming their exercises compactly (3×5 @80kg); view=full adds the exercises whole, so limit=1&view=full is the latest session in one call.", func(c *lane.Call, q *sessionsQuery) (lane.ListOf[SessionRow], error) {
		if e := checkRange(q.From, q.To); e != nil {
			return lane.ListOf[SessionRow]{}, e
		}
		ss := c.Studio()
		if _, err := lane.Lookup(c.Ctx, ids.Trainee, c.ID(), ss.GetTrainee); err != nil {
			return lane.ListOf[SessionRow]{}, err
		}
		f := store.SessionFilter{TraineeID: c.ID(), Page: q.Page(), Exercises: true}
		if q.From != nil {
			f.From = *q.From
		}
		if q.To != nil {
			f.To = *q.To
		} else if today := c.LocalToday(); (q.Status == nil || *q.Status != domain.SessionPlanned) && (q.From == nil || *q.From <= today) {
			f.To = today // what was done; a from ahead of today asks about what is ahead
		}
		if q.Status != nil {
			f.Status = *q.Status
			// What is ahead reads soonest first: the next session opens the page.
			f.Ascending = *q.Status == domain.SessionPlanned
		}
		res, err := ss.ListSessions(c.Ctx, f)
		rows := store.List[SessionRow]{Items: make([]SessionRow, len(res.Items)), Total: res.Total}
		for i, x := range res.Items {
			rows.Items[i] = RowOf(x)
			if q.View == "full" {
				rows.Items[i].Detail = x.Exercises
			}
		}
		return lane.PageOf(rows, q.Page()), err
	}, lane.Tool("list_trainee_sessions"), lane.Trainee(auth.ScopeTrainingRead), lane.TraineeTool("list_sessions"),
		lane.Allow(lane.Under("items", SessionRowFields...)...), lane.Allow("total", "nextOffset"))
	lane.Add(rs, "GET", "/sessions/{id}", "One session's full record: its exercises in order with targets and the sets done, and its totals.", func(c *lane.Call, _ *lane.NoInput) (domain.Session, error) {
		return lane.Lookup(c.Ctx, ids.Session, c.ID(), c.Studio().GetSession)
	}, lane.Tool("get_session"), lane.Trainee(auth.ScopeTrainingRead), lane.TraineeTool("get_session_details"), lane.Allow(SessionFields...))
	lane.Add(rs, "POST", "/trainees/{id}/sessions", "Plan a session for a trainee (source coach; trainee when the trainee plans it). Nothing is sent to the trainee.", a.createPlannedSession, lane.Tool("create_planned_session"), lane.Created(),
		lane.Trainee(auth.ScopeTrainingWrite), lane.TraineeTool("create_planned_session"), lane.Allow(SessionFields...))
	lane.Add(rs, "POST", "/trainees/{id}/workouts", "Log a workout: a new completed session, or a planned one completed with its actuals. The same trainee, date, sport and duration is one workout: a repeat answers 200 with the session already logged. Sets that beat the trainee's estimated 1RM record PRs.", a.logWorkout, lane.Tool("log_workout"), lane.Created(),
		lane.Trainee(auth.ScopeTrainingWrite), lane.TraineeTool("log_workout"), lane.Allow(lane.Under("session", SessionFields...)...),
		lane.Allow("alreadyLogged", "prs.benchmarkId", "prs.exerciseId", "prs.name", "prs.loadKg", "prs.reps", "prs.e1rmKg", "prs.previousBest"))
	lane.Add(rs, "POST", "/sessions/{id}/modify", "Modify a planned session: reduce its volume, raise its intensity, swap an exercise or reschedule it.", a.modifySession, lane.Tool("modify_session"),
		lane.Trainee(auth.ScopeTrainingWrite), lane.TraineeTool("modify_training_session", "swap_exercise"),
		lane.Allow("summary", "operation", "changed"), lane.Allow(lane.Under("session", SessionFields...)...))
	lane.Add(rs, "PATCH", "/sessions/{id}", "Change a session's status (skipped, missed, back to planned), title, start time, RPE, notes or feedback.", a.updateSession)
	a.benchmarkRoutes(rs)
}

func (a *Area) createPlannedSession(c *lane.Call, in *plannedSessionInput) (domain.Session, error) {
	if e := checkClock("startTime", in.StartTime); e != nil {
		return domain.Session{}, e
	}
	var out domain.Session
	err := c.InTx(func(ss store.StudioStore) error {
		t, err := lane.Lookup(c.Ctx, ids.Trainee, c.ID(), ss.GetTrainee)
		if err != nil {
			return err
		}
		var errs []lane.FieldError
		var planned []domain.SessionExercise
		for i, e := range in.Exercises {
			ex, fe := catalog.Exercise(c, ss, fmt.Sprintf("exercises[%d].exerciseId", i), e.ExerciseID)
			if fe != nil {
				errs = append(errs, *fe)
				continue
			}
			tg := e.Target()
			planned = append(planned, domain.SessionExercise{ExerciseID: ex.ID, Name: ex.Name, Target: &tg, Sets: []domain.SetEntry{}, Notes: e.Notes})
		}
		if len(errs) > 0 {
			return lane.ValidationError(errs)
		}
		now := c.Now().UTC()
		out = domain.Session{
			ID: ids.New(ids.Session), TraineeID: t.ID, Date: *in.Date, StartTime: in.StartTime,
			Sport: strings.ToLower(strings.TrimSpace(in.Sport)), Status: domain.SessionPlanned, Source: sessionSource(c),
			DurationMin: in.DurationMin, Notes: in.Notes, Exercises: lane.NonNil(planned), CreatedAt: now, UpdatedAt: now,
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

// The fields a trainee's answers keep of sessions and benchmarks (allow
// lists; see lane.Allow). Who wrote a record and when it was last touched
// are bookkeeping, not training.
var (
	SessionFields    = []string{"id", "date", "startTime", "sport", "title", "status", "source", "durationMin", "rpe", "notes", "feedback", "programId", "completedAt", "exercises", "totals"}
	SessionRowFields = []string{"id", "date", "startTime", "sport", "title", "status", "source", "durationMin", "rpe", "programId", "totals", "exercises", "detail"}
	BenchmarkFields  = []string{"id", "name", "unit", "direction", "exerciseId", "best", "latest", "change4Weeks", "change12Weeks", "entries", "recent"}
)

// sessionSource is who a session planned or logged now comes from.
func sessionSource(c *lane.Call) string { return c.Author() }
