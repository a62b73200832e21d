package health

import (
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/otherwise/perform/internal/answers"
	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/training"
	"github.com/otherwise/perform/internal/views"
)

// The health routes, body measurements and analysis, and daily check-ins;
// injuries.go, goals.go and profile.go hold the rest of the area.

// dayStart is the instant day begins in loc.
func dayStart(day string, loc *time.Location) time.Time {
	t, _ := time.ParseInLocation(time.DateOnly, day, loc)
	return t
}

func (a *Area) healthRoutes(rs *lane.Routes) {
	lane.Add(rs, "POST", "/trainees/{id}/goals/manage", "A trainee's goals in one call: create one, update or complete one (goalId), or list them with their progress. Nothing is sent to the trainee.", a.manageGoals,
		lane.Trainee(auth.ScopeTrainingWrite), lane.TraineeTool("manage_goals"),
		lane.Allow("action"), lane.Allow(lane.Under("goal", GoalFields...)...), lane.Allow("goal.progress"),
		lane.Allow(lane.Under("goals.items", GoalFields...)...), lane.Allow("goals.items.progress", "goals.total", "goals.nextOffset"))
	lane.Add(rs, "PATCH", "/trainees/{id}/training-profile", "Change only the fields given of a trainee's training profile (equipment, availability, sessionMinutes, experience, units, sport, goal, health conditions); the answer carries the onboarding status.", a.patchTrainingProfile, lane.Tool("update_training_profile"),
		lane.Trainee(auth.ScopeTrainingWrite), lane.TraineeTool("update_training_profile"),
		lane.Allow("equipment", "availability", "sessionMinutes", "experience", "units", "sport", "goal", "conditions", "onboarding", "onboardingStatus"))

	lane.Add(rs, "GET", "/trainees/{id}/measurements", "A trainee's body measurements, newest first.", func(c *lane.Call, q *lane.PageQuery) (lane.ListOf[domain.Measurement], error) {
		res, err := c.Studio().ListMeasurements(c.Ctx, c.ID(), q.Page())
		return lane.PageOf(res, q.Page()), err
	})
	lane.Add(rs, "POST", "/trainees/{id}/measurements", "Record a trainee's body measurements (at least one).", a.recordMeasurement, lane.Created(),
		lane.Trainee(auth.ScopeHealthWrite), lane.TraineeTool("log_measurement"),
		lane.Allow("id", "recordedAt", "bodyFatPct", "waistCm", "hipsCm", "chestCm", "armCm", "thighCm", "restingHr", "notes"))
	lane.Add(rs, "GET", "/trainees/{id}/body-analysis", "A trainee's weight and body measurements over a range: first, latest and change of each.", a.bodyAnalysis, lane.Tool("get_body_analysis"),
		lane.Trainee(auth.ScopeHealthRead), lane.TraineeTool("get_body_analysis"), lane.Allow("from", "to", "metrics"), lane.View(views.BodyTrend))

	lane.Add(rs, "POST", "/trainees/{id}/check-ins", "Record a trainee's daily check-in; a second one the same local day updates the first.", a.checkIn, lane.Created(),
		lane.Trainee(auth.ScopeHealthWrite), lane.TraineeTool("daily_check_in"), lane.Allow(CheckInFields...), lane.Allow("updated"))
	lane.Add(rs, "GET", "/trainees/{id}/check-ins", "A trainee's daily check-ins, newest day first.", func(c *lane.Call, q *checkInsQuery) (lane.ListOf[domain.CheckIn], error) {
		from, to, e := c.Days(q.DayRange)
		if e != nil {
			return lane.ListOf[domain.CheckIn]{}, e
		}
		res, err := c.Studio().ListCheckIns(c.Ctx, c.ID(), from, to, q.Page())
		return lane.PageOf(res, q.Page()), err
	}, lane.Tool("list_trainee_checkins"))

	lane.Add(rs, "POST", "/trainees/{id}/injuries", "Record a trainee's injury; the answer says which planned exercises of the next 14 days it concerns, and their alternatives.", a.recordInjury, lane.Created(), lane.Tool("record_injury"),
		lane.Trainee(auth.ScopeHealthWrite), lane.TraineeTool("record_injury"),
		lane.Allow("id", "area", "side", "severity", "kind", "status", "onsetOn", "resolvedOn", "notes", "affectedExercises", "guidance"))
	lane.Add(rs, "PATCH", "/injuries/{id}", "Change an injury's status, severity, kind, notes or resolution day.", a.updateInjury)
	lane.Add(rs, "GET", "/trainees/{id}/injuries", "A trainee's injuries, newest onset first.", func(c *lane.Call, q *injuriesQuery) (lane.ListOf[domain.Injury], error) {
		all, err := c.Studio().ListInjuries(c.Ctx, c.ID(), q.Status)
		return lane.PageSlice(all, q.Page()), err
	})

	lane.Add(rs, "POST", "/trainees/{id}/goals", "Set a trainee a goal; the answer carries its progress where the kind allows.", a.createGoal, lane.Created())
	lane.Add(rs, "PATCH", "/goals/{id}", "Change a goal, or complete or abandon it (status).", a.updateGoal,
		lane.Trainee(auth.ScopeTrainingWrite), lane.Allow(GoalFields...), lane.Allow("progress"))
	lane.Add(rs, "GET", "/trainees/{id}/goals", "A trainee's goals, oldest first, each with its progress.", a.listGoals)

	lane.Add(rs, "GET", "/trainees/{id}/training-profile", "A trainee's training profile and onboarding status.", a.getTrainingProfile,
		lane.Trainee(auth.ScopeProfileRead), lane.TraineeTool("get_onboarding_status"),
		lane.Allow("experience", "availability", "equipment", "sessionMinutes", "units", "sport", "goal", "conditions", "onboarding", "onboardingStatus"))
	lane.Add(rs, "PUT", "/trainees/{id}/training-profile", "Write a trainee's whole training profile; the answer carries the onboarding status.", a.putTrainingProfile)
}

