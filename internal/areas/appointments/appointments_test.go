package appointments_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/areas/appointments"
	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/lane/lanetest"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/testkit"
	"github.com/otherwise/perform/internal/training"
)

// world is a seeded studio on a lane whose clock the test moves, with its
// coach working every day from 07:00 to 21:00 and a second trainee.
type world struct {
	e     *kit.Env
	clock *testkit.Clock
	f     kit.Fixture
	other kit.OtherRecords
	zone  *time.Location
}

func newWorld(t *testing.T, st store.Store, slug string) world {
	clock := testkit.NewClock(time.Now().UTC().Truncate(time.Second))
	e := lanetest.NewTrainee(t, st, lanetest.TraineeOptions{Now: clock.Now})
	f := e.Seed(slug)
	w := world{e: e, clock: clock, f: f, other: e.SecondTrainee(f), zone: f.Studio.TimeZone()}
	var hours []map[string]string
	for _, d := range []string{"sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"} {
		hours = append(hours, map[string]string{"day": d, "from": "07:00", "to": "21:00"})
	}
	e.OK(200, e.Call(f.Key, "PUT", "/coaches/"+f.Coach.ID+"/hours", map[string]any{"hours": hours}))
	return w
}

// day is the local date n days from the clock's today.
func (w world) day(n int) string {
	return w.clock.Now().In(w.zone).AddDate(0, 0, n).Format(time.DateOnly)
}

func (w world) book(key, trainee string, body map[string]any) kit.Answer {
	return w.e.Call(key, "POST", "/trainees/"+trainee+"/appointments", body)
}

