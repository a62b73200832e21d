package store

import (
	"context"
	"database/sql"
	"slices"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/otherwise/perform/internal/domain"
)

// The roster triage's facts in twelve queries whatever the roster's
// size: the roster itself with each trainee's latest completed session,
// then one studio-wide query per fact (plan ends, active programs,
// coaches, forms, this week's sessions, readiness, injuries, goal
// weights, weigh-ins, feedback, tasks), grouped by trainee and merged
// here, a few at once. Rows of trainees outside the roster asked (not
// active, another coach's) are dropped in the merge.

// rosterReadinessDays is how far back readiness is read: a run of three
// low days the triage reads ends today or yesterday, so it lies within
// today and the 3 days before.
const rosterReadinessDays = 3

// weekStarts are the instants the four weeks of weigh-ins begin: the
// local midnights of today−27, −20, −13 and −6 in the studio's zone.
func weekStarts(q RosterQuery) [4]time.Time {
	zone := q.Zone
	if zone == nil {
		zone = time.UTC
	}
	var out [4]time.Time
	for i := range out {
		out[i], _ = time.ParseInLocation(time.DateOnly, addDays(q.Today, -27+7*i), zone)
	}
	return out
}

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
	if q.Tag != "" {
		where += ` AND t.id IN (SELECT tt.trainee_id FROM trainee_tags tt JOIN tags g ON g.studio_id = tt.studio_id AND g.id = tt.tag_id WHERE g.studio_id = ? AND g.name = ?)`
		args = append(args, s.studioID, q.Tag)
	}
	// The latest completed session's date comes with the trainee: the
	// sessions' triggers keep it on the row (migration 0690). The rows are
	// read into a slice of their own and the facts allocated once they are
	// counted: grown by doubling, 5,000 facts of a few hundred bytes each
	// are megabytes cleared and copied again and again, which cost the
	// triage several milliseconds (a count over the rows costs SQLite a
	// sort of them instead).
	rows, err := s.query(ctx, `SELECT t.id, t.first_name, t.last_name, t.last_completed_on FROM trainees t WHERE `+where+`
		ORDER BY t.last_name, t.first_name, t.id`, args...)
	if err != nil {
		return nil, err
	}
	type trainee struct {
		id, first, last string
		lastCompleted   sql.Null[string]
	}
	var roster []trainee
	for rows.Next() {
		var r trainee
		if err := rows.Scan(&r.id, &r.first, &r.last, &r.lastCompleted); err != nil {
			rows.Close()
			return nil, err
		}
		roster = append(roster, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := make([]domain.RosterFacts, len(roster))
	for i, r := range roster {
		out[i] = domain.RosterFacts{TraineeID: r.id, FirstName: r.first, LastName: r.last, LastCompletedOn: valueOrNil(r.lastCompleted),
			CoachIDs: []string{}, Readiness: []domain.DayValue{}, ActiveInjuries: []domain.Injury{}, Feedback: []domain.Feedback{}}
	}
	if len(out) == 0 {
		return out, nil
	}
	byID := make(map[string]*domain.RosterFacts, len(out))
	for i := range out {
		byID[out[i].TraineeID] = &out[i]
	}

	// each runs one fact query whose first column is the trainee's id,
	// scanning the rest into dest and handing each row of a trainee in the
	// roster to fn. Each step has its own variables and writes its own
	// fields, so the steps may run at once.
	each := func(query string, qargs []any, dest []any, fn func(f *domain.RosterFacts)) error {
		rows, err := s.query(ctx, query, qargs...)
		if err != nil {
			return err
		}
		defer rows.Close()
		var id string
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
	readinessFrom := addDays(q.Today, -rosterReadinessDays)
	err = s.runSteps(
		// The plan's end is the latest end among active subscriptions, none
		// when one of them is open-ended. The rows come as they are and are
		// merged here: grouped by trainee, PostgreSQL hashed them (6.6 ms at
		// 5,000 trainees against 1.7) unless its estimates chose the index.
		func() error {
			var ends sql.Null[string]
			open := map[*domain.RosterFacts]bool{}
			return each(`SELECT trainee_id, ends_on FROM subscriptions WHERE studio_id = ? AND state = 'active'`,
				[]any{s.studioID}, []any{&ends}, func(f *domain.RosterFacts) {
					switch {
					case open[f]:
					case !ends.Valid:
						open[f], f.PlanEndsOn = true, nil
					case f.PlanEndsOn == nil || *f.PlanEndsOn < ends.V:
						v := ends.V
						f.PlanEndsOn = &v
					}
				})
		},
		// A trainee with two active programs comes twice, which costs less
		// than DISTINCT (2.4 ms against 1.0 on PostgreSQL).
		func() error {
			return each(`SELECT trainee_id FROM programs WHERE studio_id = ? AND status = 'active'`,
				[]any{s.studioID}, nil, func(f *domain.RosterFacts) { f.ActiveProgram = true })
		},
		func() error {
			var coach string
			return each(`SELECT trainee_id, coach_id FROM trainee_coaches WHERE studio_id = ? ORDER BY trainee_id, coach_id`,
				[]any{s.studioID}, []any{&coach}, func(f *domain.RosterFacts) { f.CoachIDs = append(f.CoachIDs, coach) })
		},
		func() error {
			var n int
			return each(`SELECT trainee_id, count(*) FROM form_assignments
				WHERE studio_id = ? AND status = 'pending' AND due_at < ? GROUP BY trainee_id`,
				[]any{s.studioID, ms(q.Now)}, []any{&n}, func(f *domain.RosterFacts) { f.FormsPastDue = n })
		},
		// This week's missed sessions, from its first day to yesterday: missed or still planned.
		func() error {
			var n int
			return each(`SELECT trainee_id, count(*) FROM sessions
				WHERE studio_id = ? AND date >= ? AND date < ? AND status IN ('missed', 'planned') GROUP BY trainee_id`,
				[]any{s.studioID, q.WeekStart, q.Today}, []any{&n}, func(f *domain.RosterFacts) { f.MissedThisWeek = n })
		},
		// Readiness of the last 4 days, only of trainees with 3 low days
		// among them: no one else can have a run (the inner count reads
		// the index of low check-ins alone, checkins_low).
		func() error {
			var day string
			var value float64
			return each(`SELECT trainee_id, day, readiness FROM checkins
				WHERE studio_id = ? AND day >= ? AND day <= ? AND readiness IS NOT NULL AND trainee_id IN (
					SELECT c.trainee_id FROM checkins c WHERE c.studio_id = ? AND c.day >= ? AND c.day <= ? AND c.readiness <= 4
					GROUP BY c.trainee_id HAVING count(*) >= 3)`,
				[]any{s.studioID, readinessFrom, q.Today, s.studioID, readinessFrom, q.Today}, []any{&day, &value},
				func(f *domain.RosterFacts) {
					f.Readiness = append(f.Readiness, domain.DayValue{Day: day, Value: value})
				})
		},
		func() error {
			var inj domain.Injury
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
			var value float64
			return each(`SELECT g.trainee_id, g.target_value `+weightGoals+` ORDER BY g.trainee_id, g.created_at, g.id`,
				[]any{s.studioID}, []any{&value}, func(f *domain.RosterFacts) { v := value; f.WeightGoalKg = &v })
		},
		// Weigh-ins of the last 28 local days summed by week, only of
		// trainees with a goal weight: one row a trainee, its four weeks'
		// sums and counts side by side (the trainee's index rows come in
		// its order, so no sort; a row a week was a sort and four times
		// the rows).
		func() error {
			var sums [4]sql.Null[float64]
			var counts [4]int
			b := weekStarts(q)
			var cols strings.Builder
			var wargs []any
			for i := range 4 {
				cond := `w.recorded_at >= ?`
				bounds := []any{ms(b[i])}
				if i < 3 {
					cond += ` AND w.recorded_at < ?`
					bounds = append(bounds, ms(b[i+1]))
				}
				cols.WriteString(`, sum(CASE WHEN ` + cond + ` THEN w.weight_kg END), count(CASE WHEN ` + cond + ` THEN 1 END)`)
				wargs = append(append(wargs, bounds...), bounds...)
			}
			query := `SELECT w.trainee_id` + cols.String() + ` FROM weights w
				WHERE w.studio_id = ? AND w.recorded_at >= ? AND w.recorded_at <= ?
				AND w.trainee_id IN (SELECT g.trainee_id ` + weightGoals + `)
				GROUP BY w.trainee_id`
			qargs := append(wargs, s.studioID, ms(b[0]), ms(q.Now), s.studioID)
			if s.engine == EnginePostgres {
				// On PostgreSQL one seek a trainee with a goal weight, by
				// the shape of the query rather than by the planner's
				// guess: given the semi-join it scans every weigh-in of the
				// studio's 28 days whenever the studio is most of the table
				// (31 ms at 5,000 trainees against 16).
				query = `SELECT g.trainee_id, w.* FROM (SELECT DISTINCT g.trainee_id ` + weightGoals + `) g
					CROSS JOIN LATERAL (SELECT ` + cols.String()[2:] + ` FROM weights w
					WHERE w.studio_id = ? AND w.trainee_id = g.trainee_id AND w.recorded_at >= ? AND w.recorded_at <= ?) w`
				qargs = append(append([]any{s.studioID}, wargs...), s.studioID, ms(b[0]), ms(q.Now))
			}
			return each(query, qargs,
				[]any{&sums[0], &counts[0], &sums[1], &counts[1], &sums[2], &counts[2], &sums[3], &counts[3]},
				func(f *domain.RosterFacts) {
					for i := range f.WeightWeeks {
						if counts[i] > 0 {
							f.WeightWeeks[i] = domain.WeekWeight{SumKg: sums[i].V, Count: counts[i]}
						}
					}
				})
		},
		// Feedback of the last 7 days, newest first.
		func() error {
			var fb domain.Feedback
			var at int64
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
			var n int
			return each(`SELECT client_id, count(*) FROM tasks
				WHERE status = 'open' AND studio_id = ? AND client_id IS NOT NULL AND due_at < ? GROUP BY client_id`,
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

// rosterSteps is how many fact queries run at once outside a
// transaction: each holds a pooled connection while it reads.
const rosterSteps = 4

// runSteps runs the fact queries, a few at once on the pool (the roster's
// time is the slowest few, not the sum), one after another inside a
// transaction, whose one connection serves one query at a time; it stops
// at the first error.
func (s *studioStore) runSteps(steps ...func() error) error {
	if s.tx != nil {
		for _, step := range steps {
			if err := step(); err != nil {
				return err
			}
		}
		return nil
	}
	var g errgroup.Group
	g.SetLimit(rosterSteps)
	for _, step := range steps {
		g.Go(step)
	}
	return g.Wait()
}

// addDays moves a local day "YYYY-MM-DD" by n days ("" when it does not parse).
func addDays(day string, n int) string {
	t, err := time.Parse(time.DateOnly, day)
	if err != nil {
		return ""
	}
	return t.AddDate(0, 0, n).Format(time.DateOnly)
}