// Measurements.

type measurementInput struct {
	RecordedAt *time.Time `json:"recordedAt,omitempty" jsonschema:"When it was measured; now when omitted." when:"happened"`
	BodyFatPct *float64   `json:"bodyFatPct,omitempty" jsonschema:"Body fat, percent, 2 to 70." lane:"min=2,max=70,null=false"`
	WaistCm    *float64   `json:"waistCm,omitempty" jsonschema:"Waist, cm, 30 to 250." lane:"min=30,max=250,null=false"`
	HipsCm     *float64   `json:"hipsCm,omitempty" jsonschema:"Hips, cm, 30 to 250." lane:"min=30,max=250,null=false"`
	ChestCm    *float64   `json:"chestCm,omitempty" jsonschema:"Chest, cm, 30 to 250." lane:"min=30,max=250,null=false"`
	ArmCm      *float64   `json:"armCm,omitempty" jsonschema:"Upper arm, cm, 10 to 80." lane:"min=10,max=80,null=false"`
	ThighCm    *float64   `json:"thighCm,omitempty" jsonschema:"Thigh, cm, 20 to 120." lane:"min=20,max=120,null=false"`
	RestingHR  *int       `json:"restingHr,omitempty" jsonschema:"Resting heart rate, beats per minute, 25 to 150." lane:"min=25,max=150,null=false"`
	Notes      *string    `json:"notes,omitempty" jsonschema:"A note." lane:"maxLength=1000"`
}

func (a *Area) recordMeasurement(c *lane.Call, in *measurementInput) (domain.Measurement, error) {
	if in.BodyFatPct == nil && in.WaistCm == nil && in.HipsCm == nil && in.ChestCm == nil && in.ArmCm == nil && in.ThighCm == nil && in.RestingHR == nil {
		return domain.Measurement{}, lane.InvalidField("bodyFatPct", "Send at least one measurement: bodyFatPct, waistCm, hipsCm, chestCm, armCm, thighCm or restingHr (a weight goes to log_weight).")
	}
	now := c.Now().UTC()
	m := domain.Measurement{ID: ids.New(ids.Measurement), TraineeID: c.ID(), RecordedAt: now, BodyFatPct: in.BodyFatPct, WaistCm: in.WaistCm,
		HipsCm: in.HipsCm, ChestCm: in.ChestCm, ArmCm: in.ArmCm, ThighCm: in.ThighCm, RestingHR: in.RestingHR, Notes: lane.Trimmed(in.Notes), CreatedAt: now,
		LoggedBy: c.Author()}
	if in.RecordedAt != nil {
		m.RecordedAt = in.RecordedAt.UTC()
	}
	return m, c.Studio().CreateMeasurement(c.Ctx, &m)
}

type bodyAnalysisQuery struct {
	lane.DayRange
}

type bodyAnalysis struct {
	TraineeID string `json:"traineeId"`
	Name      string `json:"name" jsonschema:"The trainee's name."`
	From      string `json:"from"`
	To        string `json:"to"`
	training.BodyAnalysis
}

