package sessions_test

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/areas"
	"github.com/otherwise/perform/internal/audit"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/store/storetest"
)

// Logging a workout of 25 sets (5 exercises × 5 sets) through the lane's
// whole chain: validation, the logged-rule check, the insert, totals and
// the PR check of each exercise against its benchmark.
//
//	go test -run '^$' -bench LogWorkout -benchmem ./internal/areas/sessions/
func BenchmarkLogWorkout(b *testing.B) {
	for _, engine := range []string{"sqlite", "postgres"} {
		b.Run(engine, func(b *testing.B) {
			var st store.Store
			if engine == "sqlite" {
				st = storetest.OpenSQLite(b)
			} else {
				st = storetest.OpenPostgres(b)
			}
			aw := audit.NewWriter(st, audit.Options{})
			defer aw.Close()
			l := areas.Lane(lane.Options{Store: st, Audit: aw})
			key, traineeID := seedMany(b, st, 100)
			today := time.Now().UTC()
			body := func(i int, sport string, load float64) string {
				// Every iteration is another workout: another date or duration.
				date := today.AddDate(0, 0, -2-i%3000).Format(time.DateOnly)
				var exs []string
				for _, ex := range []string{"back-squat", "bench-press", "leg-press", "dumbbell-bench-press", "goblet-squat"} {
					var sets []string
					for s := range 5 {
						sets = append(sets, fmt.Sprintf(`{"reps":%d,"loadKg":%g,"rpe":8}`, 5+s, load))
					}
					exs = append(exs, `{"exerciseId":"`+ex+`","sets":[`+strings.Join(sets, ",")+`]}`)
				}
				return fmt.Sprintf(`{"date":"%s","sport":"%s","durationMin":%d,"rpe":8,"exercises":[%s]}`, date, sport, 1+(i/3000)%600, strings.Join(exs, ","))
			}
			run := func(name, sport string, load func(i int) float64) {
				b.Run(name, func(b *testing.B) {
					b.ReportAllocs()
					for i := 0; b.Loop(); i++ {
						req := httptest.NewRequest("POST", lane.Prefix+"/trainees/"+traineeID+"/workouts", strings.NewReader(body(i, sport, load(i))))
						req.Header.Set("Authorization", "Bearer "+key)
						rec := httptest.NewRecorder()
						l.ServeHTTP(rec, req)
						if rec.Code != 201 {
							b.Fatalf("%d %s", rec.Code, rec.Body)
						}
					}
				})
			}
			// The same loads every time: after the first, no PR.
			run("25-sets", "strength", func(int) float64 { return 100 })
			// Heavier every time: each of the 5 exercises records a PR.
			run("25-sets-5-PRs", "powerlifting", func(i int) float64 { return 101 + float64(i)*0.01 })
		})
	}
}
