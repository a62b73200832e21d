package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
)

// Bookings: a trainee's place in a slot taken, cancelled, moved up from
// the waiting list and marked, each in one transaction (see Appointments).

// Booking is a trainee's request for a place. SlotID names the slot; or
// CoachID and StartsAt name the coach's slot starting then, and when she
// has none a one-to-one slot of LengthMin at Place is opened (the caller
// checked her hours). A full slot puts her on its waiting list when
// Waitlist is set, else it is ErrSlotFull.
type Booking struct {
	TraineeID string
	SlotID    string
	CoachID   string
	StartsAt  time.Time
	LengthMin int
	Place     string
	Waitlist  bool
	BookedBy  string
	At        time.Time
}

// Booked is a booking's outcome: the trainee's appointment (booked or
// waitlisted) in its slot; Opened when the slot was opened for it.
type Booked struct {
	Appointment domain.Appointment
	Slot        domain.Slot
	Opened      bool
}

// ErrSlotFull is a booking of a slot whose places are all taken, without
// the waiting list.
var ErrSlotFull = errors.New("the slot is full")

// ClashError is a slot or a booking that would overlap another of the same
// coach (Who "coach", ID a slot) or trainee (Who "trainee", ID an
// appointment).
type ClashError struct {
	Who              string
	ID               string
	StartsAt, EndsAt time.Time
}

func (e *ClashError) Error() string {
	return fmt.Sprintf("it overlaps the %s's %s from %s to %s", e.Who, e.ID, e.StartsAt.Format(time.RFC3339), e.EndsAt.Format(time.RFC3339))
}

func (s *studioStore) Book(ctx context.Context, b Booking) (Booked, error) {
	var out Booked
	err := s.inTx(ctx, func(t *studioStore) error {
		var err error
		out, err = t.book(ctx, b)
		return err
	})
	return out, err
}