func (a *Area) bodyAnalysis(c *lane.Call, q *bodyAnalysisQuery) (bodyAnalysis, error) {
	from, to, e := c.Days(q.DayRange)
	if e != nil {
		return bodyAnalysis{}, e
	}
	ss := c.Studio()
	t, err := lane.Lookup(c.Ctx, ids.Trainee, c.ID(), ss.GetTrainee)
	if err != nil {
		return bodyAnalysis{}, err
	}
	start, end := dayStart(from, c.Zone()), dayStart(lane.AddDays(to, 1), c.Zone())
	weights, err := ss.WeightsBetween(c.Ctx, c.ID(), start, end)
	if err != nil {
		return bodyAnalysis{}, err
	}
	ms, err := ss.MeasurementsBetween(c.Ctx, c.ID(), start, end)
	if err != nil {
		return bodyAnalysis{}, err
	}
	return bodyAnalysis{TraineeID: c.ID(), Name: strings.TrimSpace(t.FirstName + " " + t.LastName), From: from, To: to, BodyAnalysis: training.AnalyseBody(weights, ms, c.Zone(), c.FirstDay())}, nil
}

// Check-ins.

type checkInInput struct {
	At           *time.Time `json:"at,omitempty" jsonschema:"When the trainee checked in; now when omitted. Its day in the studio's time zone is the check-in's day." when:"happened"`
	Readiness    *int       `json:"readiness,omitempty" jsonschema:"How ready to train, 1 (not at all) to 10 (fully)." lane:"min=1,max=10"`
	Soreness     *int       `json:"soreness,omitempty" jsonschema:"How sore, 1 (not at all) to 10 (very)." lane:"min=1,max=10"`
	SoreAreas    []string   `json:"soreAreas,omitempty" jsonschema:"Where it is sore." lane:"enum=neck|shoulder|upper_back|lower_back|chest|elbow|wrist|hand|abdomen|hip|groin|glute|hamstring|quadriceps|knee|calf|shin|ankle|foot,maxItems=19"`
	SleepHours   *float64   `json:"sleepHours,omitempty" jsonschema:"Hours slept, 0 to 24." lane:"min=0,max=24"`
	SleepQuality *int       `json:"sleepQuality,omitempty" jsonschema:"Sleep quality, 1 (poor) to 5 (great)." lane:"min=1,max=5"`
	Mood         *int       `json:"mood,omitempty" jsonschema:"Mood, 1 (low) to 5 (great)." lane:"min=1,max=5"`
	Stress       *int       `json:"stress,omitempty" jsonschema:"Stress, 1 (calm) to 5 (very stressed)." lane:"min=1,max=5"`
	Note         *string    `json:"note,omitempty" jsonschema:"A note in the trainee's words." lane:"maxLength=1000"`
}

// checkInFields are the check-in's fields besides at.
var checkInFields = []string{"readiness", "soreness", "soreAreas", "sleepHours", "sleepQuality", "mood", "stress", "note"}

type checkInsQuery struct {
	lane.DayRange
	lane.PageQuery
}

func (a *Area) checkIn(c *lane.Call, in *checkInInput) (answers.CheckIn, error) {
	if !slices.ContainsFunc(checkInFields, c.Has) {
		return answers.CheckIn{}, lane.InvalidField("readiness", "Send at least one of readiness, soreness, soreAreas, sleepHours, sleepQuality, mood, stress or note.")
	}
	at := c.Now()
	if in.At != nil {
		at = *in.At
	}
	day := lane.LocalDay(at, c.Zone())
	var out answers.CheckIn
	err := c.InTx(func(ss store.StudioStore) error {
		if _, err := lane.Lookup(c.Ctx, ids.Trainee, c.ID(), ss.GetTrainee); err != nil {
			return err
		}
		ci, err := ss.CheckInOn(c.Ctx, c.ID(), day)
		switch {
		case errors.Is(err, store.ErrNotFound):
			ci = domain.CheckIn{ID: ids.New(ids.CheckIn), TraineeID: c.ID(), Day: day, CreatedAt: c.Now().UTC(), LoggedBy: c.Author()}
		case err != nil:
			return err
		}
		// The fields sent replace the day's; null clears one.
		set := func(field string, apply func()) {
			if c.Has(field) {
				apply()
			}
		}
		set("readiness", func() { ci.Readiness = in.Readiness })
		set("soreness", func() { ci.Soreness = in.Soreness })
		set("soreAreas", func() { ci.SoreAreas = lane.CleanStrings(in.SoreAreas) })
		set("sleepHours", func() { ci.SleepHours = in.SleepHours })
		set("sleepQuality", func() { ci.SleepQuality = in.SleepQuality })
		set("mood", func() { ci.Mood = in.Mood })
		set("stress", func() { ci.Stress = in.Stress })
		set("note", func() { ci.Note = lane.Trimmed(in.Note) })
		ci.UpdatedAt = c.Now().UTC()
		replaced, err := ss.PutCheckIn(c.Ctx, &ci)
		out = answers.CheckIn{CheckIn: ci, Updated: replaced}
		return err
	})
	if err == nil {
		c.SetResource(out.ID)
	}
	return out, err
}
