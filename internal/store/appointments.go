package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
)

// Appointments are coaches' slots and working hours and trainees' places
// in the slots (internal/areas/appointments).
//
// A booking is one transaction: the slot's row is locked (SELECT … FOR NO
// KEY UPDATE on PostgreSQL; SQLite has one writer at a time), then its
// places are counted, the trainee's other appointments are checked for an
// overlap under her row's lock, the place is written, and its credit used.
// A cancellation locks the same slot row, so a booking and a cancellation
// of one slot take turns, and the waiting list moves up inside it.
type Appointments interface {
	// SetCoachHours replaces the coach's working hours.
	SetCoachHours(ctx context.Context, coachID string, hours []domain.WorkingHours) error
	// CoachHours are the coach's working hours, by weekday and start.
	CoachHours(ctx context.Context, coachID string) ([]domain.WorkingHours, error)
	// CreateSlot writes a slot; one overlapping another of its coach's is
	// a *ClashError.
	CreateSlot(ctx context.Context, s *domain.Slot) error
	GetSlot(ctx context.Context, id string) (domain.Slot, error)
	// ListSlots are the slots starting in [From, To), by start.
	ListSlots(ctx context.Context, f SlotFilter) ([]domain.Slot, error)
	// Book gives a trainee a place (see Booking).
	Book(ctx context.Context, b Booking) (Booked, error)
	GetAppointment(ctx context.Context, id string) (domain.Appointment, error)
	// ListAppointments are the appointments of the filter, by start.
	ListAppointments(ctx context.Context, f AppointmentFilter) (List[domain.Appointment], error)
	// CancelAppointment cancels a live appointment at at: a booked one
	// late (its credit kept used) or not (its credit given back); a
	// booked place freed goes to the first on the waiting list who has a
	// credit, answered as promoted. One no longer live is a ConflictError.
	CancelAppointment(ctx context.Context, id string, at time.Time, late bool) (cancelled domain.Appointment, promoted *domain.Appointment, err error)
	// MarkAppointment marks a booked (or already marked) appointment
	// attended or no_show, with the training session logged for it.
	MarkAppointment(ctx context.Context, id, status string, sessionID *string, at time.Time) (domain.Appointment, error)
	// NextAppointment is the trainee's first booked or waitlisted
	// appointment starting at or after after; ErrNotFound when none.
	NextAppointment(ctx context.Context, traineeID string, after time.Time) (domain.Appointment, error)
	// NoShows counts each trainee's no-shows starting at or after since
	// (trainees without one are absent).
	NoShows(ctx context.Context, since time.Time) (map[string]int, error)
	// SetCoachFeed keeps the hash of the coach's calendar feed token,
	// replacing any earlier one; DropCoachFeed forgets it (false: none).
	SetCoachFeed(ctx context.Context, coachID string, hash []byte, at time.Time) error
	DropCoachFeed(ctx context.Context, coachID string) (bool, error)
}

// SlotFilter narrows ListSlots.
type SlotFilter struct {
	CoachID  string // "" every coach
	From, To time.Time
}

// AppointmentFilter narrows ListAppointments. Zero fields do not narrow.
type AppointmentFilter struct {
	CoachID   string
	TraineeID string
	SlotID    string
	From, To  time.Time // starts in [From, To)
	Statuses  []string
	Page
}

// lockRow takes the row's lock for the rest of the transaction (FOR NO KEY
// UPDATE on PostgreSQL, which leaves the rows referring to it free to be
// written; SQLite's one writer holds it already). table is one of the
// store's own names.
func (s *studioStore) lockRow(ctx context.Context, table, noun, id string) error {
	if s.tx == nil {
		return errNoTx
	}
	query := `SELECT id FROM ` + table + ` WHERE studio_id = ? AND id = ?`
	if s.engine == EnginePostgres {
		query += ` FOR NO KEY UPDATE`
	}
	var got string
	return notFoundAs(notFound(s.queryRow(ctx, query, s.studioID, id).Scan(&got)), noun, id)
}

// inTx runs fn on this studio's store bound to a transaction (the one it
// is in, or a new one).
func (s *studioStore) inTx(ctx context.Context, fn func(t *studioStore) error) error {
	return s.InTx(ctx, func(tx Store) error { return fn(&studioStore{sqlStore: tx.(*sqlStore), studioID: s.studioID}) })
}

// Working hours.

func (s *studioStore) SetCoachHours(ctx context.Context, coachID string, hours []domain.WorkingHours) error {
	return s.inTx(ctx, func(t *studioStore) error {
		if err := t.lockRow(ctx, "coaches", "coach", coachID); err != nil {
			return err
		}
		if _, err := t.exec(ctx, `DELETE FROM coach_hours WHERE studio_id = ? AND coach_id = ?`, s.studioID, coachID); err != nil {
			return err
		}
		for _, h := range hours {
			if _, err := t.exec(ctx, `INSERT INTO coach_hours (studio_id, coach_id, weekday, starts_min, ends_min) VALUES (?, ?, ?, ?, ?)`,
				s.studioID, coachID, int(h.Weekday), h.Start, h.End); err != nil {
				return s.writeErr(err, "working hours range", fmt.Sprintf("%s %d", h.Weekday, h.Start))
			}
		}
		return nil
	})
}

