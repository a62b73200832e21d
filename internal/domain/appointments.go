package domain

import (
	"encoding/json"
	"time"
)

// Appointments: a coach's slots (a time, a length, a place, a capacity),
// her working hours, and trainees' places in the slots. The calendar's own
// noun, apart from training sessions (internal/areas/appointments).

// Appointment statuses.
const (
	AppointmentBooked        = "booked"
	AppointmentCancelled     = "cancelled"
	AppointmentLateCancelled = "late_cancelled"
	AppointmentAttended      = "attended"
	AppointmentNoShow        = "no_show"
	AppointmentWaitlisted    = "waitlisted"
)

// AppointmentStatuses are every status, in the order of a booking's life.
var AppointmentStatuses = []string{AppointmentBooked, AppointmentWaitlisted, AppointmentAttended, AppointmentNoShow, AppointmentCancelled, AppointmentLateCancelled}

// WorkingHours is one range of a coach's working day: minutes of the
// studio's local day, Start inclusive, End exclusive.
type WorkingHours struct {
	Weekday time.Weekday
	Start   int
	End     int
}

// Slot is a coach's time for trainees: one-to-one (Capacity 1) or a small
// group. StartsAt and EndsAt are UTC instants.
type Slot struct {
	ID        string
	CoachID   string
	StartsAt  time.Time
	EndsAt    time.Time
	LengthMin int
	Place     string
	Capacity  int
	CreatedAt time.Time
	// Booked and Waitlisted count its live places (filled by reads).
	Booked     int
	Waitlisted int
}

// Appointment is a trainee's place in a slot.
type Appointment struct {
	ID          string
	SlotID      string
	TraineeID   string
	CoachID     string
	StartsAt    time.Time
	EndsAt      time.Time
	Status      string
	Position    *int // on the waiting list, 1 first
	SessionID   *string
	BookedBy    string // LoggedByCoach or LoggedByTrainee
	CreatedAt   time.Time
	UpdatedAt   time.Time
	CancelledAt *time.Time
	// Place is its slot's (filled by reads).
	Place string
}

// Live reports whether the appointment still holds or waits for a place.
func (a Appointment) Live() bool {
	return a.Status == AppointmentBooked || a.Status == AppointmentWaitlisted
}

// DefaultLateCancelHours is how long before its start a booking may be
// cancelled with its credit given back, unless the studio sets its own.
const DefaultLateCancelHours = 12

type appointmentSettings struct {
	LateCancelHours         *int  `json:"lateCancelHours"`
	NotifyWaitlistPromotion *bool `json:"notifyWaitlistPromotion"`
}

func (s Studio) appointmentSettings() appointmentSettings {
	var set appointmentSettings
	if len(s.Settings) > 0 {
		_ = json.Unmarshal(s.Settings, &set) // a bad document reads as the defaults
	}
	return set
}

// LateCancelHours is settings.lateCancelHours: a booking cancelled later
// than this before its start keeps its credit used (default 12).
func (s Studio) LateCancelHours() int {
	if h := s.appointmentSettings().LateCancelHours; h != nil && *h >= 0 {
		return *h
	}
	return DefaultLateCancelHours
}

// NotifyWaitlistPromotion is settings.notifyWaitlistPromotion: whether a
// trainee moved up from a slot's waiting list is told (through the
// outbox). Off unless set.
func (s Studio) NotifyWaitlistPromotion() bool {
	n := s.appointmentSettings().NotifyWaitlistPromotion
	return n != nil && *n
}
