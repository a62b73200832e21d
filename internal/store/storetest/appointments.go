package storetest

import (
	"bytes"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
)

func newCoach(t *testing.T, ss store.StudioStore, name string) domain.Coach {
	t.Helper()
	c := domain.Coach{Name: name, Active: true}
	must(t, "CreateCoach", ss.CreateCoach(ctx, &c))
	return c
}

func testAppointments(t *testing.T, st store.Store) {
	a, b := newStudio(t, st), newStudio(t, st)
	ss, other := st.Studio(a.ID), st.Studio(b.ID)
	coach, theirs := newCoach(t, ss, "Dana"), newCoach(t, other, "Other")
	noa, omer := newTrainee(t, ss, "Noa", "Slot"), newTrainee(t, ss, "Omer", "Slot")
	stranger := newTrainee(t, other, "Far", "Away")
	base := time.Date(2026, 12, 8, 16, 0, 0, 0, time.UTC)
	at := base.Add(-48 * time.Hour)

	// Hours replace, and are one studio's.
	hours := []domain.WorkingHours{{Weekday: time.Tuesday, Start: 16 * 60, End: 21 * 60}, {Weekday: time.Sunday, Start: 8 * 60, End: 12 * 60}}
	must(t, "SetCoachHours", ss.SetCoachHours(ctx, coach.ID, hours))
	got, err := ss.CoachHours(ctx, coach.ID)
	must(t, "CoachHours", err)
	if len(got) != 2 || got[0].Weekday != time.Sunday || got[1].Start != 960 || got[1].End != 1260 {
		t.Fatalf("CoachHours = %+v", got)
	}
	mustNotFound(t, "SetCoachHours of another studio's coach", ss.SetCoachHours(ctx, theirs.ID, hours))

	// Slots: one coach's never overlap; another studio's is not found.
	group := domain.Slot{CoachID: coach.ID, StartsAt: base, LengthMin: 60, Place: "Studio A", Capacity: 2}
	must(t, "CreateSlot", ss.CreateSlot(ctx, &group))
	if !group.EndsAt.Equal(base.Add(time.Hour)) || group.ID == "" {
		t.Fatalf("CreateSlot = %+v", group)
	}
	overlap := domain.Slot{CoachID: coach.ID, StartsAt: base.Add(30 * time.Minute), LengthMin: 60, Capacity: 1}
	var clash *store.ClashError
	if err := ss.CreateSlot(ctx, &overlap); !errors.As(err, &clash) || clash.Who != "coach" || clash.ID != group.ID {
		t.Fatalf("an overlapping slot: %v", err)
	}
	_, err = other.GetSlot(ctx, group.ID)
	mustNotFound(t, "GetSlot of another studio", err)
	theirSlot := domain.Slot{CoachID: coach.ID, StartsAt: base, LengthMin: 60, Capacity: 1}
	mustNotFound(t, "CreateSlot for another studio's coach", other.CreateSlot(ctx, &theirSlot))

	// Booking: places, then the waiting list, then full.
	bk, err := ss.Book(ctx, store.Booking{TraineeID: noa.ID, SlotID: group.ID, BookedBy: domain.LoggedByCoach, At: at})
	must(t, "Book", err)
	if bk.Appointment.Status != domain.AppointmentBooked || bk.Slot.Booked != 1 || bk.Appointment.Place != "Studio A" || !bk.Appointment.StartsAt.Equal(base) {
		t.Fatalf("Book = %+v", bk)
	}
	if _, err := ss.Book(ctx, store.Booking{TraineeID: noa.ID, SlotID: group.ID, BookedBy: domain.LoggedByCoach, At: at}); !errors.As(err, &clash) || clash.Who != "trainee" || clash.ID != bk.Appointment.ID {
		t.Fatalf("booking the same trainee twice: %v", err)
	}
	_, err = other.Book(ctx, store.Booking{TraineeID: stranger.ID, SlotID: group.ID, BookedBy: domain.LoggedByCoach, At: at})
	mustNotFound(t, "Book another studio's slot", err)
	_, err = ss.Book(ctx, store.Booking{TraineeID: stranger.ID, SlotID: group.ID, BookedBy: domain.LoggedByCoach, At: at})
	mustNotFound(t, "Book another studio's trainee", err)

	// At a time: the coach's slot then, or a one-to-one slot opened.
	open, err := ss.Book(ctx, store.Booking{TraineeID: omer.ID, CoachID: coach.ID, StartsAt: base.Add(2 * time.Hour), LengthMin: 45, Place: "Room 2", BookedBy: domain.LoggedByTrainee, At: at})
	must(t, "Book at a time", err)
	if !open.Opened || open.Slot.Capacity != 1 || open.Slot.LengthMin != 45 || open.Appointment.BookedBy != domain.LoggedByTrainee {
		t.Fatalf("Book at a time = %+v", open)
	}
	joined, err := ss.Book(ctx, store.Booking{TraineeID: omer.ID, CoachID: coach.ID, StartsAt: base, BookedBy: domain.LoggedByCoach, At: at})
	must(t, "Book the group at its time", err)
	if joined.Opened || joined.Slot.ID != group.ID || joined.Appointment.Status != domain.AppointmentBooked {
		t.Fatalf("Book at the group's time = %+v", joined)
	}
	third := newTrainee(t, ss, "Third", "Slot")
	if _, err := ss.Book(ctx, store.Booking{TraineeID: third.ID, SlotID: group.ID, BookedBy: domain.LoggedByCoach, At: at}); !errors.Is(err, store.ErrSlotFull) {
		t.Fatalf("a full slot without the waiting list: %v", err)
	}
	wait, err := ss.Book(ctx, store.Booking{TraineeID: third.ID, SlotID: group.ID, Waitlist: true, BookedBy: domain.LoggedByCoach, At: at})
	must(t, "Book onto the waiting list", err)
	if wait.Appointment.Status != domain.AppointmentWaitlisted || wait.Appointment.Position == nil || *wait.Appointment.Position != 1 {
		t.Fatalf("waitlisted = %+v", wait.Appointment)
	}

	// The waiting list keeps 1 next: a second and a third wait, the second leaves.
	fourth, fifth := newTrainee(t, ss, "Fourth", "Slot"), newTrainee(t, ss, "Fifth", "Slot")
	w2, err := ss.Book(ctx, store.Booking{TraineeID: fourth.ID, SlotID: group.ID, Waitlist: true, BookedBy: domain.LoggedByCoach, At: at})
	must(t, "Book second in line", err)
	w3, err := ss.Book(ctx, store.Booking{TraineeID: fifth.ID, SlotID: group.ID, Waitlist: true, BookedBy: domain.LoggedByCoach, At: at})
	must(t, "Book third in line", err)
	if _, _, err := ss.CancelAppointment(ctx, w2.Appointment.ID, at, false); err != nil {
		t.Fatal(err)
	}
	if got, _ := ss.GetAppointment(ctx, w3.Appointment.ID); got.Position == nil || *got.Position != 2 {
		t.Fatalf("third in line after the second left: %+v", got.Position)
	}

	// Cancelling a booked place moves the waiting list up.
	c, promoted, err := ss.CancelAppointment(ctx, bk.Appointment.ID, at, true)
	must(t, "CancelAppointment", err)
	if c.Status != domain.AppointmentLateCancelled || promoted == nil || promoted.ID != wait.Appointment.ID || promoted.Status != domain.AppointmentBooked {
		t.Fatalf("cancel = %+v, promoted %+v", c, promoted)
	}
	if got, _ := ss.GetAppointment(ctx, w3.Appointment.ID); got.Position == nil || *got.Position != 1 {
		t.Fatalf("the last in line after one moved up: %+v", got.Position)
	}
	if _, _, err := ss.CancelAppointment(ctx, bk.Appointment.ID, at, false); err == nil {
		t.Fatal("a cancelled appointment cancelled again")
	}
	_, _, err = other.CancelAppointment(ctx, joined.Appointment.ID, at, false)
	mustNotFound(t, "CancelAppointment of another studio", err)

	// Marking, reading.
	m, err := ss.MarkAppointment(ctx, joined.Appointment.ID, domain.AppointmentNoShow, nil, base.Add(time.Hour))
	must(t, "MarkAppointment", err)
	if m.Status != domain.AppointmentNoShow {
		t.Fatalf("marked = %+v", m)
	}
	shows, err := ss.NoShows(ctx, base.Add(-time.Hour))
	must(t, "NoShows", err)
	if shows[omer.ID] != 1 || len(shows) != 1 {
		t.Fatalf("NoShows = %v", shows)
	}
	next, err := ss.NextAppointment(ctx, omer.ID, base.Add(time.Minute))
	must(t, "NextAppointment", err)
	if next.ID != open.Appointment.ID {
		t.Fatalf("NextAppointment = %+v", next)
	}
	_, err = ss.NextAppointment(ctx, noa.ID, base)
	mustNotFound(t, "NextAppointment of a trainee with none", err)
	day, err := ss.ListAppointments(ctx, store.AppointmentFilter{CoachID: coach.ID, From: base.Add(-time.Hour), To: base.Add(24 * time.Hour), Page: page(50, 0)})
	must(t, "ListAppointments", err)
	if day.Total != 6 || day.Items[0].StartsAt.After(day.Items[5].StartsAt) {
		t.Fatalf("ListAppointments = %+v", day)
	}
	slots, err := ss.ListSlots(ctx, store.SlotFilter{CoachID: coach.ID, From: base, To: base.Add(24 * time.Hour)})
	must(t, "ListSlots", err)
	if len(slots) != 2 || slots[0].ID != group.ID || slots[0].Booked != 1 || slots[0].Waitlisted != 1 {
		t.Fatalf("ListSlots = %+v", slots)
	}
	theirList, err := other.ListAppointments(ctx, store.AppointmentFilter{Page: page(50, 0)})
	must(t, "ListAppointments of the other studio", err)
	if theirList.Total != 0 {
		t.Fatalf("the other studio sees %d appointments", theirList.Total)
	}

	// Feeds: one token per coach, by its hash.
	must(t, "SetCoachFeed", ss.SetCoachFeed(ctx, coach.ID, []byte("hash-one-0123456789abcdef0123456"), at))
	must(t, "SetCoachFeed again", ss.SetCoachFeed(ctx, coach.ID, []byte("hash-two-0123456789abcdef0123456"), at))
	_, _, _, err = store.CoachFeed(ctx, st, []byte("hash-one-0123456789abcdef0123456"))
	mustNotFound(t, "a rotated feed token", err)
	sid, cid, h, err := store.CoachFeed(ctx, st, []byte("hash-two-0123456789abcdef0123456"))
	must(t, "CoachFeed", err)
	if sid != a.ID || cid != coach.ID || !bytes.Equal(h, []byte("hash-two-0123456789abcdef0123456")) {
		t.Fatalf("CoachFeed = %s %s", sid, cid)
	}
	mustNotFound(t, "SetCoachFeed of another studio's coach", other.SetCoachFeed(ctx, coach.ID, []byte("x"), at))
	if dropped, err := ss.DropCoachFeed(ctx, coach.ID); err != nil || !dropped {
		t.Fatalf("DropCoachFeed = %v %v", dropped, err)
	}
	if dropped, err := ss.DropCoachFeed(ctx, coach.ID); err != nil || dropped {
		t.Fatalf("DropCoachFeed again = %v %v", dropped, err)
	}
}