func TestBookingByDayAndTime(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		w := newWorld(t, st, "book")
		e, k := w.e, w.f.Key
		when := map[string]any{"day": w.day(3), "time": "18:00", "place": "Room 1"}

		var first appointments.Booked
		e.OK(201, w.book(k, w.f.Trainee.ID, when)).Into(t, &first)
		want := time.Date(0, 1, 1, 18, 0, 0, 0, time.UTC)
		if local := first.StartsAt.In(w.zone); local.Hour() != want.Hour() || local.Format(time.DateOnly) != w.day(3) || !first.SlotOpened ||
			first.Status != "booked" || first.CoachID != w.f.Coach.ID || first.Place != "Room 1" || first.LengthMin != 60 {
			t.Fatalf("booked = %+v", first)
		}
		// The same booking again is the one booking.
		var again appointments.Booked
		e.OK(200, w.book(k, w.f.Trainee.ID, when)).Into(t, &again)
		if again.ID != first.ID {
			t.Fatalf("a repeated booking made %s beside %s", again.ID, first.ID)
		}
		// The one-to-one slot is full: the next trainee waits.
		var wait appointments.Booked
		e.OK(201, w.book(k, w.other.Trainee, map[string]any{"day": w.day(3), "time": "18:00"})).Into(t, &wait)
		if wait.Status != "waitlisted" || wait.Position == nil || *wait.Position != 1 || wait.SlotID != first.SlotID || wait.SlotOpened {
			t.Fatalf("waitlisted = %+v", wait)
		}
		a := e.Fails(409, "CONFLICT", w.book(k, w.other.Trainee, map[string]any{"day": w.day(3), "time": "18:30"}))
		if !strings.Contains(a.Message(), "overlaps it") {
			t.Errorf("a booking overlapping the coach's slot: %s", a.Message())
		}
		// Outside her hours, in words that name them.
		a = e.Fails(422, "VALIDATION", w.book(k, w.f.Trainee.ID, map[string]any{"day": w.day(4), "time": "22:00"}))
		if !kit.Names(a.Fields(), "time") || !strings.Contains(a.Message(), "07:00–21:00") {
			t.Errorf("outside her hours: %s", a.Raw)
		}
		e.Refused("time", w.book(k, w.f.Trainee.ID, map[string]any{"day": w.day(4), "time": "20:30"})) // 60 minutes run past 21:00
		e.Refused("day", w.book(k, w.f.Trainee.ID, map[string]any{"day": "someday", "time": "10:00"}))
		e.Refused("time", w.book(k, w.f.Trainee.ID, map[string]any{"day": "tomorrow", "time": "25:00"}))
		e.Refused("day", w.book(k, w.f.Trainee.ID, map[string]any{"time": "10:00"}))
		e.Refused("time", w.book(k, w.f.Trainee.ID, map[string]any{"day": w.day(-1), "time": "10:00"}))
		// A weekday word: the next one, in the studio's zone.
		var wd appointments.Booked
		weekday := strings.ToLower(w.clock.Now().In(w.zone).AddDate(0, 0, 2).Weekday().String())
		e.OK(201, w.book(k, w.f.Trainee.ID, map[string]any{"day": weekday, "time": "08:30", "lengthMin": 45})).Into(t, &wd)
		if got := wd.StartsAt.In(w.zone); got.Format(time.DateOnly) != w.day(2) || got.Hour() != 8 || got.Minute() != 30 || wd.LengthMin != 45 {
			t.Errorf("%s 08:30 = %s", weekday, got)
		}

		// A group slot takes its capacity, then the waiting list, or a refusal.
		var slot appointments.SlotView
		e.OK(201, e.Call(k, "POST", "/appointment-slots", map[string]any{"coachId": w.f.Coach.ID, "day": w.day(5), "time": "07:00", "capacity": 1, "place": "Hall"})).Into(t, &slot)
		e.OK(201, w.book(k, w.f.Trainee.ID, map[string]any{"slotId": slot.ID}))
		e.Fails(409, "CONFLICT", w.book(k, w.other.Trainee, map[string]any{"slotId": slot.ID, "waitlist": false}))
		e.Fails(409, "CONFLICT", e.Call(k, "POST", "/appointment-slots", map[string]any{"coachId": w.f.Coach.ID, "day": w.day(5), "time": "07:30"}))

		// What's on a day, in one call.
		var day kit.List[appointments.View]
		e.OK(200, e.Call(k, "GET", "/appointments?from="+w.day(3)+"&to="+w.day(3), nil)).Into(t, &day)
		if day.Total != 2 || day.Items[0].Trainee == "" || day.Items[0].Coach != w.f.Coach.Name {
			t.Fatalf("the day's appointments = %+v", day)
		}
		var slots kit.List[appointments.SlotView]
		e.OK(200, e.Call(k, "GET", "/appointment-slots?from="+w.day(3)+"&to="+w.day(5), nil)).Into(t, &slots)
		if slots.Total != 2 || slots.Items[0].Left != 0 || slots.Items[0].Waitlisted != 1 {
			t.Fatalf("slots = %+v", slots)
		}

		// A dry run keeps nothing.
		var dry struct {
			DryRun bool
			Status int
		}
		e.OK(200, e.Call(k, "POST", "/trainees/"+w.f.Trainee.ID+"/appointments", map[string]any{"day": w.day(6), "time": "12:00"}, "Prefer", "dry-run")).Into(t, &dry)
		if !dry.DryRun || dry.Status != 201 {
			t.Errorf("dry run = %+v", dry)
		}
		e.OK(200, e.Call(k, "GET", "/appointments?from="+w.day(6)+"&to="+w.day(6), nil)).Into(t, &day)
		if day.Total != 0 {
			t.Errorf("a dry run kept %d appointments", day.Total)
		}
	})
}

