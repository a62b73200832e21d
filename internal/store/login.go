package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/otherwise/perform/internal/domain"
)

// LoginStore is the browser sign-in's state (internal/login, tables
// login_* and browser_sessions). It is global, not per studio: the sign-in
// page does not know the studio, and rows are found by hash.
type LoginStore interface {
	// PeopleByPhone lists who may sign in with this E.164 phone, in every
	// studio: active coaches whose phone has this key (coaches.phone_key)
	// and trainees with this phone who are not archived; by studio name,
	// coaches first, then name.
	PeopleByPhone(ctx context.Context, e164 string) ([]LoginPerson, error)
	// StudioRegions lists the distinct regions studios read national
	// phone numbers in.
	StudioRegions(ctx context.Context) ([]string, error)
	// Person is one coach (active) or trainee (not archived) of a studio;
	// ErrNotFound otherwise.
	Person(ctx context.Context, studioID, kind, subjectID string) (LoginPerson, error)

	// PutChallenge writes the browser's pending sign-in, replacing the one
	// it had.
	PutChallenge(ctx context.Context, c LoginChallenge) error
	// Challenge is the browser's pending sign-in; ErrNotFound without one.
	Challenge(ctx context.Context, hash []byte) (LoginChallenge, error)
	// VerifyChallenge records that the code (kept in CodeStore) was right
	// at at.
	VerifyChallenge(ctx context.Context, hash []byte, at time.Time) error
	DeleteChallenge(ctx context.Context, hash []byte) error

	// CreateSession writes a signed-in browser session.
	CreateSession(ctx context.Context, s BrowserSession) error
	// Session is the session with this hash and its person, when it is
	// live at now (before its idle and absolute ends) and its person may
	// still sign in; ErrNotFound otherwise.
	Session(ctx context.Context, hash []byte, now time.Time) (BrowserSession, LoginPerson, error)
	// TouchSession moves the session's idle end: last seen at at, live
	// until expires (never past its absolute end, which the caller keeps).
	TouchSession(ctx context.Context, hash []byte, at, expires time.Time) error
	DeleteSession(ctx context.Context, hash []byte) error

	// Hit counts one event against the named counter in the fixed window
	// ending at windowEnd and returns the window's count, this one
	// included. A counter of an earlier window starts again at 1.
	Hit(ctx context.Context, name string, windowEnd time.Time) (int, error)
	// SweepLogin forgets challenges, sessions and counters that ended
	// before now.
	SweepLogin(ctx context.Context, now time.Time) error
}

// Kinds of LoginPerson.
const (
	LoginCoach   = "coach"
	LoginTrainee = "trainee"
)

// LoginPerson is a coach or trainee record a phone signs in as.
type LoginPerson struct {
	StudioID   string
	StudioName string
	Kind       string // LoginCoach or LoginTrainee
	SubjectID  string // coa_… or trn_…
	Name       string
	Gender     string // female, male, other, or "" when the record has none
}

// LoginChallenge is a browser's pending sign-in. Hash is the SHA-256 of
// the browser's sign-in cookie; its code is in CodeStore.
type LoginChallenge struct {
	Hash       []byte
	Phone      string // E.164
	Next       string
	CreatedAt  time.Time
	ExpiresAt  time.Time
	VerifiedAt *time.Time
}

// BrowserSession is a signed-in browser. Hash is the SHA-256 of its
// cookie. ExpiresAt is the idle end; CreatedAt plus the absolute limit is
// the caller's to enforce when it touches the session.
type BrowserSession struct {
	Hash       []byte
	StudioID   string
	Kind       string
	SubjectID  string
	CreatedAt  time.Time
	LastSeenAt time.Time
	ExpiresAt  time.Time
}

type loginStore struct{ *sqlStore }

func (s *sqlStore) Login() LoginStore { return loginStore{s} }

// The two halves of the people a phone signs in as: the caller appends
// each half's own conditions.
const peopleCoaches = `SELECT c.studio_id, s.name, 'coach', c.id, c.name, 0 AS k, COALESCE(c.gender, '')
	FROM coaches c JOIN studios s ON s.id = c.studio_id
	WHERE c.active = ? `
const peopleTrainees = `SELECT t.studio_id, s.name, 'trainee', t.id, TRIM(t.first_name || ' ' || t.last_name), 1 AS k, COALESCE(t.gender, '')
	FROM trainees t JOIN studios s ON s.id = t.studio_id
	WHERE t.status <> ? `

func scanLoginPerson(row scanner, p *LoginPerson, extra ...any) error {
	var k int
	return row.Scan(append([]any{&p.StudioID, &p.StudioName, &p.Kind, &p.SubjectID, &p.Name, &k, &p.Gender}, extra...)...)
}

func (s loginStore) PeopleByPhone(ctx context.Context, e164 string) ([]LoginPerson, error) {
	return listAll(ctx, s, peopleCoaches+`AND c.phone_key = ?
		UNION ALL `+peopleTrainees+`AND t.phone = ?
		ORDER BY 2, 6, 5, 4`,
		[]any{true, e164, domain.TraineeArchived, e164}, scanLoginPerson)
}

func (s loginStore) StudioRegions(ctx context.Context) ([]string, error) {
	return listAll(ctx, s, `SELECT DISTINCT region FROM studios ORDER BY region`, nil,
		func(row scanner, r *string, _ ...any) error { return row.Scan(r) })
}

