package storetest

import (
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
)

// The trainee's latest completed session is kept on the trainee's row by
// the sessions' triggers (migration 0690), and the roster triage reads it
// from there. A random series of session writes, through the store and in
// plain SQL, one statement or many rows at a time, committed or rolled
// back; after each one the kept date must be what the sessions say.
func testLastCompleted(t *testing.T, st store.Store) {
	studio := newStudio(t, st)
	ss := st.Studio(studio.ID)
	trainees := []domain.Trainee{newTrainee(t, ss, "Last", "One"), newTrainee(t, ss, "Last", "Two"), newTrainee(t, ss, "Last", "Three")}
	seed := time.Now().UnixNano()
	rng := rand.New(rand.NewPCG(uint64(seed), 7))
	t.Logf("seed %d", seed)

	statuses := []string{domain.SessionCompleted, domain.SessionCompleted, domain.SessionPlanned, domain.SessionMissed, domain.SessionSkipped}
	day := func() string {
		return time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, rng.IntN(60)).Format(time.DateOnly)
	}
	minutes := 0
	newSession := func() *domain.Session {
		minutes++ // a duration of its own: no two are the same logged workout
		x := workout(trainees[rng.IntN(len(trainees))].ID, day(), "strength", minutes, statuses[rng.IntN(len(statuses))])
		if x.Status == domain.SessionCompleted {
			// Logged, so it may be withdrawn: completed as it was created.
			at := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC).Add(time.Duration(minutes) * time.Second)
			x.CreatedAt, x.CompletedAt = at, &at
		}
		return x
	}
	// pick is one of the studio's sessions still there, at random.
	pick := func() string {
		t.Helper()
		rows, err := st.DB().QueryContext(ctx, st.Rebind(`SELECT id FROM sessions WHERE studio_id = ? ORDER BY id`), studio.ID)
		must(t, "sessions", err)
		defer rows.Close()
		var ids []string
		for rows.Next() {
			var id string
			must(t, "scan", rows.Scan(&id))
			ids = append(ids, id)
		}
		if len(ids) == 0 {
			return ""
		}
		return ids[rng.IntN(len(ids))]
	}
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := st.DB().ExecContext(ctx, st.Rebind(q), args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	check := func(step int, what string) {
		t.Helper()
		rows, err := st.DB().QueryContext(ctx, st.Rebind(`SELECT t.id, t.last_completed_on, (SELECT max(s.date) FROM sessions s
			WHERE s.studio_id = t.studio_id AND s.trainee_id = t.id AND s.status = 'completed') FROM trainees t WHERE t.studio_id = ?`), studio.ID)
		must(t, "read back", err)
		defer rows.Close()
		for rows.Next() {
			var id string
			var kept, want *string
			must(t, "scan", rows.Scan(&id, &kept, &want))
			if deref(kept) != deref(want) {
				t.Fatalf("step %d (%s): trainee %s keeps %q, its latest completed session is of %q", step, what, id, deref(kept), deref(want))
			}
		}
		must(t, "rows", rows.Err())
		facts, err := ss.RosterFacts(ctx, rosterQuery)
		must(t, "RosterFacts", err)
		for _, f := range facts {
			var want *string
			must(t, "latest", st.DB().QueryRowContext(ctx, st.Rebind(`SELECT max(date) FROM sessions WHERE studio_id = ? AND trainee_id = ? AND status = 'completed'`),
				studio.ID, f.TraineeID).Scan(&want))
			if deref(f.LastCompletedOn) != deref(want) {
				t.Fatalf("step %d (%s): RosterFacts says %s last completed %q, want %q", step, what, f.TraineeID, deref(f.LastCompletedOn), deref(want))
			}
		}
	}

	for step := range 80 {
		var what string
		switch op := rng.IntN(8); {
		case op <= 1 || pick() == "":
			what = "create"
			batch := []*domain.Session{newSession(), newSession(), newSession()}[:1+rng.IntN(3)]
			must(t, "CreateSessions", ss.CreateSessions(ctx, batch))
		case op == 2:
			what = "update status and date"
			x, err := ss.GetSession(ctx, pick())
			must(t, "GetSession", err)
			x.Status, x.Date = statuses[rng.IntN(len(statuses))], day()
			if rng.IntN(2) == 0 {
				x.Notes = ptr("moved") // the rest of the row changes too, or not
			}
			must(t, "UpdateSession", ss.UpdateSession(ctx, &x))
		case op == 3:
			what = "withdraw"
			id := pick()
			if err := ss.WithdrawRecord(ctx, "", id, domain.LoggedByCoach, time.Time{}); err != nil && !errors.Is(err, store.ErrNotFound) {
				t.Fatal(err)
			}
			x, err := ss.GetSession(ctx, id)
			if err == nil {
				// Not a logged session: withdrawn as its author would.
				if err := ss.WithdrawRecord(ctx, x.TraineeID, id, x.Source, time.Time{}); err != nil && !errors.Is(err, store.ErrNotFound) {
					t.Fatal(err)
				}
			}
		case op == 4:
			what = "delete"
			exec(`DELETE FROM sessions WHERE studio_id = ? AND id = ?`, studio.ID, pick())
		case op == 5:
			what = "move to another trainee"
			exec(`UPDATE sessions SET trainee_id = ? WHERE studio_id = ? AND id = ?`, trainees[rng.IntN(len(trainees))].ID, studio.ID, pick())
		case op == 6:
			what = "many rows at once"
			tr, from := trainees[rng.IntN(len(trainees))].ID, day()
			if rng.IntN(2) == 0 {
				exec(`UPDATE sessions SET status = ? WHERE studio_id = ? AND trainee_id = ? AND date >= ?`, statuses[rng.IntN(len(statuses))], studio.ID, tr, from)
			} else {
				exec(`DELETE FROM sessions WHERE studio_id = ? AND trainee_id = ? AND date >= ? AND status <> 'completed'`, studio.ID, tr, from)
			}
		default:
			what = "rolled back"
			rollback := errors.New("rolled back")
			err := st.InTx(ctx, func(tx store.Store) error {
				x := newSession()
				x.Date = "2026-12-31" // later than any: moves its trainee's date
				if x.Status != domain.SessionCompleted {
					x.Status = domain.SessionCompleted
					x.CompletedAt = ptr(time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC))
				}
				if err := tx.Studio(studio.ID).CreateSessions(ctx, []*domain.Session{x}); err != nil {
					return err
				}
				return rollback
			})
			if !errors.Is(err, rollback) {
				t.Fatalf("InTx = %v", err)
			}
		}
		check(step, what)
	}

	// A trainee deleted takes its sessions along; the others keep theirs.
	must(t, "DeleteTrainee", ss.DeleteTrainee(ctx, trainees[0].ID))
	check(80, "trainee deleted")
}

func deref(s *string) string {
	if s == nil {
		return "<none>"
	}
	return *s
}