func (s *studioStore) CoachHours(ctx context.Context, coachID string) ([]domain.WorkingHours, error) {
	return listAll(ctx, s, `SELECT weekday, starts_min, ends_min FROM coach_hours WHERE studio_id = ? AND coach_id = ? ORDER BY weekday, starts_min`,
		[]any{s.studioID, coachID}, func(row scanner, h *domain.WorkingHours, _ ...any) error {
			var wd int
			err := row.Scan(&wd, &h.Start, &h.End)
			h.Weekday = time.Weekday(wd)
			return err
		})
}

// Slots.

const slotColumns = `s.id, s.coach_id, s.starts_at, s.ends_at, s.length_min, s.place, s.capacity, s.created_at,
	(SELECT count(*) FROM appointments a WHERE a.studio_id = s.studio_id AND a.slot_id = s.id AND a.status = 'booked'),
	(SELECT count(*) FROM appointments a WHERE a.studio_id = s.studio_id AND a.slot_id = s.id AND a.status = 'waitlisted')`

func scanSlot(row scanner, v *domain.Slot, _ ...any) error {
	var starts, ends, created int64
	if err := row.Scan(&v.ID, &v.CoachID, &starts, &ends, &v.LengthMin, &v.Place, &v.Capacity, &created, &v.Booked, &v.Waitlisted); err != nil {
		return err
	}
	v.StartsAt, v.EndsAt, v.CreatedAt = fromMS(starts), fromMS(ends), fromMS(created)
	return nil
}

func (s *studioStore) CreateSlot(ctx context.Context, v *domain.Slot) error {
	return s.inTx(ctx, func(t *studioStore) error { return t.createSlot(ctx, v) })
}

