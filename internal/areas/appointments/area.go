// Package appointments is the calendar's own noun, apart from training
// sessions: a coach's working hours and slots (a time, a length, a place,
// a capacity), and trainees' places in them — booked by the coach or by
// the trainee, each place using a credit, cancelled (late: the credit kept),
// waitlisted and moved up, marked attended or no-show — and a read-only
// iCalendar feed of a coach's appointments behind a secret URL.
package appointments

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/training"
)

// Area is the appointments' routes.
type Area struct{}

// Routes adds the appointments' routes.
func (a *Area) Routes(rs *lane.Routes) {
	// A coach's working hours.
	lane.Add(rs, "GET", "/coaches/{id}/hours", "A coach's working hours, by weekday, in the studio's time zone.", getHours)
	lane.Add(rs, "PUT", "/coaches/{id}/hours", "Set a coach's working hours (replacing them): ranges by weekday in the studio's time zone. A booking at a time with no slot opens one-to-one within them.", putHours)
	// Slots.
	lane.Add(rs, "POST", "/appointment-slots", "Open a coach's slot: a day and time in the studio's zone, a length, a place and how many it takes (1: one-to-one). A coach's slots never overlap.", createSlot,
		lane.Created(), lane.Tool("create_appointment_slot"))
	lane.Add(rs, "GET", "/appointment-slots", "The studio's slots over a range of days, each with its places booked and waiting.", listSlots)
	// Appointments.
	lane.Add(rs, "GET", "/appointments", "The studio's appointments over a range of days (today when none is given), by start: what's on today in one call.", listAppointments,
		lane.Tool("list_appointments"))
	lane.Add(rs, "GET", "/appointments/{id}", "One appointment.", getAppointment, lane.Trainee(auth.ScopeTrainingRead), lane.Allow(traineeFields...))
	lane.Add(rs, "GET", "/trainees/{id}/appointments", "A trainee's appointments from a day on (today when none is given), by start.", listTraineeAppointments,
		lane.Trainee(auth.ScopeTrainingRead), lane.TraineeTool("list_my_appointments"), lane.Allow(traineeList...))
	lane.Add(rs, "POST", "/trainees/{id}/appointments", "Book a trainee a place: in a slot (slotId), or at a day and time with a coach, which takes a place in her slot then or opens a one-to-one slot within her working hours. A full slot puts the trainee on its waiting list. The booking uses a credit.", book,
		lane.Created(), lane.Tool("book_appointment"), lane.Trainee(auth.ScopeTrainingWrite), lane.TraineeTool("book_appointment"), lane.Allow(traineeBooked...))
	lane.Add(rs, "POST", "/appointments/{id}/cancel", "Cancel an appointment. Later than the studio's lateCancelHours before its start it is a late cancellation and keeps its credit used; earlier, the credit is given back. A place freed goes to the first on the waiting list.", cancel,
		lane.Tool("cancel_appointment"), lane.Trainee(auth.ScopeTrainingWrite), lane.TraineeTool("cancel_appointment"), lane.Allow(traineeCancel...))
	lane.Add(rs, "POST", "/appointments/{id}/move", "Move an appointment to another day and time (or slot), in one step: the old one is cancelled with its credit given back (never a late cancellation) and its place goes to the first waiting, the new one booked as a booking is; a new time that cannot be booked, or a full slot unless waitlist is true, keeps the old one. A trainee moves her own, and not later than the studio's lateCancelHours before its start.", move,
		lane.Trainee(auth.ScopeTrainingWrite), lane.TraineeTool("move_appointment"), lane.Allow(traineeBooked...)) // "from" is the id she gave, and no id field: it would read redacted
	lane.Add(rs, "POST", "/appointments/{id}/mark", "Mark an appointment that has begun attended (optionally with the training session logged for it) or no_show.", mark,
		lane.Tool("mark_appointment"))
	// The studio's rules and the coach's calendar feed: for the studio's own apps.
	lane.Add(rs, "GET", "/appointment-settings", "The studio's appointment rules: lateCancelHours and notifyWaitlistPromotion.", getSettings)
	lane.Add(rs, "PATCH", "/appointment-settings", "Change the studio's appointment rules: lateCancelHours (how long before its start a cancellation gives the credit back) and notifyWaitlistPromotion (whether a trainee moved up from a waiting list is told).", patchSettings, lane.Admin())
	lane.Add(rs, "POST", "/coaches/{id}/calendar-feed", "Make a new secret calendar feed address for a coach (iCalendar, read-only), revoking the one before. The address is shown once.", rotateFeed, lane.Created())
	lane.Add(rs, "DELETE", "/coaches/{id}/calendar-feed", "Revoke a coach's calendar feed address.", revokeFeed)
}

