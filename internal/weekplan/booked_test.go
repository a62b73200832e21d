package weekplan

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/domain"
)

func appt(id, date, start, with, status string) Appointment {
	return Appointment{ID: id, Date: date, Start: start, Minutes: 60, With: with, Status: status}
}

// sessionOn is the plan's session dated date, nil when none.
func sessionOn(p Plan, date string) *Session {
	for i := range p.Sessions {
		if p.Sessions[i].Date == date {
			return &p.Sessions[i]
		}
	}
	return nil
}

func dates(p Plan) []string {
	var out []string
	for _, s := range p.Sessions {
		out = append(out, s.Date)
	}
	return out
}

// TestBookedDayOutsideHerDaysIsPlanned: a Saturday booking of a trainee
// who trains Monday, Wednesday and Friday is a fourth training day, its
// session says when and with whom, and the week says so; a waitlisted
// Tuesday and a cancelled Thursday are no training days.
func TestBookedDayOutsideHerDaysIsPlanned(t *testing.T) {
	t.Parallel()
	in := baseInput()
	in.Gender = "female"
	in.Booked = []Appointment{
		appt("apt_sat", "2026-12-12", "18:00", "Dana Levi", domain.AppointmentBooked),
		appt("apt_tue", "2026-12-08", "10:00", "Dana Levi", domain.AppointmentWaitlisted),
		appt("apt_thu", "2026-12-10", "10:00", "Dana Levi", domain.AppointmentCancelled),
	}
	p := generate(t, in)
	if got := dates(p); !slices.Equal(got, []string{"2026-12-07", "2026-12-09", "2026-12-11", "2026-12-12"}) {
		t.Fatalf("sessions on %v; want her Monday, Wednesday and Friday and the booked Saturday", got)
	}
	sat := sessionOn(p, "2026-12-12")
	if !strings.Contains(sat.Note, "Booked 18:00 with Dana Levi") || len(sat.Items) == 0 {
		t.Errorf("the booked Saturday's session: note %q, %d exercises", sat.Note, len(sat.Items))
	}
	for _, s := range p.Sessions {
		if s.Date != "2026-12-12" && strings.Contains(s.Note, "Booked") {
			t.Errorf("%s is not booked, and its note says %q", s.Date, s.Note)
		}
	}
	a := hasKind(p, AdjustBooked)
	if a == nil || !strings.Contains(a.Reason, "Saturday 18:00 with Dana Levi") || !strings.Contains(a.Reason, "Not among her days") {
		t.Errorf("the week's booked adjustment: %+v", a)
	}

	// Without the booking, the same week is her three days, unnoted.
	in.Booked = in.Booked[1:]
	p = generate(t, in)
	if got := dates(p); len(got) != 3 || hasKind(p, AdjustBooked) != nil {
		t.Errorf("waitlisted and cancelled appointments planned %v, adjustments %+v", got, p.Adjustments)
	}
}

// TestTwoAppointmentsOneDayAreOneSession: two bookings on one day make
// one session that names both times, in Hebrew too.
func TestTwoAppointmentsOneDayAreOneSession(t *testing.T) {
	t.Parallel()
	in := baseInput()
	in.Language, in.Gender = "he", "female"
	in.Booked = []Appointment{
		appt("apt_2", "2026-12-09", "18:00", "", domain.AppointmentBooked),
		appt("apt_1", "2026-12-09", "08:00", "דנה לוי", domain.AppointmentBooked),
	}
	in.Booked[0].With = "Studio A"
	p := generate(t, in)
	if len(p.Sessions) != 3 {
		t.Fatalf("sessions on %v; Wednesday is one of her days and holds both appointments", dates(p))
	}
	wed := sessionOn(p, "2026-12-09")
	if wed == nil || wed.Note != "נקבע: 08:00 עם דנה לוי ו-18:00 עם Studio A." {
		t.Errorf("Wednesday's note: %+v", wed)
	}
}

