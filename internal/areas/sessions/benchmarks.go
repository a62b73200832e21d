package sessions

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/otherwise/perform/internal/areas/catalog"
	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/training"
	"github.com/otherwise/perform/internal/views"
)

// Benchmarks: named measures with their history, each answered with its
// best, latest and change over 4 and 12 weeks.

// recentEntries is how many of a benchmark's latest values a list row
// carries; GET /benchmarks/{id} has them all.
const recentEntries = 5

// benchmarkView is a benchmark with its figures. Recent is its latest
// entries, newest first: all of them at /benchmarks/{id}, the last 5 in a list.
type benchmarkView struct {
	ID         string    `json:"id"`
	TraineeID  string    `json:"traineeId"`
	Name       string    `json:"name"`
	ExerciseID *string   `json:"exerciseId"`
	Unit       string    `json:"unit"`
	Direction  string    `json:"direction" jsonschema:"higher or lower: which way is better."`
	CreatedAt  time.Time `json:"createdAt"`
	training.BenchmarkStats
	Recent []recentEntry `json:"recent"`
}

// recentEntry is one value of a benchmark, marked when it was a personal
// record: better than every value before it, the first value included.
type recentEntry struct {
	domain.BenchmarkEntry
	PR bool `json:"pr,omitempty" jsonschema:"true when the value beat every earlier one (a personal record)."`
}

func viewOf(b domain.Benchmark, now time.Time, keep int) benchmarkView {
	v := benchmarkView{ID: b.ID, TraineeID: b.TraineeID, Name: b.Name, ExerciseID: b.ExerciseID, Unit: b.Unit, Direction: b.Direction,
		CreatedAt: b.CreatedAt, BenchmarkStats: training.Stats(b, now), Recent: []recentEntry{}}
	pr := make([]bool, len(b.Entries)) // entries are oldest first
	var best float64
	for i, e := range b.Entries {
		if pr[i] = i == 0 || training.Better(b.Direction, e.Value, best); pr[i] {
			best = e.Value
		}
	}
	for i := len(b.Entries) - 1; i >= 0 && (keep <= 0 || len(v.Recent) < keep); i-- {
		v.Recent = append(v.Recent, recentEntry{b.Entries[i], pr[i]})
	}
	return v
}

type recordBenchmarkInput struct {
	BenchmarkID *string    `json:"benchmarkId,omitempty" jsonschema:"The benchmark to add a value to (bmk_…); or give name." lane:"minLength=1,maxLength=100"`
	Name        *string    `json:"name,omitempty" jsonschema:"The benchmark's name (Back squat 1RM, 5 km run, Max pull-ups); an existing one of the trainee by this name (case-insensitive) gets the value, else a new benchmark is made and needs unit and direction." lane:"minLength=1,maxLength=100"`
	Unit        *string    `json:"unit,omitempty" jsonschema:"A new benchmark's unit: kg, s, m, reps, min, or another short unit." lane:"minLength=1,maxLength=20"`
	Direction   *string    `json:"direction,omitempty" jsonschema:"A new benchmark's better direction: higher (a lift, reps) or lower (a time)." lane:"enum=higher|lower"`
	ExerciseID  *string    `json:"exerciseId,omitempty" jsonschema:"A new benchmark's exercise, when it is a lift's 1RM (built-in id or exr_…): logged sets of that exercise then record PRs on it." lane:"minLength=1,maxLength=100"`
	Value       float64    `json:"value" jsonschema:"The value, in the benchmark's unit (kg, seconds, metres…)." lane:"min=0,max=1000000"`
	RecordedAt  *time.Time `json:"recordedAt,omitempty" jsonschema:"When it was measured; now when omitted." when:"happened"`
	Notes       *string    `json:"notes,omitempty" jsonschema:"A note on the value." lane:"maxLength=500"`
}

type recordedBenchmark struct {
	Benchmark benchmarkView `json:"benchmark"`
	// Created: the benchmark is new with this value.
	Created bool `json:"created"`
	// Best: the value is the benchmark's best.
	Best bool `json:"best"`
}

func (a *Area) benchmarkRoutes(rs *lane.Routes) {
	lane.Add(rs, "GET", "/trainees/{id}/benchmarks", "A trainee's benchmarks by name, each with its best, latest, change over 4 and 12 weeks and its 5 latest values (GET /benchmarks/{id} has the whole history).", func(c *lane.Call, q *lane.PageQuery) (lane.ListOf[benchmarkView], error) {
		ss := c.Studio()
		if _, err := lane.Lookup(c.Ctx, ids.Trainee, c.ID(), ss.GetTrainee); err != nil {
			return lane.ListOf[benchmarkView]{}, err
		}
		list, err := ss.ListBenchmarks(c.Ctx, c.ID())
		if err != nil {
			return lane.ListOf[benchmarkView]{}, err
		}
		now := c.Now()
		views := make([]benchmarkView, len(list))
		for i, b := range list {
			views[i] = viewOf(b, now, recentEntries)
		}
		return lane.PageSlice(views, q.Page()), nil
	}, lane.Tool("get_trainee_benchmarks"), lane.Trainee(auth.ScopeTrainingRead), lane.TraineeTool("get_benchmarks"), lane.View(views.Benchmarks),
		lane.Allow(lane.Under("items", BenchmarkFields...)...), lane.Allow("total", "nextOffset"))
	lane.Add(rs, "GET", "/benchmarks/{id}", "One benchmark with its whole history, newest first, and its figures.", func(c *lane.Call, _ *lane.NoInput) (benchmarkView, error) {
		b, err := lane.Lookup(c.Ctx, ids.Benchmark, c.ID(), c.Studio().GetBenchmark)
		return viewOf(b, c.Now(), 0), err
	}, lane.Trainee(auth.ScopeTrainingRead), lane.Allow(BenchmarkFields...))
	lane.Add(rs, "POST", "/trainees/{id}/benchmarks", "Record a benchmark value: a new benchmark by name with unit and direction, or a new value of an existing one by name or benchmarkId. Earlier values are kept as history.", a.recordBenchmark, lane.Created(),
		lane.Trainee(auth.ScopeTrainingWrite), lane.TraineeTool("record_benchmark"), lane.Allow("created", "best"), lane.Allow(lane.Under("benchmark", BenchmarkFields...)...))
}