// Declare says what the appointments hold: slots and appointments, an
// appointment its trainee's own; the reason a no-show gives the roster; a
// trainee's next appointment on her overview.
func (a *Area) Declare(d *lane.Declaration) {
	d.Nouns = append(d.Nouns,
		lane.Noun{Kind: ids.Slot, Collections: []string{"appointment-slots"},
			Name: func(ctx context.Context, ss store.StudioStore, id string) (string, error) {
				s, err := ss.GetSlot(ctx, id)
				return "slot at " + s.StartsAt.Format("2006-01-02 15:04 UTC"), err
			}},
		lane.Noun{Kind: ids.Appointment, Collections: []string{"appointments"},
			Owner: func(ctx context.Context, ss store.StudioStore, id string) (string, error) {
				x, err := ss.GetAppointment(ctx, id)
				return x.TraineeID, err
			},
			Name: func(ctx context.Context, ss store.StudioStore, id string) (string, error) {
				x, err := ss.GetAppointment(ctx, id)
				if err != nil {
					return "", err
				}
				t, err := ss.GetTrainee(ctx, x.TraineeID)
				return "appointment of " + t.FirstName + " " + t.LastName + " at " + x.StartsAt.Format("2006-01-02 15:04 UTC"), err
			}})
	d.Refs = map[string]lane.RefCheck{
		"session": lane.RefOf(ids.Session, func(ss store.StudioStore) func(context.Context, string) (domain.Session, error) { return ss.GetSession }),
		"slot":    lane.RefOf(ids.Slot, func(ss store.StudioStore) func(context.Context, string) (domain.Slot, error) { return ss.GetSlot }),
	}
	d.Adds.Codes = []lane.ReasonCode{{Code: ReasonNoShow, Means: "missed an appointment without cancelling in 30 days"}}
	d.Adds.Reasons = noShowReasons
	d.Adds.Overview = nextOnOverview
}

// ReasonNoShow is the roster's reason for a trainee who missed an
// appointment without cancelling in the last NoShowDays.
const (
	ReasonNoShow   = "no_show"
	NoShowDays     = 30
	noShowSeverity = 45
)

func noShowReasons(c *lane.Call, trainees []string) (map[string][]training.Reason, error) {
	counts, err := c.Studio().NoShows(c.Ctx, c.Now().Add(-NoShowDays*24*time.Hour))
	if err != nil || len(counts) == 0 {
		return nil, err
	}
	out := map[string][]training.Reason{}
	for _, id := range trainees {
		if n := counts[id]; n > 0 {
			msg := "Missed an appointment without cancelling in the last 30 days."
			if n > 1 {
				msg = fmt.Sprintf("Missed %d appointments without cancelling in the last 30 days.", n)
			}
			out[id] = []training.Reason{{Code: ReasonNoShow, Severity: noShowSeverity, Message: msg, Numbers: map[string]any{"noShows": n, "days": NoShowDays}}}
		}
	}
	return out, nil
}

func nextOnOverview(c *lane.Call, trainee string) ([]string, error) {
	next, err := c.Studio().NextAppointment(c.Ctx, trainee, c.Now())
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil, nil
		}
		return nil, err
	}
	line := "Next appointment: " + localLabel(next.StartsAt, c.Zone())
	if next.Place != "" {
		line += ", " + next.Place
	}
	if next.Status == domain.AppointmentWaitlisted && next.Position != nil {
		line += fmt.Sprintf(" (waiting list, number %d)", *next.Position)
	}
	return []string{line + "."}, nil
}

// localLabel is an instant as the studio reads it: "Tue 8 Dec 2026 18:00".
func localLabel(t time.Time, loc *time.Location) string {
	return t.In(loc).Format("Mon 2 Jan 2006 15:04")
}