func TestCancellingMovesTheWaitingListUp(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		w := newWorld(t, st, "cancel")
		e, k := w.e, w.f.Key
		e.OK(200, e.Call(k, "PATCH", "/appointment-settings", map[string]any{"notifyWaitlistPromotion": true}))
		var first, wait appointments.Booked
		e.OK(201, w.book(k, w.f.Trainee.ID, map[string]any{"day": w.day(3), "time": "10:00"})).Into(t, &first)
		e.OK(201, w.book(k, w.other.Trainee, map[string]any{"day": w.day(3), "time": "10:00"})).Into(t, &wait)

		// Three days ahead is earlier than 12 hours: the credit is given back.
		var c appointments.CancelAnswer
		e.OK(200, e.Call(k, "POST", "/appointments/"+first.ID+"/cancel", nil)).Into(t, &c)
		if c.Status != "cancelled" || c.CreditKept || c.Promoted == nil || *c.Promoted != wait.ID {
			t.Fatalf("cancelled = %+v", c)
		}
		var moved appointments.View
		e.OK(200, e.Call(k, "GET", "/appointments/"+wait.ID, nil)).Into(t, &moved)
		if moved.Status != "booked" || moved.Position != nil {
			t.Fatalf("the waiting trainee = %+v", moved)
		}
		notes := e.Notifications(w.f.Studio.ID)
		found := false
		for _, n := range notes {
			if n.Kind == "appointment_waitlist_promoted" && n.TraineeID == w.other.Trainee {
				found = true
			}
		}
		if !found {
			t.Errorf("the promoted trainee was not told, with notifyWaitlistPromotion on: %+v", notes)
		}
		e.Fails(409, "CONFLICT", e.Call(k, "POST", "/appointments/"+first.ID+"/cancel", nil))

		// A week's notice asked: three days is late, and the credit is kept.
		e.OK(200, e.Call(k, "PATCH", "/appointment-settings", map[string]any{"lateCancelHours": 168, "notifyWaitlistPromotion": false}))
		e.OK(200, e.Call(k, "POST", "/appointments/"+wait.ID+"/cancel", nil)).Into(t, &c)
		if c.Status != "late_cancelled" || !c.CreditKept || c.Promoted != nil {
			t.Fatalf("late = %+v", c)
		}
		e.Refused("lateCancelHours", e.Call(k, "PATCH", "/appointment-settings", map[string]any{"lateCancelHours": 1000}))
	})
}

func TestMarkingAndTheRoster(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		w := newWorld(t, st, "mark")
		e, k := w.e, w.f.Key
		var a, b appointments.Booked
		e.OK(201, w.book(k, w.f.Trainee.ID, map[string]any{"day": w.day(1), "time": "08:00"})).Into(t, &a)
		e.OK(201, w.book(k, w.f.Trainee.ID, map[string]any{"day": w.day(1), "time": "11:00"})).Into(t, &b)

		// Her overview names the next one.
		var ov training.Overview
		e.OK(200, e.Call(k, "GET", "/trainees/"+w.f.Trainee.ID+"/overview", nil)).Into(t, &ov)
		if !slices.ContainsFunc(ov.More, func(s string) bool { return strings.HasPrefix(s, "Next appointment: ") && strings.Contains(s, "08:00") }) {
			t.Errorf("overview = %q", ov.More)
		}

		e.Refused("status", e.Call(k, "POST", "/appointments/"+a.ID+"/mark", map[string]any{"status": "no_show"})) // not begun
		w.clock.Advance(time.Until(a.StartsAt) + 49*time.Hour)
		e.Refused("sessionId", e.Call(k, "POST", "/appointments/"+a.ID+"/mark", map[string]any{"status": "attended", "sessionId": w.other.Session}))
		e.Refused("sessionId", e.Call(k, "POST", "/appointments/"+a.ID+"/mark", map[string]any{"status": "no_show", "sessionId": w.f.Session.ID}))
		var marked appointments.View
		e.OK(200, e.Call(k, "POST", "/appointments/"+a.ID+"/mark", map[string]any{"status": "attended", "sessionId": w.f.Session.ID})).Into(t, &marked)
		if marked.Status != "attended" || marked.SessionID == nil || *marked.SessionID != w.f.Session.ID {
			t.Fatalf("attended = %+v", marked)
		}
		e.OK(200, e.Call(k, "POST", "/appointments/"+b.ID+"/mark", map[string]any{"status": "no_show"}))

		var attention struct{ Items []training.Attention }
		e.OK(200, e.Call(k, "GET", "/trainees/needs-attention", nil)).Into(t, &attention)
		i := slices.IndexFunc(attention.Items, func(x training.Attention) bool { return x.TraineeID == w.f.Trainee.ID })
		if i < 0 || !slices.ContainsFunc(attention.Items[i].Reasons, func(r training.Reason) bool { return r.Code == appointments.ReasonNoShow }) {
			t.Errorf("no no_show reason on the roster: %+v", attention.Items)
		}
		var noShows struct{ Items []training.Attention }
		e.OK(200, e.Call(k, "GET", "/trainees/needs-attention?reason=no_show", nil)).Into(t, &noShows)
		if len(noShows.Items) != 1 || noShows.Items[0].TraineeID != w.f.Trainee.ID {
			t.Errorf("who missed an appointment, in one call: %+v", noShows.Items)
		}
	})
}

