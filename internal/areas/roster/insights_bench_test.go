package roster_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/areas"
	"github.com/otherwise/perform/internal/audit"
	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/store/storetest"
	"github.com/otherwise/perform/internal/testkit"
)

// The per-trainee read models through the whole lane, for a trainee with
// 3 years of history (sessions 3 a week with 5 exercises × 4 sets, a
// check-in a day, 5 lift benchmarks with an entry a fortnight, injuries
// and goals), among 19 trainees like it.
//
//	go test -run '^$' -bench ReadModels -benchtime 200x ./internal/areas/roster/
func BenchmarkReadModels(b *testing.B) {
	for _, engine := range []string{"sqlite", "postgres"} {
		for _, years := range testkit.Sizes(1, 3) {
			b.Run(fmt.Sprintf("%s/%dy", engine, years), func(b *testing.B) {
				var st store.Store
				if engine == "sqlite" {
					st = storetest.OpenSQLite(b)
				} else {
					st = storetest.OpenPostgres(b)
				}
				aw := audit.NewWriter(st, audit.Options{})
				defer aw.Close()
				l := areas.Lane(lane.Options{Store: st, Audit: aw, Now: func() time.Time { return kit.InsightsNow }})
				key, trainee := seedHistory(b, st, years)
				for _, path := range []string{"/overview", "/debrief", "/debrief?week=2026-W40", "/insights"} {
					b.Run(path, func(b *testing.B) {
						b.ReportAllocs()
						var laps []time.Duration
						for b.Loop() {
							start := time.Now()
							req := httptest.NewRequest("GET", lane.Prefix+"/trainees/"+trainee+path, nil)
							req.Header.Set("Authorization", "Bearer "+key)
							rec := httptest.NewRecorder()
							l.ServeHTTP(rec, req)
							if rec.Code != 200 {
								b.Fatalf("%s: %d %s", path, rec.Code, rec.Body)
							}
							laps = append(laps, time.Since(start))
						}
						slices.Sort(laps)
						b.ReportMetric(float64(laps[len(laps)/2].Nanoseconds()), "p50-ns")
					})
				}
			})
		}
	}
}

// benchTrainees is how many trainees share the studio with the one read.
const benchTrainees = 20

// seedHistory writes benchTrainees trainees with years of history up to 2 Dec 2026
// through the store, answering a key and one trainee's id.
func seedHistory(b *testing.B, st store.Store, years int) (string, string) {
	b.Helper()
	ctx := context.Background()
	studio := domain.Studio{Name: "History", Slug: "history-" + strings.ToLower(ids.New(ids.Studio)[20:])}
	if err := st.CreateStudio(ctx, &studio); err != nil {
		b.Fatal(err)
	}
	key := auth.NewKey()
	k := domain.APIKey{ID: ids.New(ids.APIKey), StudioID: studio.ID, Name: "bench", Prefix: auth.Display(key), Hash: auth.Hash(key)}
	if err := st.CreateAPIKey(ctx, &k); err != nil {
		b.Fatal(err)
	}
	ss := st.Studio(studio.ID)
	today, _ := time.Parse(time.DateOnly, "2026-12-02")
	days := 365 * years
	lifts := []string{"back-squat", "bench-press", "deadlift", "overhead-press", "barbell-row"}
	var first string
	start := time.Now()
	for n := 0; n < benchTrainees; n++ {
		tr := domain.Trainee{FirstName: "T", LastName: fmt.Sprint(n), Phone: fmt.Sprintf("+97253%07d", n)}
		if err := ss.CreateTrainee(ctx, &tr); err != nil {
			b.Fatal(err)
		}
		if first == "" {
			first = tr.ID
		}
		var sessions []*domain.Session
		for ago := days; ago >= -7; ago-- {
			d := today.AddDate(0, 0, -ago)
			if wd := d.Weekday(); wd != time.Monday && wd != time.Wednesday && wd != time.Friday {
				continue
			}
			status := domain.SessionCompleted
			if ago < 0 {
				status = domain.SessionPlanned
			} else if ago%11 == 0 {
				status = domain.SessionMissed
			}
			var exs []domain.SessionExercise
			vol := 0.0
			for i, lift := range lifts {
				kg := 60 + float64(i*10) + float64(days-ago)/30
				reps := 5
				var sets []domain.SetEntry
				for range 4 {
					sets = append(sets, domain.SetEntry{Reps: &reps, LoadKg: &kg, Done: status == domain.SessionCompleted})
					vol += kg * 5
				}
				exs = append(exs, domain.SessionExercise{ExerciseID: lift, Name: lift, Sets: sets})
			}
			minutes, rpe := 60+ago%7, 6+ago%4
			s := &domain.Session{TraineeID: tr.ID, Date: d.Format(time.DateOnly), Sport: "strength", Title: "Full body", Status: status,
				Source: domain.SessionFromProgram, DurationMin: &minutes, Exercises: exs}
			if status == domain.SessionCompleted {
				s.RPE, s.Totals = &rpe, domain.SessionTotals{VolumeKg: vol, Sets: 20, Reps: 100}
			}
			sessions = append(sessions, s)
		}
		if err := ss.CreateSessions(ctx, sessions); err != nil {
			b.Fatal(err)
		}
		for ago := days; ago >= 0; ago-- {
			r, sore := 4+ago%6, 2+ago%5
			if _, err := ss.PutCheckIn(ctx, &domain.CheckIn{TraineeID: tr.ID, Day: today.AddDate(0, 0, -ago).Format(time.DateOnly), Readiness: &r, Soreness: &sore, SoreAreas: []string{}}); err != nil {
				b.Fatal(err)
			}
		}
		for i, lift := range lifts {
			ex := lift
			bm := domain.Benchmark{TraineeID: tr.ID, Name: lift + " 1RM", ExerciseID: &ex, Unit: "kg", Direction: domain.HigherIsBetter}
			for ago := days; ago >= 0; ago -= 14 {
				bm.Entries = append(bm.Entries, domain.BenchmarkEntry{Value: 80 + float64(i*10) + float64(days-ago)/20, RecordedAt: today.AddDate(0, 0, -ago).Add(17 * time.Hour), Source: domain.BenchmarkFromCoach})
			}
			if err := ss.CreateBenchmark(ctx, &bm); err != nil {
				b.Fatal(err)
			}
		}
		for y := 0; y < years*3; y++ {
			status := domain.InjuryResolved
			if y == 0 {
				status = domain.InjuryActive
			}
			if err := ss.CreateInjury(ctx, &domain.Injury{TraineeID: tr.ID, Area: "knee", Side: "left", Severity: 2, Status: status, OnsetOn: today.AddDate(0, 0, -y*100).Format(time.DateOnly), AffectedExercises: []string{}}); err != nil {
				b.Fatal(err)
			}
		}
		target := 150.0
		if err := ss.CreateGoal(ctx, &domain.Goal{TraineeID: tr.ID, Title: "3 a week", Kind: domain.GoalConsistency, TargetValue: &target, Status: domain.GoalActive}); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("seeded %d trainees × %d years on %s in %v", benchTrainees, years, st.Engine(), time.Since(start).Round(time.Millisecond))
	return key, first
}
