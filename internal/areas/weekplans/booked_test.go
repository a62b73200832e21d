package weekplans_test

import (
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/areas/appointments"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/lane/lanetest"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/training"
)

// TestBookedAppointmentIsAFixedDay is the weekly plan's side of the
// calendar, through the lane on both engines: she trains Monday, Wednesday
// and Friday; her coach books her for Saturday 01:00 in the studio's zone
// (Friday evening in UTC, so a day read in UTC would miss it). The week
// drafted then plans the Saturday, noted with the time and the coach; the
// draft before it is stale and says her appointments changed. Cancelled,
// the next draft supersedes that one for the same reason and leaves the
// Saturday out; a waitlisted booking plans nothing.
func TestBookedAppointmentIsAFixedDay(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		e := lanetest.NewTrainee(t, st, lanetest.TraineeOptions{})
		f := e.Seed("fixed")
		other := e.SecondTrainee(f)
		k, id := f.Key, f.Trainee.ID
		e.OK(200, e.Call(k, "PATCH", "/trainees/"+id+"/training-profile", map[string]any{
			"availability": []int{1, 3, 5}, "equipment": []string{"barbell", "rack", "bench", "dumbbell"}, "sessionMinutes": 60, "experience": "intermediate"}))
		var hours []map[string]string
		for _, d := range []string{"sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"} {
			hours = append(hours, map[string]string{"day": d, "from": "00:30", "to": "23:00"})
		}
		e.OK(200, e.Call(k, "PUT", "/coaches/"+f.Coach.ID+"/hours", map[string]any{"hours": hours}))

		zone := f.Studio.TimeZone()
		week, err := training.ParseWeek("next", lane.LocalDay(time.Now(), zone), f.Studio.FirstDay())
		if err != nil {
			t.Fatal(err)
		}
		start, _ := time.Parse(time.DateOnly, week)
		saturday := start.AddDate(0, 0, (int(time.Saturday)-int(f.Studio.FirstDay())+7)%7).Format(time.DateOnly)
		sunday := start.AddDate(0, 0, (int(time.Sunday)-int(f.Studio.FirstDay())+7)%7).Format(time.DateOnly)

		draft := func() draftAnswer {
			var d draftAnswer
			e.OK(201, e.Call(k, "POST", "/trainees/"+id+"/plan-drafts", map[string]any{"week": week})).Into(t, &d)
			return d
		}
		on := func(d draftAnswer, date string) int {
			for i, s := range d.Plan.Sessions {
				if s.Date == date {
					return i
				}
			}
			return -1
		}
		first := draft()
		if len(first.Plan.Sessions) != 3 || on(first, saturday) >= 0 {
			t.Fatalf("before any booking: %d sessions, Saturday %d", len(first.Plan.Sessions), on(first, saturday))
		}
		// The same ask with nothing changed answers the pending draft.
		var same draftAnswer
		e.OK(200, e.Call(k, "POST", "/trainees/"+id+"/plan-drafts", map[string]any{"week": week})).Into(t, &same)
		if same.ID != first.ID || !same.Existing {
			t.Fatalf("nothing changed and the pending draft was not answered: %+v", same)
		}

		var booked appointments.Booked
		e.OK(201, e.Call(k, "POST", "/trainees/"+id+"/appointments", map[string]any{"day": saturday, "time": "01:00"})).Into(t, &booked)
		if booked.StartsAt.UTC().Format(time.DateOnly) == saturday {
			t.Fatalf("01:00 in %s should fall on the day before in UTC: %s", zone, booked.StartsAt.UTC())
		}
		// Another trainee's booking and her waitlisted place plan nothing.
		e.OK(201, e.Call(k, "POST", "/trainees/"+other.Trainee+"/appointments", map[string]any{"day": sunday, "time": "09:00"}))
		var wait appointments.Booked
		e.OK(201, e.Call(k, "POST", "/trainees/"+id+"/appointments", map[string]any{"day": sunday, "time": "09:00"})).Into(t, &wait)
		if wait.Status != "waitlisted" {
			t.Fatalf("the full Sunday slot: %+v", wait)
		}

		second := draft()
		i := on(second, saturday)
		if i < 0 || len(second.Plan.Sessions) != 4 || on(second, sunday) >= 0 {
			t.Fatalf("after the Saturday booking: sessions %+v", second.Plan.Sessions)
		}
		if note := second.Plan.Sessions[i].Note; !strings.Contains(note, "01:00") || !strings.Contains(note, f.Coach.Name) {
			t.Errorf("the booked Saturday's note %q names neither 01:00 nor %s", note, f.Coach.Name)
		}
		if !second.Report.Valid {
			t.Errorf("the week with a booked day is not valid: %v", second.Report.Problems)
		}
		var was struct {
			Status           string  `json:"status"`
			SupersededReason *string `json:"supersededReason"`
		}
		e.OK(200, e.Call(k, "GET", "/plan-drafts/"+first.ID, nil)).Into(t, &was)
		if was.Status != "superseded" || was.SupersededReason == nil || !strings.Contains(*was.SupersededReason, "התורים") {
			t.Errorf("the draft before the booking: %s, %v; want superseded because her appointments changed", was.Status, was.SupersededReason)
		}

		e.OK(200, e.Call(k, "POST", "/appointments/"+booked.ID+"/cancel", nil))
		third := draft()
		if on(third, saturday) >= 0 || len(third.Plan.Sessions) != 3 {
			t.Errorf("after the cancellation the Saturday is still planned: %+v", third.Plan.Sessions)
		}
		e.OK(200, e.Call(k, "GET", "/plan-drafts/"+second.ID, nil)).Into(t, &was)
		if was.Status != "superseded" || was.SupersededReason == nil || !strings.Contains(*was.SupersededReason, "התורים") {
			t.Errorf("the draft with the booking after its cancellation: %s, %v", was.Status, was.SupersededReason)
		}
	})
}