// TestBookedDayLeavesAFreeDayOut: a booked Tuesday between her Monday and
// Wednesday would make three days in a row, longer than her own week
// has: a free day of the run goes, never the booked one, and the week
// says which. Where her own days run three long, the same booking leaves
// every day in.
func TestBookedDayLeavesAFreeDayOut(t *testing.T) {
	t.Parallel()
	in := baseInput()
	in.Booked = []Appointment{appt("apt_tue", "2026-12-08", "18:00", "Dana Levi", domain.AppointmentBooked)}
	p := generate(t, in)
	if got := dates(p); !slices.Equal(got, []string{"2026-12-07", "2026-12-08", "2026-12-11"}) {
		t.Errorf("sessions on %v; want Monday, the booked Tuesday and Friday (Wednesday left free)", got)
	}
	if a := hasKind(p, AdjustBooked); a == nil || !strings.Contains(a.Reason, "Left free") || !strings.Contains(a.Reason, "Wednesday") {
		t.Errorf("the booked adjustment does not say Wednesday was left free: %+v", a)
	}

	// Two bookings around her Wednesday: both stay; the run is broken on
	// a free day.
	in.Booked = append(in.Booked, appt("apt_thu", "2026-12-10", "07:30", "Dana Levi", domain.AppointmentBooked))
	p = generate(t, in)
	got := dates(p)
	for _, d := range []string{"2026-12-08", "2026-12-10"} {
		if !slices.Contains(got, d) {
			t.Errorf("sessions on %v: the booked %s was dropped", got, d)
		}
	}
	if slices.Contains(got, "2026-12-09") {
		t.Errorf("sessions on %v: Wednesday makes a run of five", got)
	}

	// Her own days run Monday to Wednesday: a booked Thursday after them
	// is no longer a run than hers, so nothing goes.
	in = baseInput()
	in.Days = []int{1, 2, 3}
	in.Booked = []Appointment{appt("apt_fri", "2026-12-11", "18:00", "Dana Levi", domain.AppointmentBooked)}
	p = generate(t, in)
	if got := dates(p); len(got) != 4 {
		t.Errorf("sessions on %v; her three days and the booked Friday", got)
	}
}

// TestOnlyBookedDaysRunLongStay: bookings on three days in a row of which
// none is hers are all planned: only a free day is ever left out.
func TestOnlyBookedDaysRunLongStay(t *testing.T) {
	t.Parallel()
	in := baseInput()
	in.Days = []int{1}
	for _, d := range []string{"2026-12-09", "2026-12-10", "2026-12-11"} {
		in.Booked = append(in.Booked, appt("apt_"+d, d, "17:00", "Dana Levi", domain.AppointmentBooked))
	}
	p := generate(t, in)
	if got := dates(p); !slices.Equal(got, []string{"2026-12-07", "2026-12-09", "2026-12-10", "2026-12-11"}) {
		t.Errorf("sessions on %v; every booked day stays", got)
	}
}

// TestCapDropsAFreeDayNeverABookedOne: when the week's hard-set cap must
// take whole sessions away, a booked day's session is the last to go.
func TestCapDropsAFreeDayNeverABookedOne(t *testing.T) {
	t.Parallel()
	in := baseInput()
	in.Days = []int{1, 3, 5}
	in.Booked = []Appointment{appt("apt_fri", "2026-12-11", "18:00", "Dana Levi", domain.AppointmentBooked)}
	w, err := prepare(in)
	if err != nil {
		t.Fatal(err)
	}
	w.cap = 1 // a cap only one session's single exercise could keep under
	l := w.baseline()
	var days []int
	for _, d := range l.Sessions {
		days = append(days, d.Weekday)
	}
	if !slices.Contains(days, 5) {
		t.Errorf("the cap left sessions on %v and dropped the booked Friday", days)
	}
	if len(days) != 1 {
		t.Errorf("the cap left %d sessions (%v); the free ones go first", len(days), days)
	}
}

// TestBookedDaysOfADoneOrPastDay: a booked day already logged, or past,
// is left as it is; an attended appointment today holds today's session.
func TestBookedDaysOfADoneOrPastDay(t *testing.T) {
	t.Parallel()
	in := baseInput()
	in.Today = "2026-12-08" // Tuesday
	in.History = []domain.Session{{ID: "done", Date: "2026-12-09", Status: domain.SessionCompleted,
		Exercises: []domain.SessionExercise{{ExerciseID: "bench-press", Sets: sets(3, 8, 60)}}}}
	in.Booked = []Appointment{
		appt("apt_mon", "2026-12-07", "18:00", "Dana Levi", domain.AppointmentAttended), // yesterday
		appt("apt_tue", "2026-12-08", "07:00", "Dana Levi", domain.AppointmentAttended), // this morning
		appt("apt_wed", "2026-12-09", "18:00", "Dana Levi", domain.AppointmentBooked),   // logged already
	}
	p := generate(t, in)
	if got := dates(p); !slices.Equal(got, []string{"2026-12-08", "2026-12-11"}) {
		t.Errorf("sessions on %v; want today (attended this morning) and Friday", got)
	}
}

