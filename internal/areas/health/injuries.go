package health

import (
	"fmt"
	"strings"

	"github.com/otherwise/perform/internal/answers"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/exercises"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/text"
	"github.com/otherwise/perform/internal/training"
)

// Injuries.

type injuryInput struct {
	Area              string   `json:"area" jsonschema:"The body area." lane:"enum=neck|shoulder|upper_back|lower_back|chest|elbow|wrist|hand|abdomen|hip|groin|glute|hamstring|quadriceps|knee|calf|shin|ankle|foot"`
	Side              *string  `json:"side,omitempty" jsonschema:"left, right, both or none (the default: a midline area)." lane:"enum=left|right|both|none,null=false"`
	Severity          int      `json:"severity" jsonschema:"1 (a niggle) to 5 (cannot train it)." lane:"min=1,max=5"`
	Kind              *string  `json:"kind,omitempty" jsonschema:"What it is: tendinopathy, sprain, strain, fracture, after_surgery, or pain (the default: pain without a diagnosis). The weekly plan reads it beside the area and severity." lane:"enum=tendinopathy|sprain|strain|fracture|after_surgery|pain,null=false"`
	Status            *string  `json:"status,omitempty" jsonschema:"active (the default) or recovering." lane:"enum=active|recovering,null=false"`
	OnsetOn           *string  `json:"onsetOn,omitempty" jsonschema:"The day it started, YYYY-MM-DD in the studio's time zone; today when omitted." lane:"format=date,null=false" when:"past"`
	AffectedExercises []string `json:"affectedExercises,omitempty" jsonschema:"Exercises it rules out or hurts, by id: Perform's catalogue (back-squat) or the studio's own (exr_…)." lane:"minLength=1,maxLength=100,maxItems=30"`
	Notes             *string  `json:"notes,omitempty" jsonschema:"A note." lane:"maxLength=2000"`
}

type updateInjuryInput struct {
	Status     *string `json:"status,omitempty" jsonschema:"active, recovering or resolved; resolved sets resolvedOn to today unless sent." lane:"enum=active|recovering|resolved,null=false"`
	Severity   *int    `json:"severity,omitempty" jsonschema:"1 (a niggle) to 5 (cannot train it)." lane:"min=1,max=5,null=false"`
	Kind       *string `json:"kind,omitempty" jsonschema:"What it is: tendinopathy, sprain, strain, fracture, after_surgery or pain (without a diagnosis)." lane:"enum=tendinopathy|sprain|strain|fracture|after_surgery|pain,null=false"`
	Notes      *string `json:"notes,omitempty" jsonschema:"A note; null removes it." lane:"maxLength=2000"`
	ResolvedOn *string `json:"resolvedOn,omitempty" jsonschema:"The day it resolved, YYYY-MM-DD, from onsetOn to today; only with status resolved." lane:"format=date,null=false" when:"past"`
}

type injuriesQuery struct {
	Status string `json:"status,omitempty" jsonschema:"Only injuries with this status." lane:"enum=active|recovering|resolved"`
	lane.PageQuery
}

func (a *Area) recordInjury(c *lane.Call, in *injuryInput) (answers.Injury, error) {
	today := c.LocalToday()
	onset := today
	if in.OnsetOn != nil {
		onset = *in.OnsetOn
		if onset > today { // the when rule admits the UTC day after; the studio's today is exact
			return answers.Injury{}, lane.InvalidField("onsetOn", fmt.Sprintf("onsetOn must not be after today (%s) in the studio's time zone; got %s.", today, onset))
		}
	}
	inj := domain.Injury{ID: ids.New(ids.Injury), TraineeID: c.ID(), Area: in.Area, Side: "none", Severity: in.Severity, Status: domain.InjuryActive,
		OnsetOn: onset, AffectedExercises: lane.CleanStrings(in.AffectedExercises), Notes: lane.Trimmed(in.Notes), CreatedAt: c.Now().UTC()}
	inj.UpdatedAt = inj.CreatedAt
	if in.Side != nil {
		inj.Side = *in.Side
	}
	if in.Status != nil {
		inj.Status = *in.Status
	}
	inj.Kind = injuryKind(in.Kind)
	var out answers.Injury
	err := c.InTx(func(ss store.StudioStore) error {
		t, err := lane.Lookup(c.Ctx, ids.Trainee, c.ID(), ss.GetTrainee)
		if err != nil {
			return err
		}
		if err := checkExercises(c, ss, inj.AffectedExercises); err != nil {
			return err
		}
		if err := ss.CreateInjury(c.Ctx, &inj); err != nil {
			return err
		}
		// A trainee's own report reaches their coaches (trainee_self.go).
		if c.P.IsTrainee() {
			if err := tellCoachesOfInjury(c, ss, t, inj); err != nil {
				return err
			}
		}
		out, err = withGuidance(c, ss, inj)
		return err
	})
	if err == nil {
		c.SetResource(inj.ID)
	}
	return out, err
}

// injuryKind is the kind as sent; "" (not sent) reads as pain without a
// diagnosis (domain.InjuryKinds).
func injuryKind(v *string) string {
	if v == nil {
		return ""
	}
	return *v
}

