package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/otherwise/perform/internal/domain"
)

// The roster triage's facts. Each fact group is one query over the whole
// studio, grouped by trainee and merged here, so a roster of 5,000 costs
// the same eleven queries as a roster of 5. Facts of trainees not in the
// roster asked (not active, another coach's) are dropped in the merge.

// rosterReadinessDays is how far back readiness is read: a run of three
// low days the triage reads ends today or yesterday, so it lies within
// today and the 3 days before.
const rosterReadinessDays = 3

// rosterWeightWindow is how far back weigh-ins are read: 28 local days
// and a day to spare for the zone.
const rosterWeightWindow = 29 * 24 * time.Hour

// weightGoals selects the trainees' active goals on body weight.
const weightGoals = `FROM goals g WHERE g.studio_id = ? AND g.status = 'active' AND g.kind = 'measurement'
	AND g.measure = 'weightKg' AND g.target_value IS NOT NULL`

func (s *studioStore) RosterFacts(ctx context.Context, q RosterQuery) ([]domain.RosterFacts, error) {
	roster := `FROM trainees t WHERE t.studio_id = ? AND t.status = 'active'`
	rosterArgs := []any{s.studioID}
	if q.CoachID != "" {
		roster += ` AND t.id IN (SELECT tc.trainee_id FROM trainee_coaches tc WHERE tc.studio_id = ? AND tc.coach_id = ?)`
		rosterArgs = append(rosterArgs, s.studioID, q.CoachID)
	}
	out := []domain.RosterFacts{}
	byID := map[string]*domain.RosterFacts{}
	// each runs one fact query and hands every row to fn with the facts
	// of its trainee (rows of trainees outside the roster are skipped).
	each := func(query string, args []any, fn func(f *domain.RosterFacts) error, dest func() []any) error {
		rows, err := s.query(ctx, query, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		var id string
		for rows.Next() {
			if err := rows.Scan(append([]any{&id}, dest()...)...); err != nil {
				return err
			}
			if f := byID[id]; f != nil {
				if err := fn(f); err != nil {
					return err
				}
			}
		}
		return rows.Err()
	}

	// The roster, by name.
	rows, err := s.query(ctx, `SELECT t.id, t.first_name, t.last_name `+roster+` ORDER BY t.last_name, t.first_name, t.id`, rosterArgs...)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var f domain.RosterFacts
		if err := rows.Scan(&f.TraineeID, &f.FirstName, &f.LastName); err != nil {
			rows.Close()
			return nil, err
		}
		f.CoachIDs, f.Readiness, f.ActiveInjuries, f.Weights = []string{}, []domain.DayValue{}, []domain.Injury{}, []domain.Weight{}
		out = append(out, f)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return out, nil
	}
	for i := range out {
		byID[out[i].TraineeID] = &out[i]
	}

	var (
		str    string
		n      int
		null   sql.NullString
		nullF  sql.NullFloat64
		day    string
		value  float64
		inj    domain.Injury
		weight domain.Weight
		rec    int64
		cre    int64
	)
	steps := []func() error{
		// Coaches.
		func() error {
			return each(`SELECT trainee_id, coach_id FROM trainee_coaches WHERE studio_id = ? ORDER BY trainee_id, coach_id`, []any{s.studioID},
				func(f *domain.RosterFacts) error { f.CoachIDs = append(f.CoachIDs, str); return nil },
				func() []any { return []any{&str} })
		},
		// Plans: the latest last day of the active subscriptions; one
		// open-ended among them leaves PlanEndsOn nil.
		func() error {
			return each(`SELECT trainee_id, max(ends_on), count(*) - count(ends_on) FROM subscriptions
				WHERE studio_id = ? AND state = 'active' GROUP BY trainee_id`, []any{s.studioID},
				func(f *domain.RosterFacts) error {
					if null.Valid && n == 0 {
						v := null.String
						f.PlanEndsOn = &v
					}
					return nil
				},
				func() []any { return []any{&null, &n} })
		},
		// Forms past due.
		func() error {
			return each(`SELECT trainee_id, count(*) FROM form_assignments
				WHERE studio_id = ? AND status = 'pending' AND due_at < ? GROUP BY trainee_id`, []any{s.studioID, ms(q.Now)},
				func(f *domain.RosterFacts) error { f.FormsPastDue = n; return nil },
				func() []any { return []any{&n} })
		},
		// Active programs.
		func() error {
			return each(`SELECT DISTINCT trainee_id FROM programs WHERE studio_id = ? AND status = 'active'`, []any{s.studioID},
				func(f *domain.RosterFacts) error { f.ActiveProgram = true; return nil },
				func() []any { return nil })
		},
		// Sessions: the latest completed (one index seek a trainee) and
		// this week's missed, Monday to yesterday.
		func() error {
			args := append([]any{q.WeekStart, q.Today}, rosterArgs...)
			return each(`SELECT t.id,
					(SELECT max(s.date) FROM sessions s WHERE s.studio_id = t.studio_id AND s.trainee_id = t.id AND s.status = 'completed'),
					(SELECT count(*) FROM sessions s WHERE s.studio_id = t.studio_id AND s.trainee_id = t.id
						AND s.date >= ? AND s.date < ? AND s.status IN ('missed', 'planned'))
				`+roster, args,
				func(f *domain.RosterFacts) error {
					if null.Valid {
						v := null.String
						f.LastCompletedOn = &v
					}
					f.MissedThisWeek = n
					return nil
				},
				func() []any { return []any{&null, &n} })
		},
		// Readiness of the last days, newest first, at most 3.
		func() error {
			from := addDays(q.Today, -rosterReadinessDays)
			return each(`SELECT trainee_id, day, readiness FROM checkins
				WHERE studio_id = ? AND day >= ? AND day <= ? AND readiness IS NOT NULL
				ORDER BY trainee_id, day DESC`, []any{s.studioID, from, q.Today},
				func(f *domain.RosterFacts) error {
					if len(f.Readiness) < 3 {
						f.Readiness = append(f.Readiness, domain.DayValue{Day: day, Value: value})
					}
					return nil
				},
				func() []any { return []any{&day, &value} })
		},
		// Active injuries, newest onset first.
		func() error {
			return each(`SELECT trainee_id, id, area, side, severity, status, onset_on FROM injuries
				WHERE studio_id = ? AND status = 'active' ORDER BY trainee_id, onset_on DESC, id`, []any{s.studioID},
				func(f *domain.RosterFacts) error {
					i := inj
					i.TraineeID, i.AffectedExercises = f.TraineeID, []string{}
					f.ActiveInjuries = append(f.ActiveInjuries, i)
					return nil
				},
				func() []any { return []any{&inj.ID, &inj.Area, &inj.Side, &inj.Severity, &inj.Status, &inj.OnsetOn} })
		},
		// The goal weight: the newest active goal on weightKg.
		func() error {
			return each(`SELECT g.trainee_id, g.target_value `+weightGoals+` ORDER BY g.trainee_id, g.created_at, g.id`, []any{s.studioID},
				func(f *domain.RosterFacts) error {
					if nullF.Valid {
						v := nullF.Float64
						f.WeightGoalKg = &v
					}
					return nil
				},
				func() []any { return []any{&nullF} })
		},
		// Weigh-ins of the last 28 days, only of trainees with a goal weight.
		func() error {
			return each(`SELECT w.trainee_id, w.id, w.weight_kg, w.recorded_at, w.created_at FROM weights w
				WHERE w.studio_id = ? AND w.recorded_at >= ? AND w.recorded_at <= ?
				AND w.trainee_id IN (SELECT g.trainee_id `+weightGoals+`)
				ORDER BY w.trainee_id, w.recorded_at, w.id`, []any{s.studioID, ms(q.Now.Add(-rosterWeightWindow)), ms(q.Now), s.studioID},
				func(f *domain.RosterFacts) error {
					w := weight
					w.TraineeID, w.RecordedAt, w.CreatedAt = f.TraineeID, fromMS(rec), fromMS(cre)
					f.Weights = append(f.Weights, w)
					return nil
				},
				func() []any { return []any{&weight.ID, &weight.WeightKg, &rec, &cre} })
		},
		// Overdue tasks: open, about the trainee, due before now.
		func() error {
			return each(`SELECT client_id, count(*) FROM tasks
				WHERE studio_id = ? AND status = 'open' AND client_id IS NOT NULL AND due_at < ? GROUP BY client_id`, []any{s.studioID, ms(q.Now)},
				func(f *domain.RosterFacts) error { f.OverdueTasks = n; return nil },
				func() []any { return []any{&n} })
		},
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// addDays moves a local day "YYYY-MM-DD" by n days ("" when it does not parse).
func addDays(day string, n int) string {
	t, err := time.Parse(time.DateOnly, day)
	if err != nil {
		return ""
	}
	return t.AddDate(0, 0, n).Format(time.DateOnly)
}