// TestBookedDayInHerProgramsWeek: her program plans Monday and Wednesday;
// a booked Friday gets a session of the rules beside them, valid, its
// note saying so, and the program's sessions are still adjusted in place.
func TestBookedDayInHerProgramsWeek(t *testing.T) {
	t.Parallel()
	in := baseInput()
	in.Planned = []domain.Session{
		{ID: "ses_mon", Date: "2026-12-07", Status: domain.SessionPlanned, Sport: "strength",
			Exercises: []domain.SessionExercise{{ExerciseID: "back-squat"}, {ExerciseID: "bench-press"}}},
		{ID: "ses_wed", Date: "2026-12-09", Status: domain.SessionPlanned, Sport: "strength",
			Exercises: []domain.SessionExercise{{ExerciseID: "deadlift"}, {ExerciseID: "overhead-press"}}},
	}
	in.Booked = []Appointment{appt("apt_fri", "2026-12-11", "18:00", "Dana Levi", domain.AppointmentBooked)}
	p := generate(t, in)
	if len(p.Sessions) != 3 {
		t.Fatalf("sessions on %v; her program's two and the booked Friday", dates(p))
	}
	fri := sessionOn(p, "2026-12-11")
	if fri == nil || fri.PlannedID != "" || len(fri.Items) == 0 || !strings.Contains(fri.Note, "Booked 18:00") {
		t.Errorf("the booked Friday: %+v", fri)
	}
	if mon := sessionOn(p, "2026-12-07"); mon == nil || mon.PlannedID != "ses_mon" {
		t.Errorf("Monday does not adjust her planned session: %+v", mon)
	}
	if a := hasKind(p, AdjustProgram); a == nil || !strings.Contains(a.Reason, "1 added on booked days") {
		t.Errorf("the program's adjustment: %+v", a)
	}
}

// TestRunnerBookedDayIsStrength: a runner's booked day is a strength day
// of her week (the appointment is coached work) while her free days can
// hold her runs; on a studio week that starts on Sunday, a booked Sunday
// (Monday gives way: her own days run two long at most) and Friday.
func TestRunnerBookedDayIsStrength(t *testing.T) {
	t.Parallel()
	in := baseInput()
	in.FirstDay, in.WeekStart = time.Sunday, "2026-12-06"
	in.Experience, in.Days, in.Minutes, in.Equipment = "beginner", []int{1, 2, 4, 5}, 55, []string{"none", "dumbbell"}
	in.History = runs(10, 50, 9)
	in.Booked = []Appointment{
		appt("apt_sun", "2026-12-06", "09:00", "Dana Levi", domain.AppointmentBooked),
		appt("apt_fri", "2026-12-11", "13:00", "Dana Levi", domain.AppointmentBooked),
	}
	p := generate(t, in)
	for _, d := range []string{"2026-12-06", "2026-12-11"} {
		s := sessionOn(p, d)
		if s == nil {
			t.Fatalf("no session on the booked %s: %v", d, dates(p))
		}
		if s.Items[0].ExerciseID == "running" {
			t.Errorf("the booked %s is a run: %+v", d, s.Items[0])
		}
	}
	if n, _ := sportMinutes(p, "running"); n != 2 {
		t.Errorf("%d runs in her week of %v; her two a week", n, dates(p))
	}
	if sessionOn(p, "2026-12-07") != nil {
		t.Errorf("Monday makes Sunday to Tuesday a run of three: %v", dates(p))
	}
}

// TestValidatorWantsEveryBookedDay: a layout that leaves a booked day out
// is refused with a sentence naming it.
func TestValidatorWantsEveryBookedDay(t *testing.T) {
	t.Parallel()
	in := baseInput()
	in.Booked = []Appointment{appt("apt_sat", "2026-12-12", "18:00", "Dana Levi", domain.AppointmentBooked)}
	w, err := prepare(in)
	if err != nil {
		t.Fatal(err)
	}
	l := w.baseline()
	l.Sessions = slices.DeleteFunc(l.Sessions, func(d LayoutDay) bool { return d.Weekday == 6 })
	problems := w.check(w.fill(l))
	if !slices.ContainsFunc(problems, func(s string) bool { return strings.Contains(s, "Saturday is booked (18:00)") }) {
		t.Errorf("the validator let a booked day go: %v", problems)
	}
}

// TestBookedInputErrors: an appointment outside the week, or with no
// start the plan can read, is refused with a sentence.
func TestBookedInputErrors(t *testing.T) {
	t.Parallel()
	for _, a := range []Appointment{
		appt("apt_x", "2026-12-14", "18:00", "", domain.AppointmentBooked),
		appt("apt_y", "2026-12-08", "6pm", "", domain.AppointmentBooked),
	} {
		in := baseInput()
		in.Booked = []Appointment{a}
		_, err := prepare(in)
		var ie *InputError
		if !errors.As(err, &ie) || ie.Field != "booked" || !strings.Contains(ie.Message, a.ID) {
			t.Errorf("%s: %v", a.ID, err)
		}
	}
}