// Two trainees booking the last place at once: one has it, the other waits
// (or is refused without the waiting list); a booking and a cancellation
// of one slot at once leave one booked place.
func testAppointmentRaces(t *testing.T, st store.Store) {
	a := newStudio(t, st)
	ss := st.Studio(a.ID)
	coach := newCoach(t, ss, "Race")
	base := time.Date(2026, 12, 9, 16, 0, 0, 0, time.UTC)
	at := base.Add(-72 * time.Hour)
	for round := range 4 {
		slot := domain.Slot{CoachID: coach.ID, StartsAt: base.Add(time.Duration(round) * 2 * time.Hour), LengthMin: 60, Capacity: 1}
		must(t, "CreateSlot", ss.CreateSlot(ctx, &slot))
		x, y := newTrainee(t, ss, "X", "Race"), newTrainee(t, ss, "Y", "Race")
		waitlist := round%2 == 0
		var wg sync.WaitGroup
		results := make([]error, 2)
		outs := make([]store.Booked, 2)
		for i, tr := range []domain.Trainee{x, y} {
			wg.Go(func() {
				outs[i], results[i] = ss.Book(ctx, store.Booking{TraineeID: tr.ID, SlotID: slot.ID, Waitlist: waitlist, BookedBy: domain.LoggedByCoach, At: at})
			})
		}
		wg.Wait()
		booked, other := 0, 0
		for i := range 2 {
			switch {
			case results[i] == nil && outs[i].Appointment.Status == domain.AppointmentBooked:
				booked++
			case waitlist && results[i] == nil && outs[i].Appointment.Status == domain.AppointmentWaitlisted:
				other++
			case !waitlist && errors.Is(results[i], store.ErrSlotFull):
				other++
			default:
				t.Fatalf("round %d: booking %d = %+v, %v", round, i, outs[i], results[i])
			}
		}
		if booked != 1 || other != 1 {
			t.Fatalf("round %d: %d booked, %d waiting or refused", round, booked, other)
		}
	}

	// A booking and a cancellation at once.
	for round := range 4 {
		slot := domain.Slot{CoachID: coach.ID, StartsAt: base.Add(time.Duration(10+round) * 2 * time.Hour), LengthMin: 60, Capacity: 1}
		must(t, "CreateSlot", ss.CreateSlot(ctx, &slot))
		first, second := newTrainee(t, ss, "First", "Race"), newTrainee(t, ss, "Second", "Race")
		held, err := ss.Book(ctx, store.Booking{TraineeID: first.ID, SlotID: slot.ID, BookedBy: domain.LoggedByCoach, At: at})
		must(t, "Book", err)
		var wg sync.WaitGroup
		var bookErr, cancelErr error
		wg.Go(func() {
			_, bookErr = ss.Book(ctx, store.Booking{TraineeID: second.ID, SlotID: slot.ID, Waitlist: true, BookedBy: domain.LoggedByCoach, At: at})
		})
		wg.Go(func() { _, _, cancelErr = ss.CancelAppointment(ctx, held.Appointment.ID, at, false) })
		wg.Wait()
		must(t, "Book beside a cancellation", bookErr)
		must(t, "Cancel beside a booking", cancelErr)
		l, err := ss.ListAppointments(ctx, store.AppointmentFilter{SlotID: slot.ID, Page: page(10, 0)})
		must(t, "ListAppointments", err)
		booked := 0
		for _, x := range l.Items {
			switch {
			case x.Status == domain.AppointmentBooked && x.TraineeID == second.ID:
				booked++
			case x.Status == domain.AppointmentCancelled && x.TraineeID == first.ID:
			default:
				t.Fatalf("round %d: %+v", round, l.Items)
			}
		}
		if booked != 1 {
			t.Fatalf("round %d: the second trainee holds no place: %+v", round, l.Items)
		}
	}
}