func (s loginStore) Person(ctx context.Context, studioID, kind, subjectID string) (LoginPerson, error) {
	var p LoginPerson
	var err error
	switch kind {
	case LoginCoach:
		err = scanLoginPerson(s.queryRow(ctx, peopleCoaches+`AND c.studio_id = ? AND c.id = ?`, true, studioID, subjectID), &p)
	case LoginTrainee:
		err = scanLoginPerson(s.queryRow(ctx, peopleTrainees+`AND t.studio_id = ? AND t.id = ?`, domain.TraineeArchived, studioID, subjectID), &p)
	default:
		return p, ErrNotFound
	}
	return p, notFound(err)
}

func (s loginStore) PutChallenge(ctx context.Context, c LoginChallenge) error {
	_, err := s.exec(ctx, `INSERT INTO login_challenges (hash, phone, next, created_at, expires_at, verified_at)
		VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (hash) DO UPDATE SET phone = excluded.phone,
			next = excluded.next, created_at = excluded.created_at, expires_at = excluded.expires_at, verified_at = excluded.verified_at`,
		c.Hash, c.Phone, c.Next, ms(c.CreatedAt), ms(c.ExpiresAt), msPtr(c.VerifiedAt))
	return err
}

func (s loginStore) Challenge(ctx context.Context, hash []byte) (LoginChallenge, error) {
	c := LoginChallenge{Hash: hash}
	var created, expires int64
	var verified sql.NullInt64
	err := s.queryRow(ctx, `SELECT phone, next, created_at, expires_at, verified_at FROM login_challenges WHERE hash = ?`, hash).
		Scan(&c.Phone, &c.Next, &created, &expires, &verified)
	if err != nil {
		return c, notFound(err)
	}
	c.CreatedAt, c.ExpiresAt, c.VerifiedAt = fromMS(created), fromMS(expires), fromNullMS(verified)
	return c, nil
}

func (s loginStore) VerifyChallenge(ctx context.Context, hash []byte, at time.Time) error {
	res, err := s.exec(ctx, `UPDATE login_challenges SET verified_at = ? WHERE hash = ?`, ms(at), hash)
	return affected(res, err, "sign-in", "(this browser's)")
}

func (s loginStore) DeleteChallenge(ctx context.Context, hash []byte) error {
	_, err := s.exec(ctx, `DELETE FROM login_challenges WHERE hash = ?`, hash)
	return err
}

func (s loginStore) CreateSession(ctx context.Context, b BrowserSession) error {
	_, err := s.exec(ctx, `INSERT INTO browser_sessions (hash, studio_id, kind, subject_id, created_at, last_seen_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		b.Hash, b.StudioID, b.Kind, b.SubjectID, ms(b.CreatedAt), ms(b.LastSeenAt), ms(b.ExpiresAt))
	return err
}

func (s loginStore) Session(ctx context.Context, hash []byte, now time.Time) (BrowserSession, LoginPerson, error) {
	b := BrowserSession{Hash: hash}
	var created, seen, expires int64
	err := s.queryRow(ctx, `SELECT studio_id, kind, subject_id, created_at, last_seen_at, expires_at FROM browser_sessions WHERE hash = ? AND expires_at > ?`, hash, ms(now)).
		Scan(&b.StudioID, &b.Kind, &b.SubjectID, &created, &seen, &expires)
	if err != nil {
		return b, LoginPerson{}, notFound(err)
	}
	b.CreatedAt, b.LastSeenAt, b.ExpiresAt = fromMS(created), fromMS(seen), fromMS(expires)
	p, err := s.Person(ctx, b.StudioID, b.Kind, b.SubjectID)
	return b, p, err
}

func (s loginStore) TouchSession(ctx context.Context, hash []byte, at, expires time.Time) error {
	res, err := s.exec(ctx, `UPDATE browser_sessions SET last_seen_at = ?, expires_at = ? WHERE hash = ?`, ms(at), ms(expires), hash)
	return affected(res, err, "session", "(this browser's)")
}

func (s loginStore) DeleteSession(ctx context.Context, hash []byte) error {
	_, err := s.exec(ctx, `DELETE FROM browser_sessions WHERE hash = ?`, hash)
	return err
}

func (s loginStore) Hit(ctx context.Context, name string, windowEnd time.Time) (int, error) {
	var count int
	err := s.atomic(ctx, func(q querier) error {
		return q.QueryRowContext(ctx, s.q(`INSERT INTO login_counters (name, window_end, count) VALUES (?, ?, 1)
			ON CONFLICT (name) DO UPDATE SET
				count = CASE WHEN login_counters.window_end = excluded.window_end THEN login_counters.count + 1 ELSE 1 END,
				window_end = excluded.window_end
			RETURNING count`), name, ms(windowEnd)).Scan(&count)
	})
	return count, err
}

func (s loginStore) SweepLogin(ctx context.Context, now time.Time) error {
	return s.atomic(ctx, func(q querier) error {
		for _, table := range []string{"login_challenges", "browser_sessions"} {
			if _, err := q.ExecContext(ctx, s.q(`DELETE FROM `+table+` WHERE expires_at <= ?`), ms(now)); err != nil {
				return err
			}
		}
		_, err := q.ExecContext(ctx, s.q(`DELETE FROM login_counters WHERE window_end <= ?`), ms(now))
		return err
	})
}