// checkExercises answers a sentence for the first id that names no
// exercise: not one of Perform's catalogue, nor the studio's own.
func checkExercises(c *lane.Call, ss store.StudioStore, list []string) error {
	for _, id := range list {
		if _, ok := exercises.Get(id); ok {
			continue
		}
		if !ids.Valid(id, ids.Exercise) {
			return lane.InvalidField("affectedExercises", fmt.Sprintf("affectedExercises: %q is not an exercise id; Perform's ids look like back-squat and the studio's own like exr_…. Use search_exercises to find one.", text.Truncate(id, 100)))
		}
		if _, err := lane.Lookup(c.Ctx, ids.Exercise, id, ss.GetExercise); err != nil {
			return err
		}
	}
	return nil
}

// withGuidance answers inj with its guidance unless it is resolved.
func withGuidance(c *lane.Call, ss store.StudioStore, inj domain.Injury) (answers.Injury, error) {
	out := answers.Injury{Injury: inj}
	if inj.Status == domain.InjuryResolved {
		return out, nil
	}
	from := c.LocalToday()
	to := lane.AddDays(from, training.GuidanceDays-1)
	planned, err := ss.SessionsBetween(c.Ctx, inj.TraineeID, from, to)
	if err != nil {
		return out, err
	}
	find := exerciseFinder(c, ss)
	g := training.InjuryGuidance(inj.Area, inj.AffectedExercises, planned, from, to, find)
	out.Guidance = &g
	return out, nil
}

// exerciseFinder looks exercises up in Perform's catalogue, then in the
// studio's own (each asked once; nil marks one the studio does not have).
func exerciseFinder(c *lane.Call, ss store.StudioStore) training.Find {
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

func (a *Area) updateInjury(c *lane.Call, in *updateInjuryInput) (answers.Injury, error) {
	var out answers.Injury
	err := c.InTx(func(ss store.StudioStore) error {
		inj, err := lane.Lookup(c.Ctx, ids.Injury, c.ID(), ss.GetInjury)
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
			return lane.InvalidField("resolvedOn", fmt.Sprintf("resolvedOn only goes with status resolved, and the injury would be %s; send status resolved with it, or drop it.", status))
		case in.ResolvedOn != nil && (*in.ResolvedOn < inj.OnsetOn || *in.ResolvedOn > today):
			return lane.InvalidField("resolvedOn", fmt.Sprintf("resolvedOn must be a day from the onset (%s) to today (%s); got %s.", inj.OnsetOn, today, *in.ResolvedOn))
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
		if in.Kind != nil {
			inj.Kind = injuryKind(in.Kind)
		}
		if c.Has("notes") {
			inj.Notes = lane.Trimmed(in.Notes)
		}
		inj.UpdatedAt = c.Now().UTC()
		if err := ss.UpdateInjury(c.Ctx, &inj); err != nil {
			return err
		}
		out, err = withGuidance(c, ss, inj)
		return err
	})
	return out, err
}

// tellCoachesOfInjury opens a task for the coaches of trainee t about the
// injury they reported themselves.
func tellCoachesOfInjury(c *lane.Call, ss store.StudioStore, t domain.Trainee, inj domain.Injury) error {
	title := fmt.Sprintf("%s reported %s, severity %d", t.FirstName, injuryPhrase(inj), inj.Severity)
	detail := "Onset " + inj.OnsetOn + "; status " + inj.Status + "."
	if len(inj.AffectedExercises) > 0 {
		detail += " Affected exercises: " + strings.Join(inj.AffectedExercises, ", ") + "."
	}
	if inj.Notes != nil {
		detail += " Their note: " + text.Truncate(*inj.Notes, 500)
	}
	_, err := TellCoaches(c, ss, t, title, detail, inj.Severity)
	return err
}

// TellCoaches opens a task for each active coach of trainee t, or one
// studio task when t has no active coach: how what a trainee does herself
// (an injury, a drafted week) reaches her coach; it answers their ids. Tasks never reach the
// trainee; nothing goes to the outbox.
func TellCoaches(c *lane.Call, ss store.StudioStore, t domain.Trainee, title, detail string, priority int) ([]string, error) {
	var coaches []*string
	for _, id := range t.CoachIDs {
		co, err := ss.GetCoach(c.Ctx, id)
		if err != nil {
			return nil, err
		}
		if co.Active {
			coaches = append(coaches, &co.ID)
		}
	}
	if len(coaches) == 0 {
		coaches = []*string{nil} // the studio's own task: no coach to give it to
	}
	now := c.Now().UTC()
	var made []string
	for _, coachID := range coaches {
		task := domain.Task{ID: ids.New(ids.Task), Title: title, ClientID: &t.ID, Detail: &detail, Priority: priority, CoachID: coachID,
			Status: domain.TaskOpen, Source: c.P.Source, CreatedAt: now, UpdatedAt: now}
		if err := ss.CreateTask(c.Ctx, &task); err != nil {
			return nil, err
		}
		made = append(made, task.ID)
	}
	return made, nil
}

// injuryPhrase is "a left knee injury", "an ankle injury", "a hip injury on both sides".
func injuryPhrase(inj domain.Injury) string {
	what := strings.ReplaceAll(inj.Area, "_", " ")
	if inj.Side == "left" || inj.Side == "right" {
		what = inj.Side + " " + what
	}
	article := "a"
	if strings.ContainsRune("aeiou", rune(what[0])) {
		article = "an"
	}
	phrase := article + " " + what + " injury"
	if inj.Side == "both" {
		phrase += " on both sides"
	}
	return phrase
}