// Another studio's ids, and another trainee's, are not found; a trainee
// books, lists and cancels only her own, and marks nothing.
func TestAppointmentTenancy(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		w := newWorld(t, st, "ten-a")
		e, k := w.e, w.f.Key
		theirs := e.Seed("ten-b")
		var mine appointments.Booked
		e.OK(201, w.book(k, w.f.Trainee.ID, map[string]any{"day": w.day(3), "time": "14:00"})).Into(t, &mine)
		e.Fails(404, "NOT_FOUND", e.Call(theirs.Key, "GET", "/appointments/"+mine.ID, nil))
		e.Fails(404, "NOT_FOUND", e.Call(theirs.Key, "POST", "/appointments/"+mine.ID+"/cancel", nil))
		e.Fails(404, "NOT_FOUND", e.Call(theirs.Key, "POST", "/appointments/"+mine.ID+"/mark", map[string]any{"status": "no_show"}))
		e.Fails(404, "NOT_FOUND", w.book(theirs.Key, theirs.Trainee.ID, map[string]any{"slotId": mine.SlotID}))
		e.Fails(404, "NOT_FOUND", w.book(k, w.f.Trainee.ID, map[string]any{"day": w.day(3), "time": "12:00", "coachId": theirs.Coach.ID}))
		e.Fails(404, "NOT_FOUND", e.Call(theirs.Key, "GET", "/coaches/"+w.f.Coach.ID+"/hours", nil))

		// Her own token.
		hers := e.TraineeToken(w.f)
		var own kit.List[map[string]any]
		e.OK(200, e.Call(hers, "GET", "/trainees/me/appointments", nil)).Into(t, &own)
		if own.Total != 2 || !slices.ContainsFunc(own.Items, func(x map[string]any) bool { return x["id"] == mine.ID }) || own.Items[0]["traineeId"] != nil || own.Items[0]["coach"] != nil {
			t.Fatalf("her list = %+v", own)
		}
		var booked map[string]any
		e.OK(201, e.Call(hers, "POST", "/trainees/me/appointments", map[string]any{"day": w.day(3), "time": "16:00"})).Into(t, &booked)
		if booked["status"] != "booked" || booked["slotOpened"] != true {
			t.Fatalf("her booking = %+v", booked)
		}
		other := e.Grant(w.f.Studio.ID, w.other.Trainee, auth.TraineeScopes...)
		e.Fails(404, "NOT_FOUND", e.Call(other, "GET", "/appointments/"+mine.ID, nil))
		e.Fails(404, "NOT_FOUND", e.Call(other, "POST", "/appointments/"+mine.ID+"/cancel", nil))
		e.Fails(403, "FORBIDDEN", e.Call(hers, "POST", "/appointments/"+mine.ID+"/mark", map[string]any{"status": "attended"}))
		e.OK(200, e.Call(hers, "POST", "/appointments/"+mine.ID+"/cancel", nil))
	})
}