func (a *Area) recordBenchmark(c *lane.Call, in *recordBenchmarkInput) (recordedBenchmark, error) {
	var out recordedBenchmark
	if in.BenchmarkID == nil && in.Name == nil {
		return out, lane.InvalidField("name", "name or benchmarkId is required: name a benchmark (new or existing), or give the id of one.")
	}
	err := c.InTx(func(ss store.StudioStore) error {
		t, err := lane.Lookup(c.Ctx, ids.Trainee, c.ID(), ss.GetTrainee)
		if err != nil {
			return err
		}
		entry := domain.BenchmarkEntry{ID: ids.New(ids.BenchmarkEntry), Value: in.Value, RecordedAt: c.Now().UTC(), Source: domain.BenchmarkFromCoach, Notes: in.Notes}
		if in.RecordedAt != nil {
			entry.RecordedAt = in.RecordedAt.UTC()
		}
		var b domain.Benchmark
		switch {
		case in.BenchmarkID != nil:
			if b, err = lane.Lookup(c.Ctx, ids.Benchmark, *in.BenchmarkID, ss.GetBenchmark); err != nil {
				return err
			}
			if b.TraineeID != t.ID {
				return lane.NotFound(ids.Benchmark, b.ID)
			}
		default:
			b, err = ss.FindBenchmark(c.Ctx, t.ID, strings.TrimSpace(*in.Name))
			if errors.Is(err, store.ErrNotFound) {
				return newBenchmark(c, ss, t.ID, in, entry, &out)
			}
			if err != nil {
				return err
			}
		}
		if e := sameShape(b, in); e != nil {
			return e
		}
		if err := checkBenchmarkLoad(c, ss, b, in.Value); err != nil {
			return err
		}
		before := training.Stats(b, c.Now())
		if err := ss.AddBenchmarkEntry(c.Ctx, b.ID, &entry); err != nil {
			return err
		}
		b.Entries = append(b.Entries, entry)
		out.Benchmark = viewOf(b, c.Now(), recentEntries)
		out.Best = before.Best == nil || training.Better(b.Direction, entry.Value, before.Best.Value)
		c.SetResource(b.ID)
		return nil
	})
	return out, err
}

// sameShape refuses a value for an existing benchmark sent with a unit,
// direction or exercise that is not the benchmark's.
func sameShape(b domain.Benchmark, in *recordBenchmarkInput) *lane.Error {
	if in.Unit != nil && strings.TrimSpace(*in.Unit) != b.Unit {
		return lane.InvalidField("unit", fmt.Sprintf("unit %q is not the unit of benchmark %s (%s), which is %s; omit unit or convert the value.", *in.Unit, b.ID, b.Name, b.Unit))
	}
	if in.Direction != nil && *in.Direction != b.Direction {
		return lane.InvalidField("direction", fmt.Sprintf("direction %s is not benchmark %s's, which is %s; omit direction.", *in.Direction, b.ID, b.Direction))
	}
	return nil
}

func newBenchmark(c *lane.Call, ss store.StudioStore, traineeID string, in *recordBenchmarkInput, entry domain.BenchmarkEntry, out *recordedBenchmark) error {
	var errs []lane.FieldError
	if in.Unit == nil {
		errs = append(errs, lane.FieldError{Field: "unit", Message: fmt.Sprintf("unit is required for a new benchmark (the trainee has none named %q): kg, s, m, reps or another short unit.", strings.TrimSpace(*in.Name))})
	}
	if in.Direction == nil {
		errs = append(errs, lane.FieldError{Field: "direction", Message: "direction is required for a new benchmark: higher (a lift, reps) or lower (a time)."})
	}
	var exerciseID *string
	if in.ExerciseID != nil {
		ex, fe := catalog.Exercise(c, ss, "exerciseId", *in.ExerciseID)
		if fe != nil {
			errs = append(errs, *fe)
		} else {
			exerciseID = &ex.ID
		}
	}
	if len(errs) > 0 {
		return lane.ValidationError(errs)
	}
	b := domain.Benchmark{ID: ids.New(ids.Benchmark), TraineeID: traineeID, Name: strings.TrimSpace(*in.Name), ExerciseID: exerciseID,
		Unit: strings.TrimSpace(*in.Unit), Direction: *in.Direction, Entries: []domain.BenchmarkEntry{entry}, CreatedAt: c.Now().UTC()}
	if err := checkBenchmarkLoad(c, ss, b, in.Value); err != nil {
		return err
	}
	if err := ss.CreateBenchmark(c.Ctx, &b); err != nil {
		return err
	}
	out.Benchmark, out.Created, out.Best = viewOf(b, c.Now(), recentEntries), true, true
	c.SetResource(b.ID)
	return nil
}
