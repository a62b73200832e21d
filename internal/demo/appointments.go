package demo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
)

// The demo's calendar: both coaches' working hours, and a week of
// appointments around today (two days back to five ahead, Saturdays off):
// one-to-one sessions and an evening group, the past ones marked (one a
// no-show), the evening group with a place left. 18:00 is left free, so
// "book Omer Tuesday 18:00" opens a one-to-one slot in the coach's hours.

type demoHours struct {
	days       []time.Weekday
	from, to   int // minutes of the day
	oneToOne   []int
	groupAt    int // 0: none
	groupPlace string
}

func seedAppointments(ctx context.Context, ss store.StudioStore, coaches []domain.Coach, trainees []domain.Trainee, now time.Time) error {
	zone := domain.Studio{}.TimeZone()
	work := []demoHours{
		{days: []time.Weekday{time.Sunday, time.Monday, time.Tuesday, time.Wednesday, time.Thursday}, from: 7 * 60, to: 21 * 60,
			oneToOne: []int{8 * 60, 10 * 60, 16 * 60}, groupAt: 19 * 60, groupPlace: "Studio A"},
		{days: []time.Weekday{time.Sunday, time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Friday}, from: 12 * 60, to: 21 * 60,
			oneToOne: []int{13 * 60, 17 * 60}},
	}
	for i, c := range coaches {
		var hours []domain.WorkingHours
		for _, d := range work[i].days {
			hours = append(hours, domain.WorkingHours{Weekday: d, Start: work[i].from, End: work[i].to})
		}
		if err := ss.SetCoachHours(ctx, c.ID, hours); err != nil {
			return fmt.Errorf("working hours of %s: %w", c.Name, err)
		}
	}
	local := now.In(zone)
	today := time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, zone)
	next := 0 // the next trainee to book, round the list
	pickTrainee := func() domain.Trainee {
		for {
			t := trainees[next%len(trainees)]
			next += 3 // spread over the list
			if !inBillingStory(t) {
				return t
			}
		}
	}
	noShowDone := false
	for offset := -2; offset <= 5; offset++ {
		day := today.AddDate(0, 0, offset)
		for i, c := range coaches {
			w := work[i]
			if !containsDay(w.days, day.Weekday()) {
				continue
			}
			at := func(min int) time.Time { return day.Add(time.Duration(min) * time.Minute) }
			for _, m := range w.oneToOne {
				if err := demoBook(ctx, ss, store.Booking{TraineeID: pickTrainee().ID, CoachID: c.ID, StartsAt: at(m), LengthMin: 60, Place: "Room 1",
					BookedBy: domain.LoggedByCoach, At: now.Add(-72 * time.Hour)}, now, &noShowDone); err != nil {
					return err
				}
			}
			if w.groupAt == 0 {
				continue
			}
			slot := domain.Slot{CoachID: c.ID, StartsAt: at(w.groupAt), LengthMin: 60, Place: w.groupPlace, Capacity: 4, CreatedAt: now.Add(-7 * 24 * time.Hour)}
			if err := ss.CreateSlot(ctx, &slot); err != nil {
				return fmt.Errorf("the group slot of %s: %w", day.Format(time.DateOnly), err)
			}
			for range 3 {
				if err := demoBook(ctx, ss, store.Booking{TraineeID: pickTrainee().ID, SlotID: slot.ID, BookedBy: domain.LoggedByCoach, At: now.Add(-72 * time.Hour)}, now, &noShowDone); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// demoBook books b, skipping a trainee the demo already has at that time or
// without a credit left, and marks a past one attended (the first no-show
// once).
func demoBook(ctx context.Context, ss store.StudioStore, b store.Booking, now time.Time, noShowDone *bool) error {
	got, err := ss.Book(ctx, b)
	var clash *store.ClashError
	if errors.As(err, &clash) || errors.Is(err, store.ErrNoCredit) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("a demo appointment: %w", err)
	}
	a := got.Appointment
	if !a.EndsAt.Before(now) || a.Status != domain.AppointmentBooked {
		return nil
	}
	status := domain.AppointmentAttended
	if !*noShowDone {
		status, *noShowDone = domain.AppointmentNoShow, true
	}
	if _, err := ss.MarkAppointment(ctx, a.ID, status, nil, a.EndsAt); err != nil {
		return fmt.Errorf("marking a demo appointment: %w", err)
	}
	return nil
}

func containsDay(days []time.Weekday, d time.Weekday) bool {
	for _, x := range days {
		if x == d {
			return true
		}
	}
	return false
}