// Two trainees booking the last place at once through the lane: one
// holds it, the other waits.
func TestTheLastPlaceAtOnce(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		w := newWorld(t, st, "race")
		e, k := w.e, w.f.Key
		for round := range 3 {
			var slot appointments.SlotView
			e.OK(201, e.Call(k, "POST", "/appointment-slots", map[string]any{"coachId": w.f.Coach.ID, "day": w.day(round + 1), "time": "12:00", "capacity": 1})).Into(t, &slot)
			var wg sync.WaitGroup
			got := make([]appointments.Booked, 2)
			status := make([]int, 2)
			for i, tr := range []string{w.f.Trainee.ID, w.other.Trainee} {
				wg.Go(func() {
					a, err := e.Try(k, "POST", "/trainees/"+tr+"/appointments", map[string]any{"slotId": slot.ID})
					if err != nil {
						t.Error(err)
						return
					}
					status[i] = a.Status
					a.Into(t, &got[i])
				})
			}
			wg.Wait()
			states := []string{got[0].Status, got[1].Status}
			slices.Sort(states)
			if status[0] != 201 || status[1] != 201 || !slices.Equal(states, []string{"booked", "waitlisted"}) {
				t.Fatalf("round %d: %v %+v", round, status, got)
			}
		}
	})
}

func TestCalendarFeed(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		w := newWorld(t, st, "feed")
		e, k := w.e, w.f.Key
		e.OK(201, w.book(k, w.f.Trainee.ID, map[string]any{"day": w.day(3), "time": "14:00", "place": "Room; 1, upstairs"}))
		mux := http.NewServeMux()
		mux.Handle(appointments.FeedPattern, appointments.Feed(st, nil, w.clock.Now))
		srv := httptest.NewServer(mux)
		t.Cleanup(srv.Close)
		get := func(path string) (int, string) {
			resp, err := srv.Client().Get(srv.URL + path)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			return resp.StatusCode, string(b)
		}

		var feed appointments.FeedAnswer
		e.OK(201, e.Call(k, "POST", "/coaches/"+w.f.Coach.ID+"/calendar-feed", nil)).Into(t, &feed)
		code, body := get(feed.Path)
		if code != 200 || !strings.HasPrefix(body, "BEGIN:VCALENDAR\r\n") || !strings.Contains(body, "SUMMARY:Dana Levi-feed\r\n") ||
			!strings.Contains(body, `LOCATION:Room\; 1\, upstairs`) || strings.Count(body, "BEGIN:VEVENT") != 2 /* the seeded one too */ {
			t.Fatalf("feed: %d\n%s", code, body)
		}
		var rotated appointments.FeedAnswer
		e.OK(201, e.Call(k, "POST", "/coaches/"+w.f.Coach.ID+"/calendar-feed", nil)).Into(t, &rotated)
		if code, _ := get(feed.Path); code != 404 {
			t.Errorf("a rotated feed answers %d", code)
		}
		if code, _ := get(rotated.Path); code != 200 {
			t.Errorf("the new feed answers %d", code)
		}
		e.OK(200, e.Call(k, "DELETE", "/coaches/"+w.f.Coach.ID+"/calendar-feed", nil))
		for _, p := range []string{rotated.Path, "/calendar/pfcal_nothing.ics", "/calendar/x"} {
			if code, _ := get(p); code != 404 {
				t.Errorf("%s answers %d", p, code)
			}
		}
	})
}

