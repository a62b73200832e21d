package store

import (
	"context"
	"database/sql"
	"slices"
	"strings"
	"time"

	"github.com/otherwise/perform/internal/domain"
)

// The roster triage's facts in ten queries whatever the roster's size:
// the roster itself with the facts that are one value a trainee (plan end,
// active program, latest completed session: one index seek each), then one
// studio-wide query per fact group that has rows (coaches, forms, this
// week's sessions, readiness, injuries, goal weights, weigh-ins,
// feedback, tasks),
// grouped by trainee and merged here. Rows of trainees outside the roster
// asked (not active, another coach's) are dropped in the merge.

// rosterReadinessDays is how far back readiness is read: a run of three
// low days the triage reads ends today or yesterday, so it lies within
// today and the 3 days before.
const rosterReadinessDays = 3

// rosterWeightWindow is how far back weigh-ins are read: 28 local days
// and a day to spare for the zone.
const rosterWeightWindow = 29 * 24 * time.Hour

// rosterFeedbackWindow is how far back feedback counts in the triage.
const rosterFeedbackWindow = 7 * 24 * time.Hour

// weightGoals selects the trainees' active goals on body weight.
const weightGoals = `FROM goals g WHERE g.studio_id = ? AND g.status = 'active' AND g.kind = 'measurement'
	AND g.measure = 'weightKg' AND g.target_value IS NOT NULL`

