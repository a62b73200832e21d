package lane_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/domain"
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
	onSQLite(t, func(t *testing.T, st store.Store) {
		// Values recorded back to back must not share a millisecond: the
		// list is newest first.
		e := newEnv(t, st, envOptions{now: storetest.StepClock()})
		f := e.seed("bench")
		k, tp := f.key, "/trainees/"+f.trainee.ID
		now := time.Now().UTC()
		ago := func(days int) string { return now.AddDate(0, 0, -days).Format(time.RFC3339) }
		var rec struct {
			Benchmark     benchmarkAnswer
			Created, Best bool
		}
		// A 5 km time in seconds, lower is better: 1500 (100 days ago), 1440 (50), 1470 (yesterday).
		e.ok(201, e.call(k, "POST", tp+"/benchmarks", map[string]any{"name": "5 km run", "unit": "s", "direction": "lower", "value": 1500, "recordedAt": ago(100)})).into(t, &rec)
		if !rec.Created || !rec.Best || rec.Benchmark.Entries != 1 {
			t.Fatalf("new benchmark %+v", rec)
		}
		id := rec.Benchmark.ID
		e.ok(201, e.call(k, "POST", tp+"/benchmarks", map[string]any{"name": "5 KM Run", "value": 1440, "recordedAt": ago(50)})).into(t, &rec)
		if rec.Created || !rec.Best || rec.Benchmark.ID != id {
			t.Fatalf("second value %+v", rec)
		}
		rec.Benchmark.Recent = nil // pr is left out when false: decode afresh
		e.ok(201, e.call(k, "POST", tp+"/benchmarks", map[string]any{"benchmarkId": id, "value": 1470, "recordedAt": ago(1), "notes": "windy"})).into(t, &rec)
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
		e.ok(201, e.call(k, "POST", tp+"/benchmarks", map[string]any{"name": "Squat max", "unit": "kg", "direction": "higher", "exerciseId": "back-squat", "value": 140})).into(t, &rec)
		var logged loggedAnswer
		e.ok(201, e.call(k, "POST", tp+"/workouts", map[string]any{"sport": "strength", "exercises": []map[string]any{{"exerciseId": "back-squat", "sets": sets(2, 140)}}})).into(t, &logged)
		// 140 × (1 + 2/30) = 149.33 beats 140.
		if len(logged.PRs) != 1 || logged.PRs[0].BenchmarkID != rec.Benchmark.ID || logged.PRs[0].E1RMKg != 149.33 || *logged.PRs[0].PreviousBest != 140 {
			t.Fatalf("PR on the coach's benchmark: %+v", logged.PRs)
		}

		var all list[benchmarkAnswer]
		e.ok(200, e.call(k, "GET", tp+"/benchmarks", nil)).into(t, &all)
		var names []string
		for _, x := range all.Items {
			names = append(names, x.Name)
		}
		if !slices.Equal(names, []string{"5 km run", "Max pull-ups", "Squat max"}) || all.Total != 3 {
			t.Fatalf("benchmarks %v", names)
		}
		// The list keeps the 5 latest values; the benchmark has them all.
		for i := range 6 {
			e.ok(201, e.call(k, "POST", tp+"/benchmarks", map[string]any{"benchmarkId": f.benchmark.ID, "value": 9 + i}))
		}
		e.ok(200, e.call(k, "GET", tp+"/benchmarks?limit=1&offset=1", nil)).into(t, &all)
		if len(all.Items) != 1 || all.Items[0].Name != "Max pull-ups" || len(all.Items[0].Recent) != 5 || all.Items[0].Entries != 7 || all.Items[0].Recent[0].Value != 14 || *all.NextOffset != 2 {
			t.Fatalf("pull-ups in the list %+v", all)
		}
		var one benchmarkAnswer
		e.ok(200, e.call(k, "GET", "/benchmarks/"+f.benchmark.ID, nil)).into(t, &one)
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
			a := e.fails(422, "VALIDATION", e.call(k, "POST", tp+"/benchmarks", tc.body))
			if !slices.Equal(a.fields(), tc.fields) {
				t.Errorf("%v: fields %v, want %v: %s", tc.body, a.fields(), tc.fields, a.message())
			}
		}
		a := e.fails(422, "VALIDATION", e.call(k, "POST", tp+"/benchmarks", map[string]any{"name": "Plank", "value": 60}))
		if !strings.Contains(a.message(), "Plank") {
			t.Errorf("a new benchmark without unit: %s", a.Raw)
		}
		// Another trainee's benchmark is not this trainee's.
		var mate domain.Trainee
		e.ok(201, e.call(k, "POST", "/trainees", map[string]any{"firstName": "Bench", "lastName": "Mate", "phone": "054-333-2222"})).into(t, &mate)
		e.fails(404, "NOT_FOUND", e.call(k, "POST", "/trainees/"+mate.ID+"/benchmarks", map[string]any{"benchmarkId": id, "value": 1}))
		e.fails(404, "NOT_FOUND", e.call(k, "POST", tp+"/benchmarks", map[string]any{"benchmarkId": "bmk_00000000000000000000000000", "value": 1}))
		e.fails(404, "NOT_FOUND", e.call(k, "GET", "/benchmarks/bmk_00000000000000000000000000", nil))
		e.fails(404, "NOT_FOUND", e.call(k, "GET", "/trainees/trn_00000000000000000000000000/benchmarks", nil))
		if n := len(e.notifications(f.studio.ID)); n != 0 {
			t.Errorf("the outbox holds %d notifications", n)
		}
	})
}