// A trainee on a two-session package: each booked place uses a credit, a
// cancellation in time gives it back and a late one keeps it, a place on
// the waiting list uses none until it moves up, and with none left a
// booking is refused in words. The fixture's trainee, on a plan that
// counts no sessions, books without a credit.
func TestBookingsUseCredits(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		w := newWorld(t, st, "credits")
		e, k := w.e, w.f.Key
		ss := st.Studio(w.f.Studio.ID)
		two := domain.Product{Name: "Two sessions", Currency: "ILS", Active: true, Kind: domain.PlanPackage, Sessions: ptr(2), ValidDays: ptr(60)}
		if err := ss.CreateProduct(context.Background(), &two); err != nil {
			t.Fatal(err)
		}
		e.OK(201, e.Call(k, "POST", "/trainees/"+w.other.Trainee+"/subscription", map[string]any{"productId": two.ID, "startedOn": w.day(0), "price": 200, "notify": false}))
		left := func() int {
			t.Helper()
			credits, err := ss.ListCredits(context.Background(), []string{w.other.Trainee}, w.clock.Now())
			if err != nil || len(credits[w.other.Trainee]) != 1 || credits[w.other.Trainee][0].Left == nil {
				t.Fatalf("credits = %+v, %v", credits, err)
			}
			return *credits[w.other.Trainee][0].Left
		}
		var a1, a2 appointments.Booked
		e.OK(201, w.book(k, w.other.Trainee, map[string]any{"day": w.day(3), "time": "09:00"})).Into(t, &a1)
		e.OK(201, w.book(k, w.other.Trainee, map[string]any{"day": w.day(4), "time": "09:00"})).Into(t, &a2)
		if n := left(); n != 0 {
			t.Fatalf("two bookings leave %d credits", n)
		}
		a := e.Fails(409, "CONFLICT", w.book(k, w.other.Trainee, map[string]any{"day": w.day(5), "time": "09:00"}))
		if !strings.Contains(a.Message(), "no session credit left") {
			t.Errorf("a booking without a credit: %s", a.Message())
		}
		e.OK(200, e.Call(k, "POST", "/appointments/"+a1.ID+"/cancel", nil))
		if n := left(); n != 1 {
			t.Fatalf("a cancellation in time leaves %d credits, want 1", n)
		}
		e.OK(200, e.Call(k, "PATCH", "/appointment-settings", map[string]any{"lateCancelHours": 168}))
		e.OK(200, e.Call(k, "POST", "/appointments/"+a2.ID+"/cancel", nil))
		if n := left(); n != 1 {
			t.Fatalf("a late cancellation leaves %d credits, want 1 (its credit kept)", n)
		}
		// Waiting uses nothing; moving up uses her last credit.
		var held, wait appointments.Booked
		e.OK(201, w.book(k, w.f.Trainee.ID, map[string]any{"day": w.day(6), "time": "09:00"})).Into(t, &held)
		e.OK(201, w.book(k, w.other.Trainee, map[string]any{"day": w.day(6), "time": "09:00"})).Into(t, &wait)
		if wait.Status != "waitlisted" || left() != 1 {
			t.Fatalf("waiting = %+v, %d credits", wait, left())
		}
		e.OK(200, e.Call(k, "POST", "/appointments/"+held.ID+"/cancel", nil))
		if n := left(); n != 0 {
			t.Fatalf("moving up leaves %d credits, want 0", n)
		}
	})
}

func ptr[T any](v T) *T { return &v }

// The same booking sent twice at once (a client's retry without a key) is
// one appointment in one slot opened for it, both answers naming it.
func TestTheSameBookingTwiceAtOnce(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		w := newWorld(t, st, "twice")
		e, k := w.e, w.f.Key
		var wg sync.WaitGroup
		got := make([]appointments.Booked, 2)
		status := make([]int, 2)
		for i := range 2 {
			wg.Go(func() {
				a, err := e.Try(k, "POST", "/trainees/"+w.other.Trainee+"/appointments", map[string]any{"day": w.day(4), "time": "15:00"})
				if err != nil {
					t.Error(err)
					return
				}
				status[i] = a.Status
				a.Into(t, &got[i])
			})
		}
		wg.Wait()
		codes := []int{status[0], status[1]}
		slices.Sort(codes)
		if !slices.Equal(codes, []int{200, 201}) || got[0].ID != got[1].ID || got[0].ID == "" {
			t.Fatalf("twice at once: %v %+v", codes, got)
		}
		var day kit.List[appointments.View]
		e.OK(200, e.Call(k, "GET", "/appointments?from="+w.day(4)+"&to="+w.day(4)+"&traineeId="+w.other.Trainee, nil)).Into(t, &day)
		if day.Total != 1 {
			t.Fatalf("%d appointments, want 1", day.Total)
		}
	})
}