// createSlot writes v under its coach's lock, refusing an overlap.
func (s *studioStore) createSlot(ctx context.Context, v *domain.Slot) error {
	s.fillNew(&v.ID, ids.Slot, &v.CreatedAt)
	v.StartsAt = v.StartsAt.UTC().Truncate(time.Minute)
	v.EndsAt = v.StartsAt.Add(time.Duration(v.LengthMin) * time.Minute)
	if err := s.lockRow(ctx, "coaches", "coach", v.CoachID); err != nil {
		return err
	}
	var clash domain.Slot
	err := scanSlot(s.queryRow(ctx, `SELECT `+slotColumns+` FROM appointment_slots s
		WHERE s.studio_id = ? AND s.coach_id = ? AND s.starts_at < ? AND s.ends_at > ? ORDER BY s.starts_at LIMIT 1`,
		s.studioID, v.CoachID, ms(v.EndsAt), ms(v.StartsAt)), &clash)
	if err == nil {
		return &ClashError{Who: "coach", ID: clash.ID, StartsAt: clash.StartsAt, EndsAt: clash.EndsAt}
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	_, err = s.exec(ctx, `INSERT INTO appointment_slots (id, studio_id, coach_id, starts_at, ends_at, length_min, place, capacity, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, v.ID, s.studioID, v.CoachID, ms(v.StartsAt), ms(v.EndsAt), v.LengthMin, v.Place, v.Capacity, ms(v.CreatedAt))
	return s.writeErr(err, "appointment slot", v.ID)
}

func (s *studioStore) GetSlot(ctx context.Context, id string) (domain.Slot, error) {
	return getOne(ctx, s, "appointment slot", id, `SELECT `+slotColumns+` FROM appointment_slots s WHERE s.studio_id = ? AND s.id = ?`,
		[]any{s.studioID, id}, scanSlot)
}

func (s *studioStore) ListSlots(ctx context.Context, f SlotFilter) ([]domain.Slot, error) {
	where, args := `s.studio_id = ? AND s.starts_at >= ? AND s.starts_at < ?`, []any{s.studioID, ms(f.From), ms(f.To)}
	if f.CoachID != "" {
		where += ` AND s.coach_id = ?`
		args = append(args, f.CoachID)
	}
	return listAll(ctx, s, `SELECT `+slotColumns+` FROM appointment_slots s WHERE `+where+` ORDER BY s.starts_at, s.coach_id, s.id`, args, scanSlot)
}

// Appointments.

const appointmentColumns = `a.id, a.slot_id, a.trainee_id, a.coach_id, a.starts_at, a.ends_at, a.status, a.position, a.session_id, a.booked_by,
	a.created_at, a.updated_at, a.cancelled_at, s.place`

const appointmentFrom = `FROM appointments a JOIN appointment_slots s ON s.studio_id = a.studio_id AND s.id = a.slot_id`

func scanAppointment(row scanner, v *domain.Appointment, _ ...any) error {
	var starts, ends, created, updated int64
	var cancelled sql.NullInt64
	var position sql.NullInt64
	if err := row.Scan(&v.ID, &v.SlotID, &v.TraineeID, &v.CoachID, &starts, &ends, &v.Status, &position, &v.SessionID, &v.BookedBy,
		&created, &updated, &cancelled, &v.Place); err != nil {
		return err
	}
	v.StartsAt, v.EndsAt, v.CreatedAt, v.UpdatedAt = fromMS(starts), fromMS(ends), fromMS(created), fromMS(updated)
	if cancelled.Valid {
		c := fromMS(cancelled.Int64)
		v.CancelledAt = &c
	}
	if position.Valid {
		p := int(position.Int64)
		v.Position = &p
	}
	return nil
}

func (s *studioStore) GetAppointment(ctx context.Context, id string) (domain.Appointment, error) {
	return getOne(ctx, s, "appointment", id, `SELECT `+appointmentColumns+` `+appointmentFrom+` WHERE a.studio_id = ? AND a.id = ?`,
		[]any{s.studioID, id}, scanAppointment)
}

func (s *studioStore) ListAppointments(ctx context.Context, f AppointmentFilter) (List[domain.Appointment], error) {
	where, args := `a.studio_id = ?`, []any{s.studioID}
	for _, c := range []struct{ col, v string }{{"a.coach_id", f.CoachID}, {"a.trainee_id", f.TraineeID}, {"a.slot_id", f.SlotID}} {
		if c.v != "" {
			where += ` AND ` + c.col + ` = ?`
			args = append(args, c.v)
		}
	}
	if !f.From.IsZero() {
		where += ` AND a.starts_at >= ?`
		args = append(args, ms(f.From))
	}
	if !f.To.IsZero() {
		where += ` AND a.starts_at < ?`
		args = append(args, ms(f.To))
	}
	if len(f.Statuses) > 0 {
		where += ` AND a.status IN (` + placeholders(len(f.Statuses)) + `)`
		for _, st := range f.Statuses {
			args = append(args, st)
		}
	}
	return listPage(ctx, s, appointmentColumns, appointmentFrom, where, `a.starts_at, a.coach_id, coalesce(a.position, 0), a.id`, args, f.Page, scanAppointment)
}

func (s *studioStore) NextAppointment(ctx context.Context, traineeID string, after time.Time) (domain.Appointment, error) {
	var v domain.Appointment
	err := scanAppointment(s.queryRow(ctx, `SELECT `+appointmentColumns+` `+appointmentFrom+`
		WHERE a.studio_id = ? AND a.trainee_id = ? AND a.starts_at >= ? AND a.status IN ('booked', 'waitlisted')
		ORDER BY a.starts_at, a.id LIMIT 1`, s.studioID, traineeID, ms(after)), &v)
	return v, notFound(err)
}

func (s *studioStore) NoShows(ctx context.Context, since time.Time) (map[string]int, error) {
	rows, err := s.query(ctx, `SELECT trainee_id, count(*) FROM appointments WHERE studio_id = ? AND status = 'no_show' AND starts_at >= ? GROUP BY trainee_id`,
		s.studioID, ms(since))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var id string
		var n int
		if err := rows.Scan(&id, &n); err != nil {
			return nil, err
		}
		out[id] = n
	}
	return out, rows.Err()
}

// Calendar feeds.

func (s *studioStore) SetCoachFeed(ctx context.Context, coachID string, hash []byte, at time.Time) error {
	return s.inTx(ctx, func(t *studioStore) error {
		if err := t.lockRow(ctx, "coaches", "coach", coachID); err != nil {
			return err
		}
		if _, err := t.exec(ctx, `DELETE FROM coach_feeds WHERE studio_id = ? AND coach_id = ?`, s.studioID, coachID); err != nil {
			return err
		}
		_, err := t.exec(ctx, `INSERT INTO coach_feeds (coach_id, studio_id, token_hash, created_at) VALUES (?, ?, ?, ?)`, coachID, s.studioID, hash, ms(at))
		return err
	})
}

func (s *studioStore) DropCoachFeed(ctx context.Context, coachID string) (bool, error) {
	res, err := s.exec(ctx, `DELETE FROM coach_feeds WHERE studio_id = ? AND coach_id = ?`, s.studioID, coachID)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// CoachFeed is the studio and coach whose calendar feed token hashes to
// hash; ErrNotFound for none. The hash is the index's key, so the token is
// never compared byte by byte in Go; the caller compares the hash it got
// back in constant time all the same.
func CoachFeed(ctx context.Context, st Store, hash []byte) (studioID, coachID string, stored []byte, err error) {
	err = st.DB().QueryRowContext(ctx, st.Rebind(`SELECT studio_id, coach_id, token_hash FROM coach_feeds WHERE token_hash = ?`), hash).Scan(&studioID, &coachID, &stored)
	return studioID, coachID, stored, notFound(err)
}