func (s *studioStore) RosterFacts(ctx context.Context, q RosterQuery) ([]domain.RosterFacts, error) {
	where := `t.studio_id = ? AND t.status = 'active'`
	args := []any{s.studioID}
	if q.CoachID != "" {
		where += ` AND t.id IN (SELECT tc.trainee_id FROM trainee_coaches tc WHERE tc.studio_id = ? AND tc.coach_id = ?)`
		args = append(args, s.studioID, q.CoachID)
	}
	// The plan's end is the latest end among active subscriptions, none
	// when one of them is open-ended (count(ends_on) skips nulls).
	rows, err := s.query(ctx, `SELECT t.id, t.first_name, t.last_name,
		(SELECT CASE WHEN count(*) = count(u.ends_on) THEN max(u.ends_on) END FROM subscriptions u
			WHERE u.studio_id = t.studio_id AND u.trainee_id = t.id AND u.state = 'active'),
		EXISTS (SELECT 1 FROM programs p WHERE p.studio_id = t.studio_id AND p.trainee_id = t.id AND p.status = 'active'),
		(SELECT s.date FROM sessions s WHERE s.studio_id = t.studio_id AND s.trainee_id = t.id AND s.status = 'completed'
			ORDER BY s.date DESC LIMIT 1)
		FROM trainees t WHERE `+where+` ORDER BY t.last_name, t.first_name, t.id`, args...)
	if err != nil {
		return nil, err
	}
	out := []domain.RosterFacts{}
	for rows.Next() {
		var f domain.RosterFacts
		var ends, last sql.Null[string]
		var program any // an integer on SQLite, a boolean on Postgres
		if err := rows.Scan(&f.TraineeID, &f.FirstName, &f.LastName, &ends, &program, &last); err != nil {
			rows.Close()
			return nil, err
		}
		f.PlanEndsOn, f.LastCompletedOn = valueOrNil(ends), valueOrNil(last)
		f.ActiveProgram = program == true || program == int64(1)
		f.CoachIDs, f.Readiness, f.ActiveInjuries, f.Weights, f.Feedback = []string{}, []domain.DayValue{}, []domain.Injury{}, []domain.Weight{}, []domain.Feedback{}
		out = append(out, f)
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(out) == 0 {
		return out, err
	}
	byID := make(map[string]*domain.RosterFacts, len(out))
	for i := range out {
		byID[out[i].TraineeID] = &out[i]
	}

	// each runs one fact query whose first column is the trainee's id,
	// scanning the rest into dest and handing each row of a trainee in the
	// roster to fn.
	var id string
	each := func(query string, qargs []any, dest []any, fn func(f *domain.RosterFacts)) error {
		rows, err := s.query(ctx, query, qargs...)
		if err != nil {
			return err
		}
		defer rows.Close()
		dest = append([]any{&id}, dest...)
		for rows.Next() {
			if err := rows.Scan(dest...); err != nil {
				return err
			}
			if f := byID[id]; f != nil {
				fn(f)
			}
		}
		return rows.Err()
	}
	var (
		str   string
		n     int
		value float64
		inj   domain.Injury
		at    int64
	)
	readinessFrom := addDays(q.Today, -rosterReadinessDays)
	err = runSteps(
		func() error {
			return each(`SELECT trainee_id, coach_id FROM trainee_coaches WHERE studio_id = ? ORDER BY trainee_id, coach_id`,
				[]any{s.studioID}, []any{&str}, func(f *domain.RosterFacts) { f.CoachIDs = append(f.CoachIDs, str) })
		},
		func() error {
			return each(`SELECT trainee_id, count(*) FROM form_assignments
				WHERE studio_id = ? AND status = 'pending' AND due_at < ? GROUP BY trainee_id`,
				[]any{s.studioID, ms(q.Now)}, []any{&n}, func(f *domain.RosterFacts) { f.FormsPastDue = n })
		},
		// This week's missed sessions, Monday to yesterday: missed or still planned.
		func() error {
			return each(`SELECT trainee_id, count(*) FROM sessions
				WHERE studio_id = ? AND date >= ? AND date < ? AND status IN ('missed', 'planned') GROUP BY trainee_id`,
				[]any{s.studioID, q.WeekStart, q.Today}, []any{&n}, func(f *domain.RosterFacts) { f.MissedThisWeek = n })
		},
		// Readiness of the last 4 days, only of trainees with 3 low days
		// among them: no one else can have a run (the inner count reads
		// the index alone).
		func() error {
			return each(`SELECT trainee_id, day, readiness FROM checkins
				WHERE studio_id = ? AND day >= ? AND day <= ? AND readiness IS NOT NULL AND trainee_id IN (
					SELECT c.trainee_id FROM checkins c WHERE c.studio_id = ? AND c.day >= ? AND c.day <= ? AND c.readiness <= 4
					GROUP BY c.trainee_id HAVING count(*) >= 3)`,
				[]any{s.studioID, readinessFrom, q.Today, s.studioID, readinessFrom, q.Today}, []any{&str, &value},
				func(f *domain.RosterFacts) {
					f.Readiness = append(f.Readiness, domain.DayValue{Day: str, Value: value})
				})
		},
		func() error {
			return each(`SELECT trainee_id, id, area, side, severity, status, onset_on FROM injuries
				WHERE studio_id = ? AND status = 'active' ORDER BY trainee_id, onset_on DESC, id`,
				[]any{s.studioID}, []any{&inj.ID, &inj.Area, &inj.Side, &inj.Severity, &inj.Status, &inj.OnsetOn},
				func(f *domain.RosterFacts) {
					i := inj
					i.TraineeID, i.AffectedExercises = f.TraineeID, []string{}
					f.ActiveInjuries = append(f.ActiveInjuries, i)
				})
		},
		// The goal weight: the newest active goal on weightKg (rows come oldest first).
		func() error {
			return each(`SELECT g.trainee_id, g.target_value `+weightGoals+` ORDER BY g.trainee_id, g.created_at, g.id`,
				[]any{s.studioID}, []any{&value}, func(f *domain.RosterFacts) { v := value; f.WeightGoalKg = &v })
		},
		// Weigh-ins of the last 28 days, only of trainees with a goal weight.
		func() error {
			return each(`SELECT w.trainee_id, w.weight_kg, w.recorded_at FROM weights w
				WHERE w.studio_id = ? AND w.recorded_at >= ? AND w.recorded_at <= ?
				AND w.trainee_id IN (SELECT g.trainee_id `+weightGoals+`)
				ORDER BY w.trainee_id, w.recorded_at`,
				[]any{s.studioID, ms(q.Now.Add(-rosterWeightWindow)), ms(q.Now), s.studioID}, []any{&value, &at},
				func(f *domain.RosterFacts) {
					f.Weights = append(f.Weights, domain.Weight{TraineeID: f.TraineeID, WeightKg: value, RecordedAt: fromMS(at)})
				})
		},
		// Feedback of the last 7 days, newest first.
		func() error {
			var fb domain.Feedback
			return each(`SELECT trainee_id, id, text, rating, topic, created_at FROM trainee_feedback
				WHERE studio_id = ? AND created_at >= ? AND created_at <= ? ORDER BY trainee_id, created_at DESC, id`,
				[]any{s.studioID, ms(q.Now.Add(-rosterFeedbackWindow)), ms(q.Now)}, []any{&fb.ID, &fb.Text, &fb.Rating, &fb.Topic, &at},
				func(f *domain.RosterFacts) {
					v := fb
					v.TraineeID, v.CreatedAt = f.TraineeID, fromMS(at)
					f.Feedback = append(f.Feedback, v)
				})
		},
		// Overdue tasks: open, about the trainee, due before now.
		func() error {
			return each(`SELECT client_id, count(*) FROM tasks
				WHERE studio_id = ? AND status = 'open' AND client_id IS NOT NULL AND due_at < ? GROUP BY client_id`,
				[]any{s.studioID, ms(q.Now)}, []any{&n}, func(f *domain.RosterFacts) { f.OverdueTasks = n })
		},
	)
	if err != nil {
		return nil, err
	}
	for i := range out {
		r := out[i].Readiness
		slices.SortFunc(r, func(a, b domain.DayValue) int { return strings.Compare(b.Day, a.Day) })
		out[i].Readiness = r[:min(len(r), 3)]
	}
	return out, nil
}

// runSteps runs steps in order, stopping at the first error.
func runSteps(steps ...func() error) error {
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// addDays moves a local day "YYYY-MM-DD" by n days ("" when it does not parse).
func addDays(day string, n int) string {
	t, err := time.Parse(time.DateOnly, day)
	if err != nil {
		return ""
	}
	return t.AddDate(0, 0, n).Format(time.DateOnly)
}