// A move is one step: the new place booked, the old one cancelled (not
// late); a time that cannot be booked keeps the old one; her own token
// moves only her own.
func TestMovingAnAppointment(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		w := newWorld(t, st, "move")
		e, k := w.e, w.f.Key
		e.OK(200, e.Call(k, "PATCH", "/appointment-settings", map[string]any{"lateCancelHours": 168}))
		var first appointments.Booked
		e.OK(201, w.book(k, w.other.Trainee, map[string]any{"day": w.day(3), "time": "10:00"})).Into(t, &first)
		e.Refused("time", e.Call(k, "POST", "/appointments/"+first.ID+"/move", map[string]any{"day": w.day(4), "time": "22:00"}))
		var still appointments.View
		e.OK(200, e.Call(k, "GET", "/appointments/"+first.ID, nil)).Into(t, &still)
		if still.Status != "booked" {
			t.Fatalf("a refused move left %+v", still)
		}
		var moved appointments.Moved
		e.OK(200, e.Call(k, "POST", "/appointments/"+first.ID+"/move", map[string]any{"day": w.day(4), "time": "11:00"})).Into(t, &moved)
		if moved.From != first.ID || moved.ID == first.ID || moved.Status != "booked" || moved.StartsAt.In(w.zone).Hour() != 11 || moved.CoachID != w.f.Coach.ID {
			t.Fatalf("moved = %+v", moved)
		}
		e.OK(200, e.Call(k, "GET", "/appointments/"+first.ID, nil)).Into(t, &still)
		if still.Status != "cancelled" { // within lateCancelHours, yet a move is never late
			t.Fatalf("the old one is %s", still.Status)
		}
		hers := e.TraineeToken(w.f)
		e.Fails(404, "NOT_FOUND", e.Call(hers, "POST", "/appointments/"+moved.ID+"/move", map[string]any{"day": w.day(5), "time": "11:00"}))
	})
}