func (s *studioStore) book(ctx context.Context, b Booking) (Booked, error) {
	var out Booked
	at := b.At.UTC().Truncate(time.Millisecond)
	slotID := b.SlotID
	if slotID == "" {
		// The coach's slot that starts then, or a one-to-one slot opened
		// for it (under the coach's lock, so two such bookings at once
		// open one slot).
		if err := s.lockRow(ctx, "coaches", "coach", b.CoachID); err != nil {
			return out, err
		}
		err := s.queryRow(ctx, `SELECT id FROM appointment_slots WHERE studio_id = ? AND coach_id = ? AND starts_at = ?`,
			s.studioID, b.CoachID, ms(b.StartsAt.UTC().Truncate(time.Minute))).Scan(&slotID)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			v := domain.Slot{CoachID: b.CoachID, StartsAt: b.StartsAt, LengthMin: b.LengthMin, Place: b.Place, Capacity: 1, CreatedAt: at}
			if err := s.createSlot(ctx, &v); err != nil {
				return out, err
			}
			slotID, out.Opened = v.ID, true
		case err != nil:
			return out, err
		}
	}
	if err := s.lockRow(ctx, "appointment_slots", "appointment slot", slotID); err != nil {
		return out, err
	}
	slot, err := s.GetSlot(ctx, slotID)
	if err != nil {
		return out, err
	}
	if err := s.lockRow(ctx, tableTrainees, "trainee", b.TraineeID); err != nil {
		return out, err
	}
	var clash domain.Appointment
	err = scanAppointment(s.queryRow(ctx, `SELECT `+appointmentColumns+` `+appointmentFrom+`
		WHERE a.studio_id = ? AND a.trainee_id = ? AND a.status IN ('booked', 'waitlisted') AND a.starts_at < ? AND a.ends_at > ?
		ORDER BY a.starts_at LIMIT 1`, s.studioID, b.TraineeID, ms(slot.EndsAt), ms(slot.StartsAt)), &clash)
	if err == nil {
		return out, &ClashError{Who: "trainee", ID: clash.ID, StartsAt: clash.StartsAt, EndsAt: clash.EndsAt}
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return out, err
	}
	a := domain.Appointment{ID: ids.New(ids.Appointment), SlotID: slot.ID, TraineeID: b.TraineeID, CoachID: slot.CoachID, StartsAt: slot.StartsAt, EndsAt: slot.EndsAt,
		Status: domain.AppointmentBooked, BookedBy: b.BookedBy, CreatedAt: at, UpdatedAt: at, Place: slot.Place}
	if slot.Booked >= slot.Capacity {
		if !b.Waitlist {
			return out, ErrSlotFull
		}
		var last int
		if err := s.queryRow(ctx, `SELECT coalesce(max(position), 0) FROM appointments WHERE studio_id = ? AND slot_id = ? AND status = 'waitlisted'`,
			s.studioID, slot.ID).Scan(&last); err != nil {
			return out, err
		}
		p := last + 1
		a.Status, a.Position = domain.AppointmentWaitlisted, &p
	}
	if _, err := s.exec(ctx, `INSERT INTO appointments (id, studio_id, slot_id, trainee_id, coach_id, starts_at, ends_at, status, position, booked_by, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, a.ID, s.studioID, a.SlotID, a.TraineeID, a.CoachID, ms(a.StartsAt), ms(a.EndsAt), a.Status, a.Position, a.BookedBy,
		ms(a.CreatedAt), ms(a.UpdatedAt)); err != nil {
		return out, s.writeErr(err, "appointment", a.ID)
	}
	if a.Status == domain.AppointmentBooked {
		if err := s.useCredit(ctx, a); err != nil {
			return out, err
		}
		slot.Booked++
	} else {
		slot.Waitlisted++
	}
	out.Appointment, out.Slot = a, slot
	return out, nil
}

func (s *studioStore) CancelAppointment(ctx context.Context, id string, at time.Time, late bool) (domain.Appointment, *domain.Appointment, error) {
	var cancelled domain.Appointment
	var promoted *domain.Appointment
	err := s.inTx(ctx, func(t *studioStore) error {
		a, err := t.GetAppointment(ctx, id)
		if err != nil {
			return err
		}
		if err := t.lockRow(ctx, "appointment_slots", "appointment slot", a.SlotID); err != nil {
			return err
		}
		if a, err = t.GetAppointment(ctx, id); err != nil { // as it is under the lock
			return err
		}
		if !a.Live() {
			return &ConflictError{Message: fmt.Sprintf("Appointment %s is %s already: only a booked or waitlisted appointment is cancelled.", id, strings.ReplaceAll(a.Status, "_", " ")), ExistingID: id}
		}
		at := at.UTC().Truncate(time.Millisecond)
		wasBooked, left := a.Status == domain.AppointmentBooked, a.Position
		a.Status = domain.AppointmentCancelled
		if wasBooked && late {
			a.Status = domain.AppointmentLateCancelled
		}
		a.Position, a.CancelledAt, a.UpdatedAt = nil, &at, at
		if _, err := t.exec(ctx, `UPDATE appointments SET status = ?, position = NULL, cancelled_at = ?, updated_at = ? WHERE studio_id = ? AND id = ?`,
			a.Status, ms(at), ms(at), s.studioID, id); err != nil {
			return err
		}
		if wasBooked && !late {
			if err := t.releaseCredit(ctx, a); err != nil {
				return err
			}
		}
		cancelled = a
		if !wasBooked {
			return t.closeLine(ctx, a.SlotID, left)
		}
		promoted, err = t.promote(ctx, a.SlotID, at)
		return err
	})
	return cancelled, promoted, err
}

// promote gives a freed place of the slot to the first on its waiting list
// who has a credit (the others keep their places in line).
func (s *studioStore) promote(ctx context.Context, slotID string, at time.Time) (*domain.Appointment, error) {
	waiting, err := s.ListAppointments(ctx, AppointmentFilter{SlotID: slotID, Statuses: []string{domain.AppointmentWaitlisted}, Page: Page{Limit: 200}})
	if err != nil {
		return nil, err
	}
	for _, w := range waiting.Items {
		w.Status, w.Position, w.UpdatedAt = domain.AppointmentBooked, nil, at
		if _, err := s.exec(ctx, `UPDATE appointments SET status = 'booked', position = NULL, updated_at = ? WHERE studio_id = ? AND id = ?`,
			ms(at), s.studioID, w.ID); err != nil {
			return nil, err
		}
		err := s.useCredit(ctx, w)
		if errors.Is(err, errNoCreditForPromotion) {
			if _, err := s.exec(ctx, `UPDATE appointments SET status = 'waitlisted', position = ?, updated_at = ? WHERE studio_id = ? AND id = ?`,
				*waitingPosition(waiting.Items, w.ID), ms(at), s.studioID, w.ID); err != nil {
				return nil, err
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		if err := s.closeLine(ctx, slotID, waitingPosition(waiting.Items, w.ID)); err != nil {
			return nil, err
		}
		return &w, nil
	}
	return nil, nil
}

// closeLine moves up the slot's waiting list behind a place left at
// position (nil: none), so 1 is always next.
func (s *studioStore) closeLine(ctx context.Context, slotID string, position *int) error {
	if position == nil {
		return nil
	}
	_, err := s.exec(ctx, `UPDATE appointments SET position = position - 1 WHERE studio_id = ? AND slot_id = ? AND status = 'waitlisted' AND position > ?`,
		s.studioID, slotID, *position)
	return err
}

func waitingPosition(list []domain.Appointment, id string) *int {
	for _, a := range list {
		if a.ID == id {
			return a.Position
		}
	}
	return nil
}

func (s *studioStore) MarkAppointment(ctx context.Context, id, status string, sessionID *string, at time.Time) (domain.Appointment, error) {
	var out domain.Appointment
	err := s.inTx(ctx, func(t *studioStore) error {
		a, err := t.GetAppointment(ctx, id)
		if err != nil {
			return err
		}
		if a.Status != domain.AppointmentBooked && a.Status != domain.AppointmentAttended && a.Status != domain.AppointmentNoShow {
			return &ConflictError{Message: fmt.Sprintf("Appointment %s is %s: only a booked appointment is marked attended or no_show.", id, strings.ReplaceAll(a.Status, "_", " ")), ExistingID: id}
		}
		at := at.UTC().Truncate(time.Millisecond)
		if status != domain.AppointmentAttended {
			sessionID = nil
		} else if sessionID == nil {
			sessionID = a.SessionID
		}
		if _, err := t.exec(ctx, `UPDATE appointments SET status = ?, session_id = ?, updated_at = ? WHERE studio_id = ? AND id = ?`,
			status, sessionID, ms(at), s.studioID, id); err != nil {
			return err
		}
		a.Status, a.SessionID, a.UpdatedAt = status, sessionID, at
		out = a
		return nil
	})
	return out, err
}
