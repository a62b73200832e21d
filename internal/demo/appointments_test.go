package demo

import (
	"context"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/store/storetest"
)

// The demo's week of appointments: both coaches have hours and a day of
// appointments on a working day, the past ones marked (one a no-show),
// the evening group with a place left, and 18:00 free for a booking.
func TestTheDemoHasAWeekOfAppointments(t *testing.T) {
	t.Parallel()
	st := storetest.OpenSQLite(t)
	ctx := context.Background()
	zone := domain.Studio{}.TimeZone()
	now := time.Date(2026, 12, 8, 12, 0, 0, 0, zone) // a Tuesday, noon in Israel
	studio, err := SeedAt(ctx, st, now)
	if err != nil {
		t.Fatal(err)
	}
	ss := st.Studio(studio.ID)
	coaches, err := ss.ListCoaches(ctx, store.Page{Limit: 10})
	if err != nil || len(coaches.Items) != 2 {
		t.Fatalf("coaches: %v %v", coaches, err)
	}
	for _, c := range coaches.Items {
		if h, err := ss.CoachHours(ctx, c.ID); err != nil || len(h) < 5 {
			t.Errorf("%s's hours: %v %v", c.Name, h, err)
		}
	}
	day := time.Date(2026, 12, 8, 0, 0, 0, 0, zone)
	today, err := ss.ListAppointments(ctx, store.AppointmentFilter{From: day, To: day.AddDate(0, 0, 1), Page: store.Page{Limit: 200}})
	if err != nil {
		t.Fatal(err)
	}
	marked, booked := 0, 0
	for _, a := range today.Items {
		switch {
		case a.EndsAt.Before(now) && (a.Status == domain.AppointmentAttended || a.Status == domain.AppointmentNoShow):
			marked++
		case a.StartsAt.After(now) && a.Status == domain.AppointmentBooked:
			booked++
		default:
			t.Errorf("today's %s at %s is %s", a.ID, a.StartsAt.In(zone), a.Status)
		}
		if a.StartsAt.In(zone).Hour() == 18 {
			t.Errorf("18:00 is taken: %+v", a)
		}
	}
	if marked < 2 || booked < 5 {
		t.Errorf("today: %d marked, %d booked of %d", marked, booked, today.Total)
	}
	week, err := ss.ListAppointments(ctx, store.AppointmentFilter{From: day.AddDate(0, 0, -2), To: day.AddDate(0, 0, 6), Statuses: []string{domain.AppointmentNoShow}, Page: store.Page{Limit: 10}})
	if err != nil || week.Total != 1 {
		t.Errorf("no-shows of the week: %v %v", week.Total, err)
	}
	slots, err := ss.ListSlots(ctx, store.SlotFilter{From: day, To: day.AddDate(0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	open := false
	for _, s := range slots {
		open = open || s.Capacity > 1 && s.Booked < s.Capacity
	}
	if !open {
		t.Errorf("no group slot with a place left today: %+v", slots)
	}
}
