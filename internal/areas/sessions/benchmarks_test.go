package sessions_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/lane/lanetest"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/store/storetest"
)

type benchmarkAnswer struct {
	ID, TraineeID, Name, Unit, Direction string
	ExerciseID                           *string
	Best, Latest                         *struct{ Value float64 }
	Change4Weeks, Change12Weeks          *float64
	Entries                              int
	Recent                               []recentAnswer
}

type recentAnswer struct {
	domain.BenchmarkEntry
	PR bool
}

func TestBenchmarks(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		// Values recorded back to back must not share a millisecond: the
		// list is newest first.
		e := lanetest.New(t, st, kit.Options{Now: storetest.StepClock()})
		f := e.Seed("bench")
		k, tp := f.Key, "/trainees/"+f.Trainee.ID
		now := time.Now().UTC()
		ago := func(days int) string { return now.AddDate(0, 0, -days).Format(time.RFC3339) }
		var rec struct {
			Benchmark     benchmarkAnswer
			Created, Best bool
		}
		// A 5 km time in seconds, lower is better: 1500 (100 days ago), 1440 (50), 1470 (yesterday).
		e.OK(201, e.Call(k, "POST", tp+"/benchmarks", map[string]any{"name": "5 km run", "unit": "s", "direction": "lower", "value": 1500, "recordedAt": ago(100)})).Into(t, &rec)
		if !rec.Created || !rec.Best || rec.Benchmark.Entries != 1 {
			t.Fatalf("new benchmark %+v", rec)
		}
		id := rec.Benchmark.ID
		e.OK(201, e.Call(k, "POST", tp+"/benchmarks", map[string]any{"name": "5 KM Run", "value": 1440, "recordedAt": ago(50)})).Into(t, &rec)
		if rec.Created || !rec.Best || rec.Benchmark.ID != id {
			t.Fatalf("second value %+v", rec)
		}
		rec.Benchmark.Recent = nil // pr is left out when false: decode afresh
		e.OK(201, e.Call(k, "POST", tp+"/benchmarks", map[string]any{"benchmarkId": id, "value": 1470, "recordedAt": ago(1), "notes": "windy"})).Into(t, &rec)
		b := rec.Benchmark
		// Best 1440; latest 1470; 4 weeks back the latest was 1440 (+30);
		// 12 weeks back it was 1500 (-30).
		if rec.Best || b.Best.Value != 1440 || b.Latest.Value != 1470 || *b.Change4Weeks != 30 || *b.Change12Weeks != -30 || b.Entries != 3 || b.Recent[0].Value != 1470 || *b.Recent[0].Notes != "windy" {
			t.Fatalf("third value %+v", rec)
		}
		// 1500 was the first value and 1440 beat it: both personal records;
		// 1470 beat neither.
		if prs := []bool{b.Recent[0].PR, b.Recent[1].PR, b.Recent[2].PR}; !slices.Equal(prs, []bool{false, true, true}) {
			t.Fatalf("personal records newest first = %v, want false, true, true", prs)
		}
		// A lift by exercise, so logged sets find it.
		e.OK(201, e.Call(k, "POST", tp+"/benchmarks", map[string]any{"name": "Squat max", "unit": "kg", "direction": "higher", "exerciseId": "back-squat", "value": 140})).Into(t, &rec)
		var logged loggedAnswer
		e.OK(201, e.Call(k, "POST", tp+"/workouts", map[string]any{"sport": "strength", "exercises": []map[string]any{{"exerciseId": "back-squat", "sets": kit.Sets(2, 140)}}})).Into(t, &logged)
		// 140 × (1 + 2/30) = 149.33 beats 140.
		if len(logged.PRs) != 1 || logged.PRs[0].BenchmarkID != rec.Benchmark.ID || logged.PRs[0].E1RMKg != 149.33 || *logged.PRs[0].PreviousBest != 140 {
			t.Fatalf("PR on the coach's benchmark: %+v", logged.PRs)
		}

		var all kit.List[benchmarkAnswer]
		e.OK(200, e.Call(k, "GET", tp+"/benchmarks", nil)).Into(t, &all)
		var names []string
		for _, x := range all.Items {
			names = append(names, x.Name)
		}
		if !slices.Equal(names, []string{"5 km run", "Max pull-ups", "Squat max"}) || all.Total != 3 {
			t.Fatalf("benchmarks %v", names)
		}
		// The list keeps the 5 latest values; the benchmark has them all.
		for i := range 6 {
			e.OK(201, e.Call(k, "POST", tp+"/benchmarks", map[string]any{"benchmarkId": f.Benchmark.ID, "value": 9 + i}))
		}
		e.OK(200, e.Call(k, "GET", tp+"/benchmarks?limit=1&offset=1", nil)).Into(t, &all)
		if len(all.Items) != 1 || all.Items[0].Name != "Max pull-ups" || len(all.Items[0].Recent) != 5 || all.Items[0].Entries != 7 || all.Items[0].Recent[0].Value != 14 || *all.NextOffset != 2 {
			t.Fatalf("pull-ups in the list %+v", all)
		}
		var one benchmarkAnswer
		e.OK(200, e.Call(k, "GET", "/benchmarks/"+f.Benchmark.ID, nil)).Into(t, &one)
		if len(one.Recent) != 7 || one.Recent[6].Value != 8 || one.Best.Value != 14 {
			t.Fatalf("GET benchmark %+v", one)
		}

		for _, tc := range []struct {
			body   map[string]any
			fields []string
		}{
			{map[string]any{"value": 5}, []string{"name"}},
			{map[string]any{"name": "Plank"}, []string{"value"}},
			{map[string]any{"name": "Plank", "value": 60}, []string{"unit", "direction"}},
			{map[string]any{"name": "Plank", "value": 60, "unit": "s", "direction": "sideways"}, []string{"direction"}},
			{map[string]any{"name": "Plank", "value": -1, "unit": "s", "direction": "higher"}, []string{"value"}},
			{map[string]any{"name": "Plank", "value": 60, "unit": "s", "direction": "higher", "exerciseId": "moon-plank"}, []string{"exerciseId"}},
			{map[string]any{"name": "5 km run", "value": 1400, "unit": "min"}, []string{"unit"}},
			{map[string]any{"benchmarkId": id, "value": 1400, "direction": "higher"}, []string{"direction"}},
			{map[string]any{"name": "Plank", "value": 60, "unit": "s", "direction": "higher", "recordedAt": now.AddDate(0, 0, 2).Format(time.RFC3339)}, []string{"recordedAt"}},
		} {
			a := e.Fails(422, "VALIDATION", e.Call(k, "POST", tp+"/benchmarks", tc.body))
			if !slices.Equal(a.Fields(), tc.fields) {
				t.Errorf("%v: fields %v, want %v: %s", tc.body, a.Fields(), tc.fields, a.Message())
			}
		}
		a := e.Fails(422, "VALIDATION", e.Call(k, "POST", tp+"/benchmarks", map[string]any{"name": "Plank", "value": 60}))
		if !strings.Contains(a.Message(), "Plank") {
			t.Errorf("a new benchmark without unit: %s", a.Raw)
		}
		// Another trainee's benchmark is not this trainee's.
		var mate domain.Trainee
		e.OK(201, e.Call(k, "POST", "/trainees", map[string]any{"firstName": "Bench", "lastName": "Mate", "phone": "054-333-2222"})).Into(t, &mate)
		e.Fails(404, "NOT_FOUND", e.Call(k, "POST", "/trainees/"+mate.ID+"/benchmarks", map[string]any{"benchmarkId": id, "value": 1}))
		e.Fails(404, "NOT_FOUND", e.Call(k, "POST", tp+"/benchmarks", map[string]any{"benchmarkId": "bmk_00000000000000000000000000", "value": 1}))
		e.Fails(404, "NOT_FOUND", e.Call(k, "GET", "/benchmarks/bmk_00000000000000000000000000", nil))
		e.Fails(404, "NOT_FOUND", e.Call(k, "GET", "/trainees/trn_00000000000000000000000000/benchmarks", nil))
		if n := len(e.Notifications(f.Studio.ID)); n != 0 {
			t.Errorf("the outbox holds %d notifications", n)
		}
	})
}
