package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/otherwise/perform/internal/domain"
)

// The roster questions, each one query over the studio's trainees: the
// rows are grouped and ordered in SQL, the page cut there, and the total
// counted by the same query (count(*) OVER () runs after GROUP BY and
// before LIMIT), so a page costs the same at 40 trainees and at 5,000.

// questionSQL is one roster question's SQL and how its columns land in a
// row (not RosterQuery, the triage's facts).
// The query reads the trainees asked about as roster t; its first columns
// are the trainee's id, first and last name, then the question's own
// (scan's), then the total.
type questionSQL struct {
	sql  func() string
	args func(q RosterRead) []any
	scan func(r *domain.RosterRow, zone func(int64) string) []any
}

// rosterScope keeps the trainees a question is asked of: the studio's
// active ones (every status for new_trainees), one coach's when asked.
func (s *studioStore) rosterScope(q RosterRead) (string, []any) {
	where, args := `t.studio_id = ?`, []any{s.studioID}
	if q.Question != domain.RosterNewTrainees {
		where += ` AND t.status = 'active'`
	}
	if q.CoachID != "" {
		where += ` AND t.id IN (SELECT tc.trainee_id FROM trainee_coaches tc WHERE tc.studio_id = ? AND tc.coach_id = ?)`
		args = append(args, s.studioID, q.CoachID)
	}
	if q.Tag != "" {
		where += ` AND t.id IN (SELECT tt.trainee_id FROM trainee_tags tt JOIN tags g ON g.studio_id = tt.studio_id AND g.id = tt.tag_id WHERE g.studio_id = ? AND g.name = ?)`
		args = append(args, s.studioID, q.Tag)
	}
	return where, args
}

const rosterName = `t.id, t.first_name, t.last_name`
const rosterOrder = `t.last_name, t.first_name, t.id`

