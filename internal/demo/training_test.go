package demo

import (
	"context"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/exercises"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/store/storetest"
	"github.com/otherwise/perform/internal/training"
)

// The demo's training memory reads as a year of real training, and for
// each reason of the roster triage some trainee's stored facts meet it
// (read straight from the store, the rule restated here).
func TestSeedTraining(t *testing.T) {
	t.Parallel()
	for engine, open := range storetest.Engines(t) {
		t.Run(engine, func(t *testing.T) {
			st := open(t)
			ctx := context.Background()
			now := time.Date(2026, 11, 26, 8, 0, 0, 0, time.UTC) // a Thursday
			studio, err := SeedAt(ctx, st, now)
			if err != nil {
				t.Fatal(err)
			}
			checkTraining(t, st, studio.ID, now)
		})
	}
}

func checkTraining(t *testing.T, st store.Store, studioID string, now time.Time) {
	ctx := context.Background()
	ss := st.Studio(studioID)
	zone := domain.Studio{}.TimeZone()
	today := now.In(zone).Format(time.DateOnly)
	weekStart, yesterday := training.WeekStartOn(today, domain.Studio{}.FirstDay()), addDays(today, -1)
	all := store.Page{Limit: 200}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}

	// Structured templates naming catalogue exercises.
	templates, err := ss.ListProgramTemplates(ctx, "", all)
	must(err)
	structured := 0
	for _, row := range templates.Items {
		tm, err := ss.GetProgramTemplate(ctx, row.ID)
		must(err)
		if tm.Structure == nil {
			continue
		}
		structured++
		for _, ph := range tm.Structure.Phases {
			for _, w := range ph.Weeks {
				for _, d := range w.Days {
					for _, ex := range d.Exercises {
						if _, ok := exercises.Get(ex.ExerciseID); !ok {
							t.Errorf("template %s names %q, not a catalogue exercise", tm.Name, ex.ExerciseID)
						}
					}
				}
			}
		}
	}
	if structured != len(planTemplates) {
		t.Errorf("%d structured templates, want %d", structured, len(planTemplates))
	}

	trainees, err := ss.SearchTrainees(ctx, store.TraineeFilter{Status: domain.TraineeActive, Page: all})
	must(err)
	reasons := map[string][]string{}
	meets := func(reason string, tr domain.Trainee) { reasons[reason] = append(reasons[reason], tr.ID) }
	var longest, prs, dailyCheckIns, resolved, measured, profiles int
	statuses := map[string]int{}
	for _, tr := range trainees.Items {
		sessions, err := ss.ListSessions(ctx, store.SessionFilter{TraineeID: tr.ID, Ascending: true, Page: all})
		must(err)
		if sessions.Total > 0 {
			first, _ := time.Parse(time.DateOnly, sessions.Items[0].Date)
			longest = max(longest, int(now.Sub(first).Hours()/24))
		}
		var lastCompleted string
		missed := 0
		for from := 0; from < sessions.Total; from += 200 {
			page, err := ss.ListSessions(ctx, store.SessionFilter{TraineeID: tr.ID, Ascending: true, Page: store.Page{Limit: 200, Offset: from}})
			must(err)
			for _, x := range page.Items {
				statuses[x.Status]++
				if x.Status == domain.SessionCompleted && x.Date <= today {
					lastCompleted = x.Date
				}
				if x.Date >= weekStart && x.Date <= yesterday && (x.Status == domain.SessionMissed || x.Status == domain.SessionPlanned) {
					missed++
				}
			}
		}
		programs, err := ss.ListPrograms(ctx, tr.ID)
		must(err)
		activeProgram := slices.ContainsFunc(programs, func(p domain.Program) bool { return p.Status == domain.ProgramActive })
		if activeProgram && (lastCompleted == "" || dayCount(lastCompleted, today) >= 10) {
			meets("no_recent_session", tr)
		}
		if missed >= 2 {
			meets("missed_sessions", tr)
		}

		benchmarks, err := ss.ListBenchmarks(ctx, tr.ID)
		must(err)
		for _, b := range benchmarks {
			for _, e := range b.Entries {
				if e.Source == domain.BenchmarkFromSession && e.SessionID != nil {
					prs++
				}
			}
		}

		checkIns, err := ss.ListCheckIns(ctx, tr.ID, addDays(today, -59), today, all)
		must(err)
		if checkIns.Total >= 45 {
			dailyCheckIns++
		}
		if c := checkIns.Items; len(c) >= 3 && dayCount(c[0].Day, today) <= 1 {
			low := true
			for i, ci := range c[:3] {
				low = low && ci.Readiness != nil && *ci.Readiness <= 4 && (i == 0 || dayCount(ci.Day, c[i-1].Day) == 1)
			}
			if low {
				meets("low_readiness", tr)
			}
		}

		injuries, err := ss.ListInjuries(ctx, tr.ID, "")
		must(err)
		for _, i := range injuries {
			switch i.Status {
			case domain.InjuryActive:
				meets("active_injury", tr)
			case domain.InjuryResolved:
				resolved++
			}
		}

		subs, err := ss.ListSubscriptions(ctx, tr.ID)
		must(err)
		var ends string
		open := false
		for _, s := range subs {
			if s.Status != "active" {
				continue
			}
			if s.EndsOn == nil {
				open = true
			} else if *s.EndsOn > ends {
				ends = *s.EndsOn
			}
		}
		if !open && ends != "" {
			switch {
			case ends < today:
				meets("plan_ended", tr)
			case dayCount(today, ends) <= 7:
				meets("plan_ending", tr)
			}
		}

		tasks, err := ss.ListTasks(ctx, store.TaskFilter{Status: domain.TaskOpen, ClientID: tr.ID, Page: all})
		must(err)
		if slices.ContainsFunc(tasks.Items, func(k domain.Task) bool { return k.DueAt != nil && k.DueAt.Before(now) }) {
			meets("overdue_tasks", tr)
		}

		goals, err := ss.ListGoals(ctx, tr.ID, domain.GoalActive)
		must(err)
		for _, g := range goals {
			if g.Kind != domain.GoalMeasurement || g.Measure == nil || *g.Measure != "weightKg" {
				continue
			}
			weights, err := ss.WeightsBetween(ctx, tr.ID, dayAt(addDays(today, -27), 0, zone), now.Add(time.Minute))
			must(err)
			var sums, counts [4]float64
			for _, w := range weights {
				i := 3 - dayCount(w.RecordedAt.In(zone).Format(time.DateOnly), today)/7
				sums[i] += w.WeightKg
				counts[i]++
			}
			away := true
			for i := range 4 {
				away = away && counts[i] > 0 && (i == 0 || math.Abs(sums[i]/counts[i]-*g.TargetValue) > math.Abs(sums[i-1]/counts[i-1]-*g.TargetValue))
			}
			if away {
				meets("weight_off_goal", tr)
			}
		}

		ms, err := ss.ListMeasurements(ctx, tr.ID, all)
		must(err)
		if ms.Total >= 3 {
			measured++
		}
		if _, err := ss.GetTrainingProfile(ctx, tr.ID); err == nil {
			profiles++
		}
	}

	// Forms past due, from the table: the store lists no assignments.
	var pastDue int
	q := st.Rebind(`SELECT count(DISTINCT trainee_id) FROM form_assignments WHERE studio_id = ? AND status = 'pending' AND due_at < ?`)
	must(st.DB().QueryRowContext(ctx, q, studioID, now.UnixMilli()).Scan(&pastDue))
	if pastDue == 0 {
		t.Errorf("no trainee has a form past due")
	}

	for _, reason := range []string{"low_readiness", "active_injury", "plan_ended", "no_recent_session", "missed_sessions", "plan_ending", "weight_off_goal", "overdue_tasks"} {
		if len(reasons[reason]) == 0 {
			t.Errorf("no active trainee meets %s", reason)
		}
	}
	if n := len(trainees.Items); len(reasons["no_recent_session"]) > n/3 || len(reasons["low_readiness"]) > n/3 {
		t.Errorf("too many trainees need attention to read as a real roster: %v", reasons)
	}
	if longest < 200 || prs < 50 || dailyCheckIns < 5 || resolved == 0 || measured < 5 || profiles != len(trainees.Items) {
		t.Errorf("thin history: longest %d days, %d PRs, %d trainees checking in most days, %d resolved injuries, %d measured, %d profiles of %d",
			longest, prs, dailyCheckIns, resolved, measured, profiles, len(trainees.Items))
	}
	t.Logf("sessions by status %v; %d PRs; %d trainees checking in most days; triage %v", statuses, prs, dailyCheckIns, reasons)
	if statuses[domain.SessionCompleted] < 800 || statuses[domain.SessionMissed] == 0 || statuses[domain.SessionSkipped] == 0 || statuses[domain.SessionPlanned] == 0 {
		t.Errorf("session statuses %v", statuses)
	}
}

// BenchmarkSeed is the whole demo seed, training memory included, into a
// fresh database each time.
func BenchmarkSeed(b *testing.B) {
	engines := map[string]func(testing.TB) store.Store{
		"sqlite":   func(tb testing.TB) store.Store { return storetest.OpenSQLite(tb) },
		"postgres": func(tb testing.TB) store.Store { return storetest.OpenPostgres(tb) },
	}
	for engine, open := range engines {
		b.Run(engine, func(b *testing.B) {
			now := time.Date(2026, 11, 26, 8, 0, 0, 0, time.UTC)
			for b.Loop() {
				b.StopTimer()
				st := open(b)
				b.StartTimer()
				if _, err := SeedAt(context.Background(), st, now); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
