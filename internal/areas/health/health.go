package health

import (
	"errors"
	"slices"
	"time"

	"github.com/otherwise/perform/internal/answers"
	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/store"
)

// The health routes and daily check-ins; weighins.go and measurements.go
// hold the body's numbers, injuries.go, goals.go and profile.go the rest
// of the area.

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

	a.weighInRoutes(rs)
	a.measurementRoutes(rs)

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