var questionSQLs = map[string]questionSQL{
	domain.RosterTrained: {
		sql: func() string {
			return `SELECT ` + rosterName + `, max(s.date), count(*), count(*) OVER ()
				FROM roster t JOIN sessions s ON s.studio_id = t.studio_id AND s.trainee_id = t.id
				WHERE s.status = 'completed' AND s.date >= ? AND s.date <= ?
				GROUP BY t.id, t.first_name, t.last_name ORDER BY count(*) DESC, ` + rosterOrder
		},
		args: func(q RosterRead) []any { return []any{q.From, q.To} },
		scan: func(r *domain.RosterRow, _ func(int64) string) []any {
			return []any{&r.LastSessionOn, &r.Sessions}
		},
	},
	// The longest absent first: no completed session ever, then the
	// oldest last one. Scheduled counts the window's sessions, none of
	// them completed; no status filter, so it reads the trainee's date
	// index alone (a status filter drew SQLite to the studio's date index,
	// a scan of every trainee's week for each trainee).
	domain.RosterNotTrained: {
		sql: func() string {
			return `SELECT * FROM (SELECT ` + rosterName + `,
				(SELECT max(s.date) FROM sessions s WHERE s.studio_id = t.studio_id AND s.trainee_id = t.id
					AND s.status = 'completed' AND s.date < ?) AS last_on,
				(SELECT count(*) FROM sessions s WHERE s.studio_id = t.studio_id AND s.trainee_id = t.id
					AND s.date >= ? AND s.date <= ?) AS scheduled,
				count(*) OVER () AS total
				FROM roster t WHERE NOT EXISTS (SELECT 1 FROM sessions s
					WHERE s.studio_id = t.studio_id AND s.trainee_id = t.id AND s.status = 'completed'
					AND s.date >= ? AND s.date <= ?)) n
				ORDER BY COALESCE(n.last_on, ''), n.last_name, n.first_name, n.id`
		},
		args: func(q RosterRead) []any { return []any{q.From, q.From, q.To, q.From, q.To} },
		scan: func(r *domain.RosterRow, _ func(int64) string) []any {
			return []any{&r.LastSessionOn, &r.Scheduled}
		},
	},
	domain.RosterPlansEnding:   plansQuery("u.ends_on"),
	domain.RosterPlansStarting: plansQuery("u.started_on"),
	domain.RosterLowReadiness: {
		sql: func() string {
			return `SELECT ` + rosterName + `, count(*), min(c.readiness), max(c.day), count(*) OVER ()
				FROM roster t JOIN checkins c ON c.studio_id = t.studio_id AND c.trainee_id = t.id
				WHERE c.day >= ? AND c.day <= ? AND c.readiness <= 4
				GROUP BY t.id, t.first_name, t.last_name ORDER BY min(c.readiness), count(*) DESC, ` + rosterOrder
		},
		args: func(q RosterRead) []any { return []any{q.From, q.To} },
		scan: func(r *domain.RosterRow, _ func(int64) string) []any {
			return []any{&r.Days, &r.LowestReadiness, &r.LatestOn}
		},
	},
	// Sore: soreness 6 or more out of 10 (a mild 4 or 5 with an area named
	// is an ordinary training week, not a coach's question). The areas are
	// those of the latest such check-in.
	domain.RosterSoreness: {
		sql: func() string {
			sore := func(c string) string {
				return c + `.day >= ? AND ` + c + `.day <= ? AND ` + c + `.soreness >= 6`
			}
			return `SELECT ` + rosterName + `, count(*), max(c.soreness), max(c.day),
				(SELECT c2.sore_areas FROM checkins c2 WHERE c2.studio_id = t.studio_id AND c2.trainee_id = t.id
					AND ` + sore("c2") + ` ORDER BY c2.day DESC LIMIT 1),
				count(*) OVER ()
				FROM roster t JOIN checkins c ON c.studio_id = t.studio_id AND c.trainee_id = t.id
				WHERE ` + sore("c") + `
				GROUP BY t.id, t.studio_id, t.first_name, t.last_name ORDER BY max(c.soreness) DESC, count(*) DESC, ` + rosterOrder
		},
		args: func(q RosterRead) []any { return []any{q.From, q.To, q.From, q.To} },
		scan: func(r *domain.RosterRow, _ func(int64) string) []any {
			return []any{&r.Days, &r.HighestSoreness, &r.LatestOn, listColumn(&r.SoreAreas)}
		},
	},
	domain.RosterInjuries: {
		sql: func() string {
			return `SELECT ` + rosterName + `, i.id, i.area, i.side, i.severity, i.status, i.onset_on, i.notes, count(*) OVER ()
				FROM roster t JOIN injuries i ON i.studio_id = t.studio_id AND i.trainee_id = t.id
				WHERE i.status IN ('active', 'recovering')
				ORDER BY i.severity DESC, i.onset_on DESC, ` + rosterOrder + `, i.id`
		},
		args: func(RosterRead) []any { return nil },
		scan: func(r *domain.RosterRow, _ func(int64) string) []any {
			return []any{&r.InjuryID, &r.Area, &r.Side, &r.Severity, &r.Status, &r.OnsetOn, &r.Notes}
		},
	},
	// Joined: the day the trainee started, else the day they were added.
	domain.RosterNewTrainees: {
		sql: func() string {
			return `SELECT ` + rosterName + `, t.status, t.started_on, t.created_at, count(*) OVER ()
				FROM roster t WHERE t.created_at >= ? AND t.created_at < ?
				ORDER BY t.created_at DESC, t.id`
		},
		args: func(q RosterRead) []any { return []any{ms(q.Since), ms(q.Until)} },
		scan: func(r *domain.RosterRow, day func(int64) string) []any {
			return []any{&r.Status, &r.JoinedOn, msDay(day, &r.JoinedOn, false)}
		},
	},
	domain.RosterGoalsReached: {
		sql: func() string {
			return `SELECT ` + rosterName + `, g.id, g.title, g.completed_at, count(*) OVER ()
				FROM roster t JOIN goals g ON g.studio_id = t.studio_id AND g.trainee_id = t.id
				WHERE g.status = 'completed' AND g.completed_at >= ? AND g.completed_at < ?
				ORDER BY g.completed_at DESC, g.id`
		},
		args: func(q RosterRead) []any { return []any{ms(q.Since), ms(q.Until)} },
		scan: func(r *domain.RosterRow, day func(int64) string) []any {
			return []any{&r.GoalID, &r.Goal, msDay(day, &r.On, true)}
		},
	},
	domain.RosterFeedback: {
		sql: func() string {
			return `SELECT ` + rosterName + `, f.id, f.created_at, f.rating, f.topic, f.text, count(*) OVER ()
				FROM roster t JOIN trainee_feedback f ON f.studio_id = t.studio_id AND f.trainee_id = t.id
				WHERE f.created_at >= ? AND f.created_at < ?
				ORDER BY f.created_at DESC, f.id`
		},
		args: func(q RosterRead) []any { return []any{ms(q.Since), ms(q.Until)} },
		scan: func(r *domain.RosterRow, day func(int64) string) []any {
			return []any{&r.FeedbackID, msDay(day, &r.On, true), &r.Rating, &r.Topic, &r.Text}
		},
	},
}

