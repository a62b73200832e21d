package store_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/store/storetest"
	"github.com/otherwise/perform/internal/testkit"
	"github.com/otherwise/perform/internal/training"
)

// The roster triage of a studio of 5,000 active trainees with 90 days of
// data each (sessions 3 a week, a check-in 6 days of 7, weigh-ins twice a
// week, a plan, a program, forms, tasks; some injuries and goal weights):
// RosterFacts and the triage over them, as GET /trainees/needs-attention
// computes its first page.
//
//	go test -run '^$' -bench RosterTriage -benchtime 20x ./internal/store/
func BenchmarkRosterTriage(b *testing.B) {
	openers := map[string]func(testing.TB) store.Store{
		"sqlite":   func(tb testing.TB) store.Store { return storetest.OpenSQLite(tb) },
		"postgres": func(tb testing.TB) store.Store { return storetest.OpenPostgres(tb) },
	}
	for _, engine := range []string{"sqlite", "postgres"} {
		for _, n := range testkit.Sizes(1_000, 5_000) {
			b.Run(fmt.Sprintf("%s/%d", engine, n), func(b *testing.B) {
				st := openers[engine](b)
				ctx := context.Background()
				studio := seedTrainees(b, st, n)
				seedRosterData(b, st, studio.ID)
				ss := st.Studio(studio.ID)
				zone := studio.TimeZone()
				q := store.RosterQuery{Today: benchToday, WeekStart: training.WeekStartOn(benchToday, studio.FirstDay()), Now: benchNow, Zone: zone}
				facts, err := ss.RosterFacts(ctx, q)
				if err != nil || len(facts) != n {
					b.Fatalf("RosterFacts: %d, %v", len(facts), err)
				}
				want := len(training.Triage(facts, benchToday, zone, ""))
				if want == 0 || want == n {
					b.Fatalf("the triage keeps %d of %d: want some, not all", want, n)
				}
				b.Logf("%d of %d trainees need attention", want, n)
				measure(b, func() {
					facts, err := ss.RosterFacts(ctx, q)
					if err != nil {
						b.Fatal(err)
					}
					// The first page, as the route answers it (50 a page).
					if got := training.TriagePage(facts, benchToday, zone, "", 0, 50); got.Total != want {
						b.Fatalf("triage: %d, want %d", got.Total, want)
					}
				})
			})
		}
	}
}

const benchToday = "2026-12-02"

var benchNow = time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)

// bulkInsert writes rows into table in multi-row inserts.
func bulkInsert(ctx context.Context, tx store.Store, table string, cols []string, rows [][]any) error {
	per := max(1, 8000/len(cols))
	tuple := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ") + ")"
	for from := 0; from < len(rows); from += per {
		chunk := rows[from:min(from+per, len(rows))]
		var q strings.Builder
		q.WriteString("INSERT INTO " + table + " (" + strings.Join(cols, ", ") + ") VALUES ")
		args := make([]any, 0, len(chunk)*len(cols))
		for i, r := range chunk {
			if i > 0 {
				q.WriteString(", ")
			}
			q.WriteString(tuple)
			args = append(args, r...)
		}
		if _, err := tx.SQLTx().ExecContext(ctx, tx.Rebind(q.String()), args...); err != nil {
			return fmt.Errorf("%s: %w", table, err)
		}
	}
	return nil
}

