package lane

import (
	"encoding/json"
	"errors"
	"fmt"
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

// The health side of the training memory: the studio's time zone, body
// measurements and analysis, daily check-ins, injuries with guidance,
// goals with progress, and the training profile with the onboarding status.

// maxRangeDays is the longest from..to a read takes at once.
const maxRangeDays = 366

// dayRange is a from..to of local days in the studio's zone.
type dayRange struct {
	From *string `json:"from,omitempty" jsonschema:"First day, YYYY-MM-DD in the studio's time zone, inclusive; 365 days before to when omitted." lane:"format=date"`
	To   *string `json:"to,omitempty" jsonschema:"Last day, YYYY-MM-DD in the studio's time zone, inclusive; today when omitted (or 365 days after from). At most 366 days from from." lane:"format=date"`
}

// days resolves the range: both ends local days, from ≤ to, at most
// maxRangeDays long.
func (c *Call) days(q dayRange) (from, to string, err *Error) {
	switch {
	case q.From == nil && q.To == nil:
		to = c.LocalToday()
		from = AddDays(to, -(maxRangeDays - 1))
	case q.From == nil:
		to = *q.To
		from = AddDays(to, -(maxRangeDays - 1))
	case q.To == nil:
		from = *q.From
		to = AddDays(from, maxRangeDays-1)
	default:
		from, to = *q.From, *q.To
	}
	f, _ := time.Parse(time.DateOnly, from)
	t, _ := time.Parse(time.DateOnly, to)
	if t.Before(f) {
		return "", "", InvalidField("from", fmt.Sprintf("from must be on or before to; got from %s and to %s.", from, to))
	}
	if n := int(t.Sub(f).Hours()/24) + 1; n > maxRangeDays {
		return "", "", InvalidField("to", fmt.Sprintf("from..to spans %d days and at most %d are read at once; narrow the range (from %s and to %s).", n, maxRangeDays, from, to))
	}
	return from, to, nil
}

// dayStart is the instant day begins in loc.
func dayStart(day string, loc *time.Location) time.Time {
	t, _ := time.ParseInLocation(time.DateOnly, day, loc)
	return t
}

func (l *Lane) healthRoutes(rs *Routes) {
	Add(rs, "GET", "/studio/settings", "The studio's settings the lane reads: its time zone.", func(c *Call, _ *NoInput) (studioSettings, error) {
		return studioSettings{TimeZone: c.Zone().String()}, nil
	}, Admin())
	Add(rs, "PATCH", "/studio/settings", "Set the studio's time zone: the zone its local days (session dates, check-in days, weeks) are in.", l.updateStudioSettings, Admin())

	Add(rs, "GET", "/trainees/{id}/measurements", "A trainee's body measurements, newest first.", func(c *Call, q *PageQuery) (ListOf[domain.Measurement], error) {
		res, err := c.Studio().ListMeasurements(c.Ctx, c.ID(), q.Page())
		return PageOf(res, q.Page()), err
	})
	Add(rs, "POST", "/trainees/{id}/measurements", "Record a trainee's body measurements (at least one).", l.recordMeasurement, Created(),
		Trainee(auth.ScopeHealthWrite), TraineeTool("log_measurement"),
		Allow("id", "recordedAt", "bodyFatPct", "waistCm", "hipsCm", "chestCm", "armCm", "thighCm", "restingHr", "notes"))
	Add(rs, "GET", "/trainees/{id}/body-analysis", "A trainee's weight and body measurements over a range: first, latest and change of each.", l.bodyAnalysis,
		Trainee(auth.ScopeHealthRead), TraineeTool("get_body_analysis"), Allow("from", "to", "metrics"))

	Add(rs, "POST", "/trainees/{id}/check-ins", "Record a trainee's daily check-in; a second one the same local day updates the first.", l.checkIn, Created(),
		Trainee(auth.ScopeHealthWrite), TraineeTool("daily_check_in"), Allow(checkInAllow...), Allow("updated"))
	Add(rs, "GET", "/trainees/{id}/check-ins", "A trainee's daily check-ins, newest day first.", func(c *Call, q *checkInsQuery) (ListOf[domain.CheckIn], error) {
		from, to, e := c.days(q.dayRange)
		if e != nil {
			return ListOf[domain.CheckIn]{}, e
		}
		res, err := c.Studio().ListCheckIns(c.Ctx, c.ID(), from, to, q.Page())
		return PageOf(res, q.Page()), err
	}, Tool("list_trainee_checkins"))

	Add(rs, "POST", "/trainees/{id}/injuries", "Record a trainee's injury; the answer says which planned exercises of the next 14 days it concerns, and their alternatives.", l.recordInjury, Created(),
		Trainee(auth.ScopeHealthWrite), TraineeTool("record_injury"),
		Allow("id", "area", "side", "severity", "status", "onsetOn", "resolvedOn", "notes", "affectedExercises", "guidance"))
	Add(rs, "PATCH", "/injuries/{id}", "Change an injury's status, severity, notes or resolution day.", l.updateInjury)
	Add(rs, "GET", "/trainees/{id}/injuries", "A trainee's injuries, newest onset first.", func(c *Call, q *injuriesQuery) (ListOf[domain.Injury], error) {
		all, err := c.Studio().ListInjuries(c.Ctx, c.ID(), q.Status)
		return PageSlice(all, q.Page()), err
	})

	Add(rs, "POST", "/trainees/{id}/goals", "Set a trainee a goal; the answer carries its progress where the kind allows.", l.createGoal, Created())
	Add(rs, "PATCH", "/goals/{id}", "Change a goal, or complete or abandon it (status).", l.updateGoal,
		Trainee(auth.ScopeTrainingWrite), Allow(goalFields...), Allow("progress"))
	Add(rs, "GET", "/trainees/{id}/goals", "A trainee's goals, oldest first, each with its progress.", l.listGoals)

	Add(rs, "GET", "/trainees/{id}/training-profile", "A trainee's training profile and onboarding status.", l.getTrainingProfile,
		Trainee(auth.ScopeProfileRead), TraineeTool("get_onboarding_status"),
		Allow("experience", "availability", "equipment", "sessionMinutes", "units", "onboarding", "onboardingStatus"))
	Add(rs, "PUT", "/trainees/{id}/training-profile", "Write a trainee's whole training profile; the answer carries the onboarding status.", l.putTrainingProfile)
}

// The studio's time zone.

type studioSettings struct {
	TimeZone string `json:"timeZone"`
}

type studioSettingsInput struct {
	TimeZone string `json:"timeZone" jsonschema:"An IANA time zone name, such as Asia/Jerusalem, Europe/London or America/New_York." lane:"minLength=1,maxLength=100"`
}

func (l *Lane) updateStudioSettings(c *Call, in *studioSettingsInput) (studioSettings, error) {
	name := strings.TrimSpace(in.TimeZone)
	loc, err := domain.LoadZone(name)
	if err != nil {
		return studioSettings{}, InvalidField("timeZone", fmt.Sprintf("timeZone must be an IANA time zone name such as Asia/Jerusalem or Europe/London; %q is not one.", text.Truncate(name, 100)))
	}
	// The settings' other keys (the assistant's) are kept as they are.
	err = c.DB().InTx(c.Ctx, func(tx store.Store) error {
		st, err := tx.StudioByID(c.Ctx, c.P.StudioID)
		if err != nil {
			return err
		}
		all := map[string]json.RawMessage{}
		if len(st.Settings) > 0 && string(st.Settings) != "null" {
			if err := json.Unmarshal(st.Settings, &all); err != nil {
				return fmt.Errorf("the studio's settings are not a JSON object: %w", err)
			}
		}
		all["timeZone"], _ = json.Marshal(loc.String())
		raw, err := json.Marshal(all)
		if err != nil {
			return err
		}
		return tx.UpdateStudioSettings(c.Ctx, c.P.StudioID, raw)
	})
	return studioSettings{TimeZone: loc.String()}, err
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

func (l *Lane) recordMeasurement(c *Call, in *measurementInput) (domain.Measurement, error) {
	if in.BodyFatPct == nil && in.WaistCm == nil && in.HipsCm == nil && in.ChestCm == nil && in.ArmCm == nil && in.ThighCm == nil && in.RestingHR == nil {
		return domain.Measurement{}, InvalidField("bodyFatPct", "Send at least one measurement: bodyFatPct, waistCm, hipsCm, chestCm, armCm, thighCm or restingHr (weight goes to POST /trainees/{id}/weights).")
	}
	now := l.now().UTC()
	m := domain.Measurement{ID: ids.New(ids.Measurement), TraineeID: c.ID(), RecordedAt: now, BodyFatPct: in.BodyFatPct, WaistCm: in.WaistCm,
		HipsCm: in.HipsCm, ChestCm: in.ChestCm, ArmCm: in.ArmCm, ThighCm: in.ThighCm, RestingHR: in.RestingHR, Notes: trimmed(in.Notes), CreatedAt: now}
	if in.RecordedAt != nil {
		m.RecordedAt = in.RecordedAt.UTC()
	}
	return m, c.Studio().CreateMeasurement(c.Ctx, &m)
}

type bodyAnalysisQuery struct {
	dayRange
}

type bodyAnalysis struct {
	TraineeID string `json:"traineeId"`
	From      string `json:"from"`
	To        string `json:"to"`
	training.BodyAnalysis
}

func (l *Lane) bodyAnalysis(c *Call, q *bodyAnalysisQuery) (bodyAnalysis, error) {
	from, to, e := c.days(q.dayRange)
	if e != nil {
		return bodyAnalysis{}, e
	}
	ss := c.Studio()
	if _, err := Lookup(c.Ctx, ids.Trainee, c.ID(), ss.GetTrainee); err != nil {
		return bodyAnalysis{}, err
	}
	start, end := dayStart(from, c.Zone()), dayStart(AddDays(to, 1), c.Zone())
	weights, err := ss.WeightsBetween(c.Ctx, c.ID(), start, end)
	if err != nil {
		return bodyAnalysis{}, err
	}
	ms, err := ss.MeasurementsBetween(c.Ctx, c.ID(), start, end)
	if err != nil {
		return bodyAnalysis{}, err
	}
	return bodyAnalysis{TraineeID: c.ID(), From: from, To: to, BodyAnalysis: training.AnalyseBody(weights, ms)}, nil
}

// trimmed is s trimmed, nil when empty.
func trimmed(s *string) *string {
	if s == nil {
		return nil
	}
	t := strings.TrimSpace(*s)
	if t == "" {
		return nil
	}
	return &t
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

type checkInAnswer struct {
	domain.CheckIn
	Updated bool `json:"updated" jsonschema:"true when the trainee had checked in that day already and this updated it (the fields sent replace theirs)."`
}

type checkInsQuery struct {
	dayRange
	PageQuery
}

func (l *Lane) checkIn(c *Call, in *checkInInput) (checkInAnswer, error) {
	if !slices.ContainsFunc(checkInFields, c.Has) {
		return checkInAnswer{}, InvalidField("readiness", "Send at least one of readiness, soreness, soreAreas, sleepHours, sleepQuality, mood, stress or note.")
	}
	at := l.now()
	if in.At != nil {
		at = *in.At
	}
	day := LocalDay(at, c.Zone())
	var out checkInAnswer
	err := c.InTx(func(ss store.StudioStore) error {
		if _, err := Lookup(c.Ctx, ids.Trainee, c.ID(), ss.GetTrainee); err != nil {
			return err
		}
		ci, err := ss.CheckInOn(c.Ctx, c.ID(), day)
		switch {
		case errors.Is(err, store.ErrNotFound):
			ci = domain.CheckIn{ID: ids.New(ids.CheckIn), TraineeID: c.ID(), Day: day, CreatedAt: l.now().UTC()}
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
		set("soreAreas", func() { ci.SoreAreas = CleanStrings(in.SoreAreas) })
		set("sleepHours", func() { ci.SleepHours = in.SleepHours })
		set("sleepQuality", func() { ci.SleepQuality = in.SleepQuality })
		set("mood", func() { ci.Mood = in.Mood })
		set("stress", func() { ci.Stress = in.Stress })
		set("note", func() { ci.Note = trimmed(in.Note) })
		ci.UpdatedAt = l.now().UTC()
		replaced, err := ss.PutCheckIn(c.Ctx, &ci)
		out = checkInAnswer{CheckIn: ci, Updated: replaced}
		return err
	})
	if err == nil {
		c.SetResource(out.ID)
	}
	return out, err
}

// Injuries.

type injuryInput struct {
	Area              string   `json:"area" jsonschema:"The body area." lane:"enum=neck|shoulder|upper_back|lower_back|chest|elbow|wrist|hand|abdomen|hip|groin|glute|hamstring|quadriceps|knee|calf|shin|ankle|foot"`
	Side              *string  `json:"side,omitempty" jsonschema:"left, right, both or none (the default: a midline area)." lane:"enum=left|right|both|none,null=false"`
	Severity          int      `json:"severity" jsonschema:"1 (a niggle) to 5 (cannot train it)." lane:"min=1,max=5"`
	Status            *string  `json:"status,omitempty" jsonschema:"active (the default) or recovering." lane:"enum=active|recovering,null=false"`
	OnsetOn           *string  `json:"onsetOn,omitempty" jsonschema:"The day it started, YYYY-MM-DD in the studio's time zone; today when omitted." lane:"format=date,null=false" when:"past"`
	AffectedExercises []string `json:"affectedExercises,omitempty" jsonschema:"Exercises it rules out or hurts, by id: Perform's catalogue (back-squat) or the studio's own (exr_…)." lane:"minLength=1,maxLength=100,maxItems=30"`
	Notes             *string  `json:"notes,omitempty" jsonschema:"A note." lane:"maxLength=2000"`
}

type updateInjuryInput struct {
	Status     *string `json:"status,omitempty" jsonschema:"active, recovering or resolved; resolved sets resolvedOn to today unless sent." lane:"enum=active|recovering|resolved,null=false"`
	Severity   *int    `json:"severity,omitempty" jsonschema:"1 (a niggle) to 5 (cannot train it)." lane:"min=1,max=5,null=false"`
	Notes      *string `json:"notes,omitempty" jsonschema:"A note; null removes it." lane:"maxLength=2000"`
	ResolvedOn *string `json:"resolvedOn,omitempty" jsonschema:"The day it resolved, YYYY-MM-DD, from onsetOn to today; only with status resolved." lane:"format=date,null=false" when:"past"`
}

type injuriesQuery struct {
	Status string `json:"status,omitempty" jsonschema:"Only injuries with this status." lane:"enum=active|recovering|resolved"`
	PageQuery
}

// injuryAnswer is an injury and, unless resolved, what it means for the
// trainee's planned sessions.
type injuryAnswer struct {
	domain.Injury
	Guidance *training.Guidance `json:"guidance,omitempty" jsonschema:"Unless resolved: the planned exercises of the next 14 days that load the area or that the injury names, each with the catalogue's alternatives that spare the area."`
}

func (l *Lane) recordInjury(c *Call, in *injuryInput) (injuryAnswer, error) {
	today := c.LocalToday()
	onset := today
	if in.OnsetOn != nil {
		onset = *in.OnsetOn
		if onset > today { // the when rule admits the UTC day after; the studio's today is exact
			return injuryAnswer{}, InvalidField("onsetOn", fmt.Sprintf("onsetOn must not be after today (%s) in the studio's time zone; got %s.", today, onset))
		}
	}
	inj := domain.Injury{ID: ids.New(ids.Injury), TraineeID: c.ID(), Area: in.Area, Side: "none", Severity: in.Severity, Status: domain.InjuryActive,
		OnsetOn: onset, AffectedExercises: CleanStrings(in.AffectedExercises), Notes: trimmed(in.Notes), CreatedAt: l.now().UTC()}
	inj.UpdatedAt = inj.CreatedAt
	if in.Side != nil {
		inj.Side = *in.Side
	}
	if in.Status != nil {
		inj.Status = *in.Status
	}
	var out injuryAnswer
	err := c.InTx(func(ss store.StudioStore) error {
		t, err := Lookup(c.Ctx, ids.Trainee, c.ID(), ss.GetTrainee)
		if err != nil {
			return err
		}
		if err := c.checkExercises(ss, inj.AffectedExercises); err != nil {
			return err
		}
		if err := ss.CreateInjury(c.Ctx, &inj); err != nil {
			return err
		}
		// A trainee's own report reaches their coaches (trainee_self.go).
		if isTraineePrincipal(c.P) {
			if err := c.tellCoachesOfInjury(ss, t, inj); err != nil {
				return err
			}
		}
		out, err = c.withGuidance(ss, inj)
		return err
	})
	if err == nil {
		c.SetResource(inj.ID)
	}
	return out, err
}

// checkExercises answers a sentence for the first id that names no
// exercise: not one of Perform's catalogue, nor the studio's own.
func (c *Call) checkExercises(ss store.StudioStore, list []string) error {
	for _, id := range list {
		if _, ok := exercises.Get(id); ok {
			continue
		}
		if !ids.Valid(id, ids.Exercise) {
			return InvalidField("affectedExercises", fmt.Sprintf("affectedExercises: %q is not an exercise id; Perform's ids look like back-squat and the studio's own like exr_…. Use search_exercises to find one.", text.Truncate(id, 100)))
		}
		if _, err := Lookup(c.Ctx, ids.Exercise, id, ss.GetExercise); err != nil {
			return err
		}
	}
	return nil
}

// withGuidance answers inj with its guidance unless it is resolved.
func (c *Call) withGuidance(ss store.StudioStore, inj domain.Injury) (injuryAnswer, error) {
	out := injuryAnswer{Injury: inj}
	if inj.Status == domain.InjuryResolved {
		return out, nil
	}
	from := c.LocalToday()
	to := AddDays(from, training.GuidanceDays-1)
	planned, err := ss.SessionsBetween(c.Ctx, inj.TraineeID, from, to)
	if err != nil {
		return out, err
	}
	find := c.exerciseFinder(ss)
	g := training.InjuryGuidance(inj.Area, inj.AffectedExercises, planned, from, to, find)
	out.Guidance = &g
	return out, nil
}

// exerciseFinder looks exercises up in Perform's catalogue, then in the
// studio's own (each asked once; nil marks one the studio does not have).
func (c *Call) exerciseFinder(ss store.StudioStore) training.Find {
	asked := map[string]*domain.Exercise{}
	return func(id string) (domain.Exercise, bool) {
		if e, ok := exercises.Get(id); ok {
			return e, true
		}
		if !ids.Valid(id, ids.Exercise) {
			return domain.Exercise{}, false
		}
		e, seen := asked[id]
		if !seen {
			if got, err := ss.GetExercise(c.Ctx, id); err == nil {
				e = &got
			}
			asked[id] = e
		}
		if e == nil {
			return domain.Exercise{}, false
		}
		return *e, true
	}
}

func (l *Lane) updateInjury(c *Call, in *updateInjuryInput) (injuryAnswer, error) {
	var out injuryAnswer
	err := c.InTx(func(ss store.StudioStore) error {
		inj, err := Lookup(c.Ctx, ids.Injury, c.ID(), ss.GetInjury)
		if err != nil {
			return err
		}
		today := c.LocalToday()
		status := inj.Status
		if in.Status != nil {
			status = *in.Status
		}
		switch {
		case in.ResolvedOn != nil && status != domain.InjuryResolved:
			return InvalidField("resolvedOn", fmt.Sprintf("resolvedOn only goes with status resolved, and the injury would be %s; send status resolved with it, or drop it.", status))
		case in.ResolvedOn != nil && (*in.ResolvedOn < inj.OnsetOn || *in.ResolvedOn > today):
			return InvalidField("resolvedOn", fmt.Sprintf("resolvedOn must be a day from the onset (%s) to today (%s); got %s.", inj.OnsetOn, today, *in.ResolvedOn))
		case in.ResolvedOn != nil:
			inj.ResolvedOn = in.ResolvedOn
		case status == domain.InjuryResolved && inj.ResolvedOn == nil:
			inj.ResolvedOn = &today
		case status != domain.InjuryResolved:
			inj.ResolvedOn = nil // back from resolved: it is not resolved any more
		}
		inj.Status = status
		if in.Severity != nil {
			inj.Severity = *in.Severity
		}
		if c.Has("notes") {
			inj.Notes = trimmed(in.Notes)
		}
		inj.UpdatedAt = l.now().UTC()
		if err := ss.UpdateInjury(c.Ctx, &inj); err != nil {
			return err
		}
		out, err = c.withGuidance(ss, inj)
		return err
	})
	return out, err
}

// Goals.

type goalInput struct {
	Title       string   `json:"title" jsonschema:"The goal in a few words." lane:"minLength=1,maxLength=200"`
	Kind        string   `json:"kind" jsonschema:"benchmark: a benchmark reaching targetValue (benchmarkId); measurement: a body measure reaching targetValue (measure); consistency: targetValue completed sessions a week; text: free text, no computed progress." lane:"enum=benchmark|measurement|consistency|text"`
	BenchmarkID *string  `json:"benchmarkId,omitempty" jsonschema:"The trainee's benchmark (bmk_…); benchmark goals only." lane:"maxLength=100,null=false"`
	Measure     *string  `json:"measure,omitempty" jsonschema:"What is measured; measurement goals only. weightKg reads the weigh-ins." lane:"enum=weightKg|bodyFatPct|waistCm|hipsCm|chestCm|armCm|thighCm|restingHr,null=false"`
	TargetValue *float64 `json:"targetValue,omitempty" jsonschema:"The target: in the benchmark's unit, the measure's unit, or sessions a week (1 to 14). Required unless kind is text." lane:"gt=0,max=100000,null=false"`
	Unit        *string  `json:"unit,omitempty" jsonschema:"The target's unit, for display; the benchmark's or the measure's when omitted." lane:"maxLength=20"`
	TargetDate  *string  `json:"targetDate,omitempty" jsonschema:"The day to reach it by." lane:"format=date" when:"ahead"`
}

type updateGoalInput struct {
	Title       *string  `json:"title,omitempty" jsonschema:"The goal in a few words." lane:"minLength=1,maxLength=200,null=false"`
	TargetValue *float64 `json:"targetValue,omitempty" jsonschema:"The target, as when created." lane:"gt=0,max=100000,null=false"`
	Unit        *string  `json:"unit,omitempty" jsonschema:"The target's unit; null removes it." lane:"maxLength=20"`
	TargetDate  *string  `json:"targetDate,omitempty" jsonschema:"The day to reach it by; null removes it." lane:"format=date" when:"ahead"`
	Status      *string  `json:"status,omitempty" jsonschema:"completed completes the goal, abandoned abandons it, active reopens it." lane:"enum=active|completed|abandoned,null=false"`
}

type goalsQuery struct {
	Status string `json:"status,omitempty" jsonschema:"Only goals with this status." lane:"enum=active|completed|abandoned"`
	PageQuery
}

type goalAnswer struct {
	domain.Goal
	Progress *training.GoalProgress `json:"progress" jsonschema:"Computed from the data: start, current, percent of the way, reached. Null for a text goal, or a benchmark goal whose benchmark is not readable."`
}

func (l *Lane) createGoal(c *Call, in *goalInput) (goalAnswer, error) { return c.newGoal(c.ID(), in) }

// newGoal sets trainee traineeID the goal in (the body's fields tell what was sent).
func (c *Call) newGoal(traineeID string, in *goalInput) (goalAnswer, error) {
	for _, k := range []struct{ kind, field string }{{domain.GoalBenchmark, "benchmarkId"}, {domain.GoalMeasurement, "measure"}} {
		given := c.Has(k.field)
		if in.Kind == k.kind && !given {
			return goalAnswer{}, InvalidField(k.field, fmt.Sprintf("%s is required for a %s goal.", k.field, k.kind))
		}
		if in.Kind != k.kind && given {
			return goalAnswer{}, InvalidField(k.field, fmt.Sprintf("%s only goes with kind %s; drop it for a %s goal.", k.field, k.kind, in.Kind))
		}
	}
	if in.Kind != domain.GoalText && in.TargetValue == nil {
		return goalAnswer{}, InvalidField("targetValue", fmt.Sprintf("targetValue is required for a %s goal.", in.Kind))
	}
	if in.Kind == domain.GoalConsistency && *in.TargetValue > 14 {
		return goalAnswer{}, InvalidField("targetValue", fmt.Sprintf("targetValue of a consistency goal is sessions a week, 1 to 14; got %v.", *in.TargetValue))
	}
	now := c.l.now().UTC()
	g := domain.Goal{ID: ids.New(ids.Goal), TraineeID: traineeID, Title: strings.TrimSpace(in.Title), Kind: in.Kind, BenchmarkID: in.BenchmarkID,
		Measure: in.Measure, TargetValue: in.TargetValue, Unit: trimmed(in.Unit), TargetDate: in.TargetDate, Status: domain.GoalActive, CreatedAt: now, UpdatedAt: now}
	var out goalAnswer
	err := c.InTx(func(ss store.StudioStore) error {
		if _, err := Lookup(c.Ctx, ids.Trainee, traineeID, ss.GetTrainee); err != nil {
			return err
		}
		if g.Kind == domain.GoalBenchmark {
			b, err := c.traineeBenchmark(ss, g.TraineeID, *g.BenchmarkID)
			if err != nil {
				return err
			}
			if g.Unit == nil && b != nil {
				g.Unit = &b.Unit
			}
		}
		if g.Unit == nil {
			g.Unit = defaultGoalUnit(g)
		}
		if err := ss.CreateGoal(c.Ctx, &g); err != nil {
			return err
		}
		answers, err := c.goalAnswers(ss, g.TraineeID, []domain.Goal{g})
		if len(answers) == 1 {
			out = answers[0]
		}
		return err
	})
	if err == nil {
		c.SetResource(g.ID)
	}
	return out, err
}

// traineeBenchmark finds the trainee's benchmark id; nil when benchmarks
// are not readable yet (their area is not in the store).
func (c *Call) traineeBenchmark(ss store.StudioStore, traineeID, id string) (*domain.Benchmark, error) {
	if !ids.Valid(id, ids.Benchmark) {
		return nil, NotFound(ids.Benchmark, id)
	}
	b, err := Lookup(c.Ctx, ids.Benchmark, id, ss.GetBenchmark)
	if err != nil {
		return nil, err
	}
	if b.TraineeID != traineeID {
		return nil, InvalidField("benchmarkId", fmt.Sprintf("benchmark %s is another trainee's; use one of this trainee's (get_trainee_benchmarks).", id))
	}
	return &b, nil
}

// defaultGoalUnit is the unit a goal's kind implies.
func defaultGoalUnit(g domain.Goal) *string {
	var u string
	switch g.Kind {
	case domain.GoalConsistency:
		u = "sessions/week"
	case domain.GoalMeasurement:
		for _, m := range training.BodyMetrics {
			if m.Name == *g.Measure {
				u = m.Unit
			}
		}
	}
	if u == "" {
		return nil
	}
	return &u
}

// goalLookback is how far before a measurement goal was set its start is
// looked for; goalHistory bounds how much history progress reads.
const (
	goalLookback = 30 * 24 * time.Hour
	goalHistory  = 2 * 366 * 24 * time.Hour
)

// goalAnswers are the goals with their progress, the data read once for all.
func (c *Call) goalAnswers(ss store.StudioStore, traineeID string, goals []domain.Goal) ([]goalAnswer, error) {
	now := c.l.now().UTC()
	d := training.GoalData{Today: c.LocalToday()}
	var benchmarks map[string]*domain.Benchmark
	needSeries, needSessions := false, false
	since := now
	for _, g := range goals {
		switch g.Kind {
		case domain.GoalMeasurement:
			needSeries = true
			since = minTime(since, g.CreatedAt.Add(-goalLookback))
		case domain.GoalConsistency:
			needSessions = true
		case domain.GoalBenchmark:
			benchmarks = map[string]*domain.Benchmark{}
		}
	}
	if needSeries {
		since = maxTime(since, now.Add(-goalHistory))
		var err error
		if d.Weights, err = ss.WeightsBetween(c.Ctx, traineeID, since, now.Add(ClockSkew)); err != nil {
			return nil, err
		}
		if d.Measurements, err = ss.MeasurementsBetween(c.Ctx, traineeID, since, now.Add(ClockSkew)); err != nil {
			return nil, err
		}
	}
	if needSessions {
		from := AddDays(d.Today, -(7*training.ConsistencyWeeks - 1))
		res, err := ss.ListSessions(c.Ctx, store.SessionFilter{TraineeID: traineeID, From: from, To: d.Today, Status: domain.SessionCompleted, Page: store.Page{Limit: 200}})
		if err != nil {
			return nil, err
		}
		d.Sessions = res.Items
	}
	out := make([]goalAnswer, len(goals))
	for i, g := range goals {
		gd := d
		if g.Kind == domain.GoalBenchmark && g.BenchmarkID != nil {
			b, seen := benchmarks[*g.BenchmarkID]
			if !seen {
				if got, err := ss.GetBenchmark(c.Ctx, *g.BenchmarkID); err == nil {
					b = &got
				} else if !errors.Is(err, store.ErrNotFound) {
					return nil, err
				}
				benchmarks[*g.BenchmarkID] = b
			}
			gd.Benchmark = b
		}
		out[i] = goalAnswer{Goal: g, Progress: training.Progress(g, gd)}
	}
	return out, nil
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func (l *Lane) updateGoal(c *Call, in *updateGoalInput) (goalAnswer, error) {
	return c.changeGoal(c.ID(), "", in)
}

// changeGoal changes goal goalID as in says; with traineeID set, a goal of
// another trainee is not found.
func (c *Call) changeGoal(goalID, traineeID string, in *updateGoalInput) (goalAnswer, error) {
	var out goalAnswer
	err := c.InTx(func(ss store.StudioStore) error {
		g, err := Lookup(c.Ctx, ids.Goal, goalID, ss.GetGoal)
		if err != nil {
			return err
		}
		if traineeID != "" && g.TraineeID != traineeID {
			return NotFound(ids.Goal, goalID)
		}
		if in.Title != nil {
			g.Title = strings.TrimSpace(*in.Title)
		}
		if in.TargetValue != nil {
			if g.Kind == domain.GoalConsistency && *in.TargetValue > 14 {
				return InvalidField("targetValue", fmt.Sprintf("targetValue of a consistency goal is sessions a week, 1 to 14; got %v.", *in.TargetValue))
			}
			g.TargetValue = in.TargetValue
		}
		if c.Has("unit") {
			g.Unit = trimmed(in.Unit)
		}
		if c.Has("targetDate") {
			g.TargetDate = in.TargetDate
		}
		now := c.l.now().UTC()
		if in.Status != nil && *in.Status != g.Status {
			g.Status = *in.Status
			g.CompletedAt = nil
			if g.Status == domain.GoalCompleted {
				g.CompletedAt = &now
			}
		}
		g.UpdatedAt = now
		if err := ss.UpdateGoal(c.Ctx, &g); err != nil {
			return err
		}
		answers, err := c.goalAnswers(ss, g.TraineeID, []domain.Goal{g})
		if len(answers) == 1 {
			out = answers[0]
		}
		return err
	})
	return out, err
}

func (l *Lane) listGoals(c *Call, q *goalsQuery) (ListOf[goalAnswer], error) {
	return c.traineeGoals(c.ID(), q)
}

// traineeGoals is one page of trainee traineeID's goals with their progress.
func (c *Call) traineeGoals(traineeID string, q *goalsQuery) (ListOf[goalAnswer], error) {
	ss := c.Studio()
	all, err := ss.ListGoals(c.Ctx, traineeID, q.Status)
	if err != nil {
		return ListOf[goalAnswer]{}, err
	}
	pg := PageSlice(all, q.Page())
	answers, err := c.goalAnswers(ss, traineeID, pg.Items)
	return ListOf[goalAnswer]{Items: answers, Total: pg.Total, NextOffset: pg.NextOffset}, err
}

// Training profile.

type trainingProfileInput struct {
	Equipment      []string `json:"equipment,omitempty" jsonschema:"The equipment the trainee can use, such as barbell, dumbbell, kettlebell, machine, bands, pull-up bar." lane:"minLength=1,maxLength=50,maxItems=50"`
	Availability   []int    `json:"availability,omitempty" jsonschema:"The weekdays the trainee can train, ISO: 1 Monday … 7 Sunday." lane:"min=1,max=7,maxItems=7"`
	SessionMinutes *int     `json:"sessionMinutes,omitempty" jsonschema:"Preferred session length in minutes, 10 to 300." lane:"min=10,max=300"`
	Experience     *string  `json:"experience,omitempty" jsonschema:"Training experience." lane:"enum=beginner|intermediate|advanced"`
	Units          *string  `json:"units,omitempty" jsonschema:"Preferred units for display, metric (the default) or imperial; the lane always stores kg and metres." lane:"enum=metric|imperial"`
}

type trainingProfileAnswer struct {
	domain.TrainingProfile
	OnboardingStatus training.OnboardingStatus `json:"onboardingStatus"`
}

func (l *Lane) getTrainingProfile(c *Call, _ *NoInput) (trainingProfileAnswer, error) {
	ss := c.Studio()
	if _, err := Lookup(c.Ctx, ids.Trainee, c.ID(), ss.GetTrainee); err != nil {
		return trainingProfileAnswer{}, err
	}
	p, err := ss.GetTrainingProfile(c.Ctx, c.ID())
	var stored *domain.TrainingProfile
	switch {
	case errors.Is(err, store.ErrNotFound):
		p = domain.TrainingProfile{TraineeID: c.ID(), Equipment: []string{}, Availability: []int{}, Units: "metric", Onboarding: []string{}}
	case err != nil:
		return trainingProfileAnswer{}, err
	default:
		stored = &p
	}
	status, err := c.onboarding(ss, c.ID(), stored)
	if err != nil {
		return trainingProfileAnswer{}, err
	}
	p.Onboarding = status.Done
	return trainingProfileAnswer{TrainingProfile: p, OnboardingStatus: status}, nil
}

func (l *Lane) putTrainingProfile(c *Call, in *trainingProfileInput) (trainingProfileAnswer, error) {
	return c.saveTrainingProfile(in, false)
}

// applyTo sets the fields of p that given reports sent (a PUT sends them
// all: an absent one is its default).
func (in *trainingProfileInput) applyTo(p *domain.TrainingProfile, given func(field string) bool) {
	if given("equipment") {
		p.Equipment = CleanStrings(in.Equipment)
	}
	if given("availability") {
		days := slices.Clone(in.Availability)
		slices.Sort(days)
		p.Availability = slices.Compact(days)
	}
	if p.Availability == nil {
		p.Availability = []int{}
	}
	if given("sessionMinutes") {
		p.SessionMinutes = in.SessionMinutes
	}
	if given("experience") {
		p.Experience = in.Experience
	}
	if given("units") {
		p.Units = "metric"
		if in.Units != nil {
			p.Units = *in.Units
		}
	}
}

// saveTrainingProfile writes the trainee's profile with its onboarding
// status: the whole of it from in, or with patch only the fields the body
// sent over the profile as stored (read in the write's transaction, so two
// changes do not lose each other's fields).
func (c *Call) saveTrainingProfile(in *trainingProfileInput, patch bool) (trainingProfileAnswer, error) {
	var out trainingProfileAnswer
	err := c.InTx(func(ss store.StudioStore) error {
		if _, err := Lookup(c.Ctx, ids.Trainee, c.ID(), ss.GetTrainee); err != nil {
			return err
		}
		p := domain.TrainingProfile{TraineeID: c.ID(), Equipment: []string{}, Availability: []int{}, Units: "metric"}
		given := func(string) bool { return true }
		if patch {
			given = c.Has
			stored, err := ss.GetTrainingProfile(c.Ctx, c.ID())
			switch {
			case err == nil:
				p = stored
			case !errors.Is(err, store.ErrNotFound):
				return err
			}
		}
		in.applyTo(&p, given)
		p.UpdatedAt = c.l.now().UTC()
		status, err := c.onboarding(ss, c.ID(), &p)
		if err != nil {
			return err
		}
		// The stored list is the status as of this write; reads compute it afresh.
		p.Onboarding = status.Done
		out = trainingProfileAnswer{TrainingProfile: p, OnboardingStatus: status}
		return ss.PutTrainingProfile(c.Ctx, &p)
	})
	return out, err
}

// onboarding is the trainee's onboarding status with profile p (nil: none).
func (c *Call) onboarding(ss store.StudioStore, traineeID string, p *domain.TrainingProfile) (training.OnboardingStatus, error) {
	f := training.IntakeFacts{Profile: p}
	goals, err := ss.ListGoals(c.Ctx, traineeID, "")
	if err != nil {
		return training.OnboardingStatus{}, err
	}
	for _, g := range goals {
		if g.Status != domain.GoalAbandoned {
			f.Goals++
		}
	}
	list, err := ss.ListBenchmarks(c.Ctx, traineeID)
	if err != nil {
		return training.OnboardingStatus{}, err
	}
	f.Benchmarks = len(list)
	return training.Onboarding(f), nil
}
