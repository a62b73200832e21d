package health

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/training"
)

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
	lane.PageQuery
}

type GoalAnswer struct {
	domain.Goal
	Progress *training.GoalProgress `json:"progress" jsonschema:"Computed from the data: start, current, percent of the way, reached. Null for a text goal, or a benchmark goal whose benchmark is not readable."`
}

func (a *Area) createGoal(c *lane.Call, in *goalInput) (GoalAnswer, error) {
	return newGoal(c, c.ID(), in)
}

// newGoal sets trainee traineeID the goal in (the body's fields tell what was sent).
func newGoal(c *lane.Call, traineeID string, in *goalInput) (GoalAnswer, error) {
	for _, k := range []struct{ kind, field string }{{domain.GoalBenchmark, "benchmarkId"}, {domain.GoalMeasurement, "measure"}} {
		given := c.Has(k.field)
		if in.Kind == k.kind && !given {
			return GoalAnswer{}, lane.InvalidField(k.field, fmt.Sprintf("%s is required for a %s goal.", k.field, k.kind))
		}
		if in.Kind != k.kind && given {
			return GoalAnswer{}, lane.InvalidField(k.field, fmt.Sprintf("%s only goes with kind %s; drop it for a %s goal.", k.field, k.kind, in.Kind))
		}
	}
	if in.Kind != domain.GoalText && in.TargetValue == nil {
		return GoalAnswer{}, lane.InvalidField("targetValue", fmt.Sprintf("targetValue is required for a %s goal.", in.Kind))
	}
	if in.Kind == domain.GoalConsistency && *in.TargetValue > 14 {
		return GoalAnswer{}, lane.InvalidField("targetValue", fmt.Sprintf("targetValue of a consistency goal is sessions a week, 1 to 14; got %v.", *in.TargetValue))
	}
	now := c.Now().UTC()
	g := domain.Goal{ID: ids.New(ids.Goal), TraineeID: traineeID, Title: strings.TrimSpace(in.Title), Kind: in.Kind, BenchmarkID: in.BenchmarkID,
		Measure: in.Measure, TargetValue: in.TargetValue, Unit: lane.Trimmed(in.Unit), TargetDate: in.TargetDate, Status: domain.GoalActive, CreatedAt: now, UpdatedAt: now}
	var out GoalAnswer
	err := c.InTx(func(ss store.StudioStore) error {
		if _, err := lane.Lookup(c.Ctx, ids.Trainee, traineeID, ss.GetTrainee); err != nil {
			return err
		}
		if g.Kind == domain.GoalBenchmark {
			b, err := traineeBenchmark(c, ss, g.TraineeID, *g.BenchmarkID)
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
		answers, err := GoalAnswers(c, ss, g.TraineeID, []domain.Goal{g})
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
func traineeBenchmark(c *lane.Call, ss store.StudioStore, traineeID, id string) (*domain.Benchmark, error) {
	if !ids.Valid(id, ids.Benchmark) {
		return nil, lane.NotFound(ids.Benchmark, id)
	}
	b, err := lane.Lookup(c.Ctx, ids.Benchmark, id, ss.GetBenchmark)
	if err != nil {
		return nil, err
	}
	if b.TraineeID != traineeID {
		return nil, lane.InvalidField("benchmarkId", fmt.Sprintf("benchmark %s is another trainee's; use one of this trainee's (get_trainee_benchmarks).", id))
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

// GoalAnswers are the goals with their progress, the data read once for all.
func GoalAnswers(c *lane.Call, ss store.StudioStore, traineeID string, goals []domain.Goal) ([]GoalAnswer, error) {
	now := c.Now().UTC()
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
		if d.Weights, err = ss.WeightsBetween(c.Ctx, traineeID, since, now.Add(lane.ClockSkew)); err != nil {
			return nil, err
		}
		if d.Measurements, err = ss.MeasurementsBetween(c.Ctx, traineeID, since, now.Add(lane.ClockSkew)); err != nil {
			return nil, err
		}
	}
	if needSessions {
		from := lane.AddDays(d.Today, -(7*training.ConsistencyWeeks - 1))
		res, err := ss.ListSessions(c.Ctx, store.SessionFilter{TraineeID: traineeID, From: from, To: d.Today, Status: domain.SessionCompleted, Page: store.Page{Limit: 200}})
		if err != nil {
			return nil, err
		}
		d.Sessions = res.Items
	}
	out := make([]GoalAnswer, len(goals))
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
		out[i] = GoalAnswer{Goal: g, Progress: training.Progress(g, gd)}
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

func (a *Area) updateGoal(c *lane.Call, in *updateGoalInput) (GoalAnswer, error) {
	return changeGoal(c, c.ID(), "", in)
}

// changeGoal changes goal goalID as in says; with traineeID set, a goal of
// another trainee is not found.
func changeGoal(c *lane.Call, goalID, traineeID string, in *updateGoalInput) (GoalAnswer, error) {
	var out GoalAnswer
	err := c.InTx(func(ss store.StudioStore) error {
		g, err := lane.Lookup(c.Ctx, ids.Goal, goalID, ss.GetGoal)
		if err != nil {
			return err
		}
		if traineeID != "" && g.TraineeID != traineeID {
			return lane.NotFound(ids.Goal, goalID)
		}
		if in.Title != nil {
			g.Title = strings.TrimSpace(*in.Title)
		}
		if in.TargetValue != nil {
			if g.Kind == domain.GoalConsistency && *in.TargetValue > 14 {
				return lane.InvalidField("targetValue", fmt.Sprintf("targetValue of a consistency goal is sessions a week, 1 to 14; got %v.", *in.TargetValue))
			}
			g.TargetValue = in.TargetValue
		}
		if c.Has("unit") {
			g.Unit = lane.Trimmed(in.Unit)
		}
		if c.Has("targetDate") {
			g.TargetDate = in.TargetDate
		}
		now := c.Now().UTC()
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
		answers, err := GoalAnswers(c, ss, g.TraineeID, []domain.Goal{g})
		if len(answers) == 1 {
			out = answers[0]
		}
		return err
	})
	return out, err
}

func (a *Area) listGoals(c *lane.Call, q *goalsQuery) (lane.ListOf[GoalAnswer], error) {
	return traineeGoals(c, c.ID(), q)
}

// traineeGoals is one page of trainee traineeID's goals with their progress.
func traineeGoals(c *lane.Call, traineeID string, q *goalsQuery) (lane.ListOf[GoalAnswer], error) {
	ss := c.Studio()
	all, err := ss.ListGoals(c.Ctx, traineeID, q.Status)
	if err != nil {
		return lane.ListOf[GoalAnswer]{}, err
	}
	pg := lane.PageSlice(all, q.Page())
	answers, err := GoalAnswers(c, ss, traineeID, pg.Items)
	return lane.ListOf[GoalAnswer]{Items: answers, Total: pg.Total, NextOffset: pg.NextOffset}, err
}

// Goals in one call.

type manageGoalsInput struct {
	Action      string   `json:"action" jsonschema:"create: set a new goal (title, kind, and targetValue unless kind is text); update: change one (goalId and the fields to change); complete: mark one completed (goalId); list: the goals with their progress (status narrows)." lane:"enum=create|update|complete|list"`
	GoalID      *string  `json:"goalId,omitempty" jsonschema:"The goal (gol_…) to update or complete; list gives the ids." lane:"maxLength=100,null=false"`
	Title       *string  `json:"title,omitempty" jsonschema:"The goal in a few words." lane:"minLength=1,maxLength=200,null=false"`
	Kind        *string  `json:"kind,omitempty" jsonschema:"create only. benchmark: a benchmark reaching targetValue (benchmarkId); measurement: a body measure reaching targetValue (measure); consistency: targetValue completed sessions a week; text: free text, no computed progress." lane:"enum=benchmark|measurement|consistency|text,null=false"`
	BenchmarkID *string  `json:"benchmarkId,omitempty" jsonschema:"create only, benchmark goals: the trainee's benchmark (bmk_…)." lane:"maxLength=100,null=false"`
	Measure     *string  `json:"measure,omitempty" jsonschema:"create only, measurement goals: what is measured. weightKg reads the weigh-ins." lane:"enum=weightKg|bodyFatPct|waistCm|hipsCm|chestCm|armCm|thighCm|restingHr,null=false"`
	TargetValue *float64 `json:"targetValue,omitempty" jsonschema:"The target: in the benchmark's unit, the measure's unit, or sessions a week (1 to 14)." lane:"gt=0,max=100000,null=false"`
	Unit        *string  `json:"unit,omitempty" jsonschema:"The target's unit, for display; null removes it on update." lane:"maxLength=20"`
	TargetDate  *string  `json:"targetDate,omitempty" jsonschema:"The day to reach it by; null removes it on update." lane:"format=date" when:"ahead"`
	Status      *string  `json:"status,omitempty" jsonschema:"update: completed, abandoned, or active to reopen; list: only goals with this status." lane:"enum=active|completed|abandoned,null=false"`
	lane.PageQuery
}

type manageGoalsAnswer struct {
	Action string                   `json:"action"`
	Goal   *GoalAnswer              `json:"goal,omitempty" jsonschema:"The goal created, updated or completed, with its progress."`
	Goals  *lane.ListOf[GoalAnswer] `json:"goals,omitempty" jsonschema:"list: the goals, oldest first, each with its progress."`
}

// goalFieldsOf are the fields each action takes besides action itself.
var goalFieldsOf = map[string][]string{
	"create":   {"title", "kind", "benchmarkId", "measure", "targetValue", "unit", "targetDate"},
	"update":   {"goalId", "title", "targetValue", "unit", "targetDate", "status"},
	"complete": {"goalId"},
	"list":     {"status", "limit", "offset"},
}

func (a *Area) manageGoals(c *lane.Call, in *manageGoalsInput) (manageGoalsAnswer, error) {
	out := manageGoalsAnswer{Action: in.Action}
	takes := goalFieldsOf[in.Action]
	for _, field := range c.Sent() {
		if field != "action" && !containsString(takes, field) {
			return out, lane.InvalidField(field, fmt.Sprintf("%s does not go with action %s, which takes %s; drop it.", field, in.Action, strings.Join(takes, ", ")))
		}
	}
	needsGoal := in.Action == "update" || in.Action == "complete"
	if needsGoal && in.GoalID == nil {
		return out, lane.InvalidField("goalId", fmt.Sprintf("goalId is required to %s a goal; action list answers the trainee's goals with their ids.", in.Action))
	}
	switch in.Action {
	case "create":
		for _, f := range []struct {
			name, hint string
			given      bool
		}{{"title", "the goal in a few words", in.Title != nil}, {"kind", "benchmark, measurement, consistency or text", in.Kind != nil}} {
			if !f.given {
				return out, lane.InvalidField(f.name, fmt.Sprintf("%s is required to create a goal: %s.", f.name, f.hint))
			}
		}
		g, err := newGoal(c, c.ID(), &goalInput{Title: *in.Title, Kind: *in.Kind, BenchmarkID: in.BenchmarkID, Measure: in.Measure,
			TargetValue: in.TargetValue, Unit: in.Unit, TargetDate: in.TargetDate})
		if err != nil {
			return out, err
		}
		c.SetStatus(http.StatusCreated)
		out.Goal = &g
	case "update", "complete":
		change := &updateGoalInput{Title: in.Title, TargetValue: in.TargetValue, Unit: in.Unit, TargetDate: in.TargetDate, Status: in.Status}
		if in.Action == "complete" {
			done := domain.GoalCompleted
			change = &updateGoalInput{Status: &done}
		} else if len(c.Sent()) == 2 { // action and goalId: nothing to change
			return out, lane.InvalidField("goalId", "update needs at least one of title, targetValue, unit, targetDate or status to change; to complete the goal use action complete.")
		}
		// The goal must be this trainee's: another's is not found.
		if _, err := lane.Lookup(c.Ctx, ids.Trainee, c.ID(), c.Studio().GetTrainee); err != nil {
			return out, err
		}
		g, err := changeGoal(c, *in.GoalID, c.ID(), change)
		if err != nil {
			return out, err
		}
		c.SetResource(g.ID)
		out.Goal = &g
	case "list":
		q := goalsQuery{PageQuery: in.PageQuery}
		if in.Status != nil {
			q.Status = *in.Status
		}
		list, err := traineeGoals(c, c.ID(), &q)
		if err != nil {
			return out, err
		}
		out.Goals = &list
	}
	return out, nil
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