// seedRosterData gives every trainee of the studio 90 days of training data
// up to benchToday, varied by the trainee's position so every triage
// reason occurs somewhere.
func seedRosterData(tb testing.TB, st store.Store, studioID string) {
	tb.Helper()
	ctx := context.Background()
	start := time.Now()
	rows, err := st.DB().QueryContext(ctx, st.Rebind(`SELECT id FROM trainees WHERE studio_id = ? ORDER BY id`), studioID)
	if err != nil {
		tb.Fatal(err)
	}
	var trainees []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			tb.Fatal(err)
		}
		trainees = append(trainees, id)
	}
	rows.Close()
	created := benchNow.AddDate(0, -4, 0).UnixMilli()
	today, _ := time.Parse(time.DateOnly, benchToday)
	day := func(ago int) string { return today.AddDate(0, 0, -ago).Format(time.DateOnly) }
	product, tmpl, form := ids.New(ids.Product), ids.New(ids.ProgramTemplate), ids.New(ids.FormTemplate)
	var subs, programs, forms, sessions, checkins, injuries, goals, weights, tasks, feedback [][]any
	for i, tr := range trainees {
		// Plans end across the next and past weeks for some, months away for most.
		ends := day(-60 - i%30)
		if i%10 == 0 {
			ends = day(10 - i%20) // 10 days ago … 9 days ahead
		}
		subs = append(subs, []any{ids.New(ids.Subscription), studioID, tr, product, day(120), ends, "ILS", "active", created})
		// One in 50 renewed: a plan that starts next week.
		if i%50 == 0 {
			subs = append(subs, []any{ids.New(ids.Subscription), studioID, tr, product, day(-5 - i%7), day(-95), "ILS", "active", created})
		}
		programs = append(programs, []any{ids.New(ids.Program), studioID, tr, tmpl, "Block", day(89), "active", created})
		// A form due in the coming days, past due for one in 10; a task likewise for one in 12.
		forms = append(forms, []any{ids.New(ids.FormAssignment), studioID, tr, form, benchNow.AddDate(0, 0, 9-i%10).UnixMilli(), "pending", created})
		tasks = append(tasks, []any{ids.New(ids.Task), studioID, "Call", tr, benchNow.AddDate(0, 0, 11-i%12).UnixMilli(), 2, "open", "api", created, created})
		// Sessions Monday, Wednesday, Friday; one trainee in 8 stopped 12 days ago.
		stoppedAt := 0
		if i%8 == 0 {
			stoppedAt = 12
		}
		for ago := 89; ago >= -6; ago-- {
			d := today.AddDate(0, 0, -ago)
			if wd := d.Weekday(); wd != time.Monday && wd != time.Wednesday && wd != time.Friday {
				continue
			}
			status := domain.SessionCompleted
			switch {
			case ago < 0 || (ago == 0 && i%2 == 0):
				status = domain.SessionPlanned
			case ago < stoppedAt || (ago+i)%11 == 0:
				status = domain.SessionMissed
			}
			sessions = append(sessions, []any{ids.New(ids.Session), studioID, tr, d.Format(time.DateOnly), "strength", "Full body", status, "program",
				60, 7, "[]", 4500.0, 15, 120, 0, 0.0, created, created})
		}
		// Check-ins 6 days of 7; one trainee in 13 low the last 4 days.
		for ago := 89; ago >= 0; ago-- {
			if (ago+i)%7 == 3 && ago > 3 {
				continue
			}
			ready := 5 + (ago+i)%5
			if i%13 == 0 && ago <= 3 {
				ready = 3
			}
			// One trainee in 15 sore these 3 days (soreness 7, a knee).
			sore, areas := 3, "[]"
			if i%15 == 0 && ago <= 2 {
				sore, areas = 7, `["knee"]`
			}
			checkins = append(checkins, []any{ids.New(ids.CheckIn), studioID, tr, day(ago), ready, sore, areas, created, created})
		}
		if i%17 == 0 {
			injuries = append(injuries, []any{ids.New(ids.Injury), studioID, tr, "knee", "left", 2, "active", day(i % 30), "[]", created, created})
		}
		injuries = append(injuries, []any{ids.New(ids.Injury), studioID, tr, "ankle", "right", 1, "resolved", day(80), "[]", created, created})
		// A goal weight for a third; their weight drifts up, away from it, for one in six of those.
		goalKg := 70.0
		if i%3 == 0 {
			goals = append(goals, []any{ids.New(ids.Goal), studioID, tr, "Reach 70 kg", "measurement", "weightKg", goalKg, "active", created, created, nil})
		}
		// One in 25 reached a goal in the last four weeks.
		if i%25 == 0 {
			done := benchNow.AddDate(0, 0, -(i/25)%28).UnixMilli()
			goals = append(goals, []any{ids.New(ids.Goal), studioID, tr, "10 push-ups", "text", nil, nil, "completed", created, done, done})
		}
		// One in 20 told the studio something in the last 7 days.
		if i%20 == 0 {
			at := benchNow.Add(-time.Duration(i%160) * time.Hour).UnixMilli()
			feedback = append(feedback, []any{ids.New(ids.Feedback), studioID, tr, "The Wednesday class is crowded", 1 + i%5, "schedule", "trainee", at})
		}
		for ago := 89; ago >= 0; ago -= 3 {
			kg := 78 - float64(89-ago)*0.02 + float64((ago*7+i)%5)*0.1
			if i%18 == 0 {
				kg = 76 + float64(89-ago)*0.05
			}
			at := today.AddDate(0, 0, -ago).Add(6 * time.Hour).UnixMilli()
			weights = append(weights, []any{ids.New(ids.Weight), studioID, tr, kg, at, at})
		}
	}
	err = st.InTx(ctx, func(tx store.Store) error {
		for _, stmt := range []string{
			`INSERT INTO products (id, studio_id, name, currency, active, created_at) VALUES (?, ?, 'Monthly', 'ILS', ` + boolSQL(st, true) + `, ?)`,
			`INSERT INTO program_templates (id, studio_id, name, created_at) VALUES (?, ?, 'Block', ?)`,
			`INSERT INTO form_templates (id, studio_id, name, fields, created_at) VALUES (?, ?, 'Weekly', '[]', ?)`,
		} {
			id := product
			if strings.Contains(stmt, "program_templates") {
				id = tmpl
			} else if strings.Contains(stmt, "form_templates") {
				id = form
			}
			if _, err := tx.SQLTx().ExecContext(ctx, tx.Rebind(stmt), id, studioID, created); err != nil {
				return err
			}
		}
		for _, t := range []struct {
			table string
			cols  string
			rows  [][]any
		}{
			{"subscriptions", "id, studio_id, trainee_id, product_id, started_on, ends_on, currency, state, created_at", subs},
			{"programs", "id, studio_id, trainee_id, template_id, name, starts_on, status, created_at", programs},
			{"form_assignments", "id, studio_id, trainee_id, form_template_id, due_at, status, created_at", forms},
			{"tasks", "id, studio_id, title, client_id, due_at, priority, status, source, created_at, updated_at", tasks},
			{"sessions", "id, studio_id, trainee_id, date, sport, title, status, source, duration_min, rpe, exercises, volume_kg, sets, reps, seconds, metres, created_at, updated_at", sessions},
			{"checkins", "id, studio_id, trainee_id, day, readiness, soreness, sore_areas, created_at, updated_at", checkins},
			{"injuries", "id, studio_id, trainee_id, area, side, severity, status, onset_on, affected_exercises, created_at, updated_at", injuries},
			{"goals", "id, studio_id, trainee_id, title, kind, measure, target_value, status, created_at, updated_at, completed_at", goals},
			{"trainee_feedback", "id, studio_id, trainee_id, text, rating, topic, source, created_at", feedback},
			{"weights", "id, studio_id, trainee_id, weight_kg, recorded_at, created_at", weights},
		} {
			if err := bulkInsert(ctx, tx, t.table, strings.Split(t.cols, ", "), t.rows); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	// Trainees joined four months ago, one in 40 in the last four weeks.
	err = st.InTx(ctx, func(tx store.Store) error {
		joined := tx.Rebind(`UPDATE trainees SET created_at = ? WHERE studio_id = ? AND id = ?`)
		for i, tr := range trainees {
			at := created
			if i%40 == 0 {
				at = benchNow.AddDate(0, 0, -(i/40)%28).UnixMilli()
			}
			if _, err := tx.SQLTx().ExecContext(ctx, joined, at, studioID, tr); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	if st.Engine() == store.EnginePostgres {
		for _, table := range []string{"subscriptions", "programs", "form_assignments", "tasks", "sessions", "checkins", "injuries", "goals", "weights", "trainee_coaches", "trainees", "trainee_feedback"} {
			if _, err := st.DB().ExecContext(ctx, "VACUUM ANALYZE "+table); err != nil {
				tb.Fatal(err)
			}
		}
	}
	tb.Logf("seeded %d sessions, %d check-ins, %d weigh-ins on %s in %v", len(sessions), len(checkins), len(weights), st.Engine(), time.Since(start).Round(time.Millisecond))
}

func boolSQL(st store.Store, v bool) string {
	if st.Engine() == store.EnginePostgres {
		if v {
			return "true"
		}
		return "false"
	}
	if v {
		return "1"
	}
	return "0"
}