// A trainee moves her own appointment through the coach's route, by the
// same rules: one step, the old place to the first waiting (told, when the
// studio says so), the same move twice one move, audited. A full slot
// keeps her place unless she asks to wait; within the studio's notice her
// move is refused in words that name it, and her coach's is not.
func TestATraineeMovesHerOwnAppointment(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		w := newWorld(t, st, "trainee-move")
		e, k := w.e, w.f.Key
		hers := e.TraineeToken(w.f)
		e.OK(200, e.Call(k, "PATCH", "/appointment-settings", map[string]any{"notifyWaitlistPromotion": true}))
		var mine, waiting, full appointments.Booked
		e.OK(201, w.book(hers, "me", map[string]any{"day": w.day(3), "time": "10:00"})).Into(t, &mine)
		e.OK(201, w.book(k, w.other.Trainee, map[string]any{"day": w.day(3), "time": "10:00"})).Into(t, &waiting)
		e.OK(201, w.book(k, w.other.Trainee, map[string]any{"day": w.day(4), "time": "12:00"})).Into(t, &full)
		if waiting.Status != "waitlisted" || full.Status != "booked" {
			t.Fatalf("waiting = %+v, full = %+v", waiting, full)
		}

		// Another trainee's appointment is not found, to move as to cancel.
		e.Fails(404, "NOT_FOUND", e.Call(hers, "POST", "/appointments/"+full.ID+"/move", map[string]any{"day": w.day(5), "time": "12:00"}))
		// A full slot: refused unless she asks to wait, and hers is kept.
		a := e.Fails(409, "CONFLICT", e.Call(hers, "POST", "/appointments/"+mine.ID+"/move", map[string]any{"day": w.day(4), "time": "12:00"}))
		if !strings.Contains(a.Message(), "waitlist true") {
			t.Errorf("a move into a full slot: %s", a.Message())
		}
		var still appointments.View
		e.OK(200, e.Call(k, "GET", "/appointments/"+mine.ID, nil)).Into(t, &still)
		if still.Status != "booked" {
			t.Fatalf("a refused move left %+v", still)
		}

		// The move, twice with one key: one move.
		body := map[string]any{"day": w.day(5), "time": "09:30"}
		var moved, again appointments.Moved
		e.OK(200, e.Call(hers, "POST", "/appointments/"+mine.ID+"/move", body, "Idempotency-Key", "move-1")).Into(t, &moved)
		replay := e.OK(200, e.Call(hers, "POST", "/appointments/"+mine.ID+"/move", body, "Idempotency-Key", "move-1"))
		replay.Into(t, &again)
		if moved.Status != "booked" || moved.StartsAt.In(w.zone).Format("2006-01-02 15:04") != w.day(5)+" 09:30" ||
			again.ID != moved.ID || replay.Header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("moved = %+v, again = %+v (%s)", moved, again, replay.Header)
		}
		var day kit.List[appointments.View]
		e.OK(200, e.Call(k, "GET", "/appointments?from="+w.day(5)+"&to="+w.day(5)+"&traineeId="+w.f.Trainee.ID, nil)).Into(t, &day)
		if day.Total != 1 || day.Items[0].BookedBy != "trainee" {
			t.Fatalf("her day after the move: %+v", day)
		}
		// Her old place went to the first waiting, who was told.
		e.OK(200, e.Call(k, "GET", "/appointments/"+waiting.ID, nil)).Into(t, &still)
		if still.Status != "booked" {
			t.Fatalf("the waiting trainee = %+v", still)
		}
		if !slices.ContainsFunc(e.Notifications(w.f.Studio.ID), func(n domain.Notification) bool {
			return n.Kind == "appointment_waitlist_promoted" && n.TraineeID == w.other.Trainee
		}) {
			t.Errorf("the trainee moved up into the place a move freed was not told")
		}
		// Onto a time she already holds: refused, both kept (not one
		// booking made again).
		var second appointments.Booked
		e.OK(201, w.book(hers, "me", map[string]any{"day": w.day(2), "time": "11:00"})).Into(t, &second)
		a = e.Fails(409, "CONFLICT", e.Call(hers, "POST", "/appointments/"+second.ID+"/move", body))
		if !strings.Contains(a.Message(), "already has an appointment at") {
			t.Errorf("a move onto her own time: %s", a.Message())
		}
		e.OK(200, e.Call(k, "GET", "/appointments/"+second.ID, nil)).Into(t, &still)
		if still.Status != "booked" {
			t.Fatalf("a move onto her own time left %+v", still)
		}
		// A moved appointment moves no more.
		e.Fails(409, "CONFLICT", e.Call(hers, "POST", "/appointments/"+mine.ID+"/move", map[string]any{"day": w.day(6), "time": "09:30"}))

		// Within the studio's notice: her move is refused, naming it; the
		// coach's is not.
		e.OK(200, e.Call(k, "PATCH", "/appointment-settings", map[string]any{"lateCancelHours": 168}))
		a = e.Fails(409, "CONFLICT", e.Call(hers, "POST", "/appointments/"+moved.ID+"/move", map[string]any{"day": w.day(6), "time": "09:30"}))
		if !strings.Contains(a.Message(), "less than 168 hours away") || !strings.Contains(a.Message(), "ask your coach") {
			t.Errorf("a late move: %s", a.Message())
		}
		e.OK(200, e.Call(k, "GET", "/appointments/"+moved.ID, nil)).Into(t, &still)
		if still.Status != "booked" {
			t.Fatalf("a refused late move left %+v", still)
		}
		var byCoach appointments.Moved
		e.OK(200, e.Call(k, "POST", "/appointments/"+moved.ID+"/move", map[string]any{"day": w.day(6), "time": "09:30"})).Into(t, &byCoach)
		if byCoach.Status != "booked" || byCoach.BookedBy != "coach" {
			t.Fatalf("the coach's move = %+v", byCoach)
		}

		// Her move is audited as the move of her appointment.
		e.Audit.Flush()
		l, err := st.ListAudit(t.Context(), w.f.Studio.ID, store.Page{Limit: 200})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(l.Items, func(ev domain.AuditEvent) bool {
			return ev.Route == "POST /v1/automation/appointments/{id}/move" && ev.ResourceID == mine.ID && ev.Status == 200
		}) {
			t.Errorf("her move is not in the audit")
		}
	})
}