// plansQuery answers the active plans whose day column falls in the
// window, soonest first, each with its product's name and whether another
// active plan of the trainee runs past its end (renewed).
func plansQuery(column string) questionSQL {
	return questionSQL{
		sql: func() string {
			return `SELECT ` + rosterName + `, u.id, p.name, u.started_on, u.ends_on,
				u.ends_on IS NOT NULL AND EXISTS (SELECT 1 FROM subscriptions v WHERE v.studio_id = u.studio_id
					AND v.trainee_id = u.trainee_id AND v.state = 'active' AND v.id <> u.id
					AND (v.ends_on IS NULL OR v.ends_on > u.ends_on)),
				count(*) OVER ()
				FROM roster t JOIN subscriptions u ON u.studio_id = t.studio_id AND u.trainee_id = t.id
				JOIN products p ON p.studio_id = u.studio_id AND p.id = u.product_id
				WHERE u.state = 'active' AND ` + column + ` >= ? AND ` + column + ` <= ?
				ORDER BY ` + column + `, ` + rosterOrder + `, u.id`
		},
		args: func(q RosterRead) []any { return []any{q.From, q.To} },
		scan: func(r *domain.RosterRow, _ func(int64) string) []any {
			return []any{&r.SubscriptionID, &r.Plan, &r.StartsOn, &r.EndsOn, boolScan(&r.Renewed)}
		},
	}
}

func (s *studioStore) ReadRoster(ctx context.Context, q RosterRead) (List[domain.RosterRow], error) {
	rq, ok := questionSQLs[q.Question]
	if !ok {
		return List[domain.RosterRow]{}, fmt.Errorf("store: roster question %q", q.Question)
	}
	zone := q.Zone
	if zone == nil {
		zone = time.UTC
	}
	day := func(at int64) string { return fromMS(at).In(zone).Format("2006-01-02") }
	// The trainees asked about come first, as a common table expression,
	// so the question's own placeholders follow the scope's wherever they
	// stand in its text.
	scope, args := s.rosterScope(q)
	query := `WITH roster AS (SELECT * FROM trainees t WHERE ` + scope + `) ` + rq.sql()
	args = append(args, rq.args(q)...)
	rows, err := s.query(ctx, query+` LIMIT ? OFFSET ?`, append(args, q.Page.Limit, q.Page.Offset)...)
	if err != nil {
		return List[domain.RosterRow]{}, err
	}
	defer rows.Close()
	out := List[domain.RosterRow]{Items: []domain.RosterRow{}}
	for rows.Next() {
		var r domain.RosterRow
		var first, last string
		dest := append([]any{&r.TraineeID, &first, &last}, rq.scan(&r, day)...)
		if err := rows.Scan(append(dest, &out.Total)...); err != nil {
			return List[domain.RosterRow]{}, err
		}
		r.Name = first + " " + last
		out.Items = append(out.Items, r)
	}
	if err := rows.Err(); err != nil {
		return List[domain.RosterRow]{}, err
	}
	if len(out.Items) == 0 && q.Page.Offset > 0 {
		// A page past the end still answers the total.
		out.Total, err = s.countRoster(ctx, query, args)
	}
	return out, err
}

// countRoster counts a question's rows when the page asked holds none.
func (s *studioStore) countRoster(ctx context.Context, query string, args []any) (int, error) {
	var n int
	err := s.queryRow(ctx, `SELECT count(*) FROM (`+query+`) r`, args...).Scan(&n)
	return n, err
}

func (s *studioStore) RosterSize(ctx context.Context, coachID, tag string) (int, error) {
	scope, args := s.rosterScope(RosterRead{CoachID: coachID, Tag: tag})
	var n int
	err := s.queryRow(ctx, `SELECT count(*) FROM trainees t WHERE `+scope, args...).Scan(&n)
	return n, err
}

// scanFunc adapts a function to sql.Scanner.
type scanFunc func(src any) error

func (f scanFunc) Scan(src any) error { return f(src) }

// listColumn scans a JSON list column (NULL: left empty).
func listColumn(dst *[]string) sql.Scanner {
	return scanFunc(func(src any) error {
		switch v := src.(type) {
		case nil:
			return nil
		case string:
			return readList(v, dst)
		case []byte:
			return readList(string(v), dst)
		}
		return fmt.Errorf("store: a list column of %T", src)
	})
}

// boolScan scans a boolean expression: an integer on SQLite, a boolean on
// Postgres.
func boolScan(dst **bool) sql.Scanner {
	return scanFunc(func(src any) error {
		v := src == true || src == int64(1)
		*dst = &v
		return nil
	})
}

// msDay scans an instant in milliseconds into a local day; replace says
// whether a day already there is replaced.
func msDay(day func(int64) string, dst **string, replace bool) sql.Scanner {
	return scanFunc(func(src any) error {
		at, ok := src.(int64)
		if !ok || (*dst != nil && !replace) {
			return nil
		}
		d := day(at)
		*dst = &d
		return nil
	})
}
