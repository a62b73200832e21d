package appointments

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/store"
)

// View is an appointment as the lane answers it: its instants in UTC and
// its start in the studio's zone.
type View struct {
	ID        string    `json:"id"`
	SlotID    string    `json:"slotId"`
	TraineeID string    `json:"traineeId"`
	Trainee   string    `json:"trainee" jsonschema:"The trainee's name."`
	CoachID   string    `json:"coachId"`
	Coach     string    `json:"coach" jsonschema:"The coach's name."`
	StartsAt  time.Time `json:"startsAt" jsonschema:"The start, UTC."`
	Local     string    `json:"local" jsonschema:"The start in the studio's time zone, as a person reads it."`
	LengthMin int       `json:"lengthMin"`
	Place     string    `json:"place"`
	Status    string    `json:"status" jsonschema:"booked, waitlisted, attended, no_show, cancelled (the credit given back) or late_cancelled (the credit kept used)."`
	Position  *int      `json:"position" jsonschema:"The place on the waiting list (1 is next); null unless waitlisted."`
	SessionID *string   `json:"sessionId" jsonschema:"The training session logged for it, once attended."`
	BookedBy  string    `json:"bookedBy" jsonschema:"coach or trainee."`
}

// What a trainee's own answers keep.
var (
	traineeFields = []string{"id", "startsAt", "local", "lengthMin", "place", "status", "position"}
	traineeBooked = append(slices.Clone(traineeFields), "slotOpened")
	traineeCancel = append(slices.Clone(traineeFields), "creditKept")
	traineeList   = append(prefixed("items.", traineeFields), "total", "nextOffset")
)

func prefixed(p string, fields []string) []string {
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = p + f
	}
	return out
}

// names reads the names of the trainees and coaches of the appointments.
type names struct {
	c        *lane.Call
	trainees map[string]string
	coaches  map[string]string
}

func newNames(c *lane.Call) *names {
	return &names{c: c, trainees: map[string]string{}, coaches: map[string]string{}}
}

func (n *names) trainee(ss store.StudioStore, id string) string {
	if v, ok := n.trainees[id]; ok {
		return v
	}
	t, err := ss.GetTrainee(n.c.Ctx, id)
	if err == nil {
		n.trainees[id] = strings.TrimSpace(t.FirstName + " " + t.LastName)
	}
	return n.trainees[id]
}

func (n *names) coach(ss store.StudioStore, id string) string {
	if v, ok := n.coaches[id]; ok {
		return v
	}
	x, err := ss.GetCoach(n.c.Ctx, id)
	if err == nil {
		n.coaches[id] = x.Name
	}
	return n.coaches[id]
}

func (n *names) view(ss store.StudioStore, a domain.Appointment) View {
	return View{ID: a.ID, SlotID: a.SlotID, TraineeID: a.TraineeID, Trainee: n.trainee(ss, a.TraineeID), CoachID: a.CoachID, Coach: n.coach(ss, a.CoachID),
		StartsAt: a.StartsAt.UTC(), Local: localLabel(a.StartsAt, n.c.Zone()), LengthMin: int(a.EndsAt.Sub(a.StartsAt) / time.Minute), Place: a.Place,
		Status: a.Status, Position: a.Position, SessionID: a.SessionID, BookedBy: a.BookedBy}
}

// Reads.

type listQuery struct {
	lane.DayRange
	CoachID   string `json:"coachId,omitempty" jsonschema:"Only this coach's (id from list_coaches, or her name); every coach's when omitted." lane:"maxLength=100" ref:"coach"`
	TraineeID string `json:"traineeId,omitempty" jsonschema:"Only this trainee's (id from search_trainees, or her name)." lane:"maxLength=100" ref:"trainee"`
	Status    string `json:"status,omitempty" jsonschema:"Only this status; every status when omitted." lane:"enum=booked|waitlisted|attended|no_show|cancelled|late_cancelled"`
	lane.PageQuery
}

// localDays is from..to (local days, today when both are omitted) as
// instants [start of from, start of the day after to).
func localDays(c *lane.Call, q lane.DayRange) (time.Time, time.Time, error) {
	if q.From == nil && q.To == nil {
		today := c.LocalToday()
		q.From, q.To = &today, &today
	} else if q.To == nil {
		to := lane.AddDays(*q.From, 0)
		q.To = &to
	}
	from, to, e := c.Days(q)
	if e != nil {
		return time.Time{}, time.Time{}, e
	}
	return localInstant(from, 0, c.Zone()), localInstant(lane.AddDays(to, 1), 0, c.Zone()), nil
}

func listAppointments(c *lane.Call, q *listQuery) (lane.ListOf[View], error) {
	from, to, err := localDays(c, q.DayRange)
	if err != nil {
		return lane.ListOf[View]{}, err
	}
	f := store.AppointmentFilter{CoachID: q.CoachID, TraineeID: q.TraineeID, From: from, To: to, Page: q.Page()}
	if q.Status != "" {
		f.Statuses = []string{q.Status}
	}
	return list(c, f)
}

func list(c *lane.Call, f store.AppointmentFilter) (lane.ListOf[View], error) {
	ss := c.Studio()
	res, err := ss.ListAppointments(c.Ctx, f)
	if err != nil {
		return lane.ListOf[View]{}, err
	}
	n := newNames(c)
	out := store.List[View]{Items: make([]View, len(res.Items)), Total: res.Total}
	for i, a := range res.Items {
		out.Items[i] = n.view(ss, a)
	}
	return lane.PageOf(out, f.Page), nil
}

type traineeListQuery struct {
	From *string `json:"from,omitempty" jsonschema:"First day, YYYY-MM-DD in the studio's time zone; today when omitted." lane:"format=date"`
	All  bool    `json:"all,omitempty" jsonschema:"true: cancelled ones too; only booked, waitlisted and marked ones when omitted."`
	lane.PageQuery
}

func listTraineeAppointments(c *lane.Call, q *traineeListQuery) (lane.ListOf[View], error) {
	if _, err := lane.Lookup(c.Ctx, ids.Trainee, c.ID(), c.Studio().GetTrainee); err != nil {
		return lane.ListOf[View]{}, err
	}
	from := c.LocalToday()
	if q.From != nil {
		from = *q.From
	}
	f := store.AppointmentFilter{TraineeID: c.ID(), From: localInstant(from, 0, c.Zone()), Page: q.Page()}
	if !q.All {
		f.Statuses = []string{domain.AppointmentBooked, domain.AppointmentWaitlisted, domain.AppointmentAttended, domain.AppointmentNoShow}
	}
	return list(c, f)
}

func getAppointment(c *lane.Call, _ *lane.NoInput) (View, error) {
	ss := c.Studio()
	a, err := lane.Lookup(c.Ctx, ids.Appointment, c.ID(), ss.GetAppointment)
	if err != nil {
		return View{}, err
	}
	return newNames(c).view(ss, a), nil
}

// Booking.

type bookInput struct {
	SlotID    string `json:"slotId,omitempty" jsonschema:"A slot (list_appointment_slots); or give day and time." lane:"maxLength=100" ref:"slot"`
	Day       string `json:"day,omitempty" jsonschema:"The day: today, tomorrow, a weekday (tuesday: the next one; next tuesday: in next week), or YYYY-MM-DD, in the studio's week and time zone; Hebrew words too (מחר, שלישי)." lane:"maxLength=40"`
	Time      string `json:"time,omitempty" jsonschema:"The start, HH:MM on the 24-hour clock in the studio's time zone." lane:"maxLength=5"`
	CoachID   string `json:"coachId,omitempty" jsonschema:"The coach (list_coaches, or her name); when omitted: the coach signed in, else the trainee's coach." lane:"maxLength=100" ref:"coach"`
	LengthMin int    `json:"lengthMin,omitempty" jsonschema:"A slot opened for it lasts this long, 15 to 240 minutes; 60 when omitted." lane:"min=15,max=240"`
	Place     string `json:"place,omitempty" jsonschema:"Where, for a slot opened for it." lane:"maxLength=200"`
	Waitlist  *bool  `json:"waitlist,omitempty" jsonschema:"A full slot: true (the default) puts the trainee on its waiting list; false refuses."`
}

// Booked is a booking's answer.
type Booked struct {
	View
	SlotOpened bool `json:"slotOpened" jsonschema:"true when a one-to-one slot was opened for it within the coach's hours."`
	// again: the trainee's appointment already there, answered as the
	// same booking made again.
	again bool
}

func book(c *lane.Call, in *bookInput) (Booked, error) {
	var out Booked
	err := c.InTx(func(ss store.StudioStore) error {
		t, err := lane.Lookup(c.Ctx, ids.Trainee, c.ID(), ss.GetTrainee)
		if err != nil {
			return err
		}
		out, err = bookFor(c, ss, t, in)
		return err
	})
	return out, err
}

// bookFor books trainee t as in asks, in the transaction of ss.
func bookFor(c *lane.Call, ss store.StudioStore, t domain.Trainee, in *bookInput) (Booked, error) {
	var out Booked
	err := func() error {
		b := store.Booking{TraineeID: t.ID, SlotID: in.SlotID, Waitlist: in.Waitlist == nil || *in.Waitlist, BookedBy: c.Author(), At: c.Now()}
		if in.SlotID != "" {
			if in.Day != "" || in.Time != "" {
				return lane.InvalidField("slotId", "Give slotId, or day and time, not both.")
			}
			slot, err := ss.GetSlot(c.Ctx, in.SlotID)
			if err != nil {
				return err
			}
			if !slot.StartsAt.After(c.Now()) {
				return lane.InvalidField("slotId", fmt.Sprintf("The slot began at %s; only a slot still ahead is booked.", localLabel(slot.StartsAt, c.Zone())))
			}
		} else {
			if err := whenAndWho(c, ss, t, in, &b); err != nil {
				return err
			}
		}
		got, err := ss.Book(c.Ctx, b)
		var clash *store.ClashError
		switch {
		case errors.As(err, &clash) && clash.Who == "trainee":
			same, gerr := ss.GetAppointment(c.Ctx, clash.ID)
			if gerr == nil && (same.SlotID == b.SlotID || b.SlotID == "" && same.CoachID == b.CoachID && same.StartsAt.Equal(b.StartsAt)) {
				// The same booking again is the one booking.
				out = Booked{View: newNames(c).view(ss, same), again: true}
				c.SetStatus(200)
				return nil
			}
			return lane.Conflict(fmt.Sprintf("%s already has an appointment at %s (%s); cancel it first, or pick another time.",
				strings.TrimSpace(t.FirstName+" "+t.LastName), localLabel(clash.StartsAt, c.Zone()), clash.ID))
		case errors.As(err, &clash):
			return lane.Conflict(fmt.Sprintf("The coach has a slot from %s to %s (%s) that overlaps it; book that slot (slotId) or pick another time.",
				localLabel(clash.StartsAt, c.Zone()), clash.EndsAt.In(c.Zone()).Format("15:04"), clash.ID))
		case errors.Is(err, store.ErrNoCredit):
			return lane.Conflict(fmt.Sprintf("%s has no session credit left for %s: her package or membership is used up or has ended there. Renew her plan (assign_plan), or book a day her plan still covers.",
				strings.TrimSpace(t.FirstName+" "+t.LastName), localDay(b, ss, c)))
		case errors.Is(err, store.ErrSlotFull):
			return lane.Conflict("The slot is full, and waitlist is false; send waitlist true to wait for a place, or pick another slot.")
		case err != nil:
			return err
		}
		out = Booked{View: newNames(c).view(ss, got.Appointment), SlotOpened: got.Opened}
		return nil
	}()
	return out, err
}

// Moved is a move's answer: the new appointment, and the one it replaced.
type Moved struct {
	Booked
	From string `json:"from" jsonschema:"The appointment moved from (now cancelled, its credit given back)."`
}

// moveInput is a booking's input, but a move that could only wait keeps
// the place it has: a full slot refuses unless waitlist is true.
type moveInput struct {
	bookInput
	Waitlist *bool `json:"waitlist,omitempty" jsonschema:"A full slot: false (the default) refuses and keeps the appointment; true gives up its place for the waiting list."`
}

// move cancels a live appointment and books its trainee as in asks, in
// one transaction: a move is not a late cancellation (the credit goes
// with her), and a booking that cannot be made keeps the old one. The
// trainee moves only her own (the lane's trainee policy, by the
// appointment's Owner, as for cancel), and not within the studio's
// lateCancelHours of its start: there the move is refused in words, so a
// late change is never made cheaper by calling it a move, nor charged a
// credit she did not choose to lose (she cancels late, or asks her coach,
// who may still move it).
func move(c *lane.Call, in *moveInput) (Moved, error) {
	var out Moved
	err := c.InTx(func(ss store.StudioStore) error {
		a, err := lane.Lookup(c.Ctx, ids.Appointment, c.ID(), ss.GetAppointment)
		if err != nil {
			return err
		}
		t, err := ss.GetTrainee(c.Ctx, a.TraineeID)
		if err != nil {
			return err
		}
		st, err := c.DB().StudioByID(c.Ctx, c.P.StudioID)
		if err != nil {
			return err
		}
		hours := st.LateCancelHours()
		if c.P.IsTrainee() && a.Status == domain.AppointmentBooked && a.StartsAt.Sub(c.Now()) < time.Duration(hours)*time.Hour {
			return lane.Conflict(fmt.Sprintf("Your appointment at %s is less than %d hours away, the studio's notice for changing one, so it cannot be moved now. Keep it, ask your coach to move it, or cancel it (a late cancellation keeps its credit used) and book another time.",
				localLabel(a.StartsAt, c.Zone()), hours))
		}
		b := in.bookInput
		b.Waitlist = new(in.Waitlist != nil && *in.Waitlist)
		if b.SlotID == "" && b.CoachID == "" {
			b.CoachID = a.CoachID // her coach of the appointment, unless she names another
		}
		_, promoted, err := ss.CancelAppointment(c.Ctx, a.ID, c.Now(), false)
		if err != nil {
			return err
		}
		booked, err := bookFor(c, ss, t, &b)
		if err != nil {
			return err
		}
		if booked.again {
			// Not the same booking again: two of hers would become one.
			return lane.Conflict(fmt.Sprintf("%s already has an appointment at %s (%s); this one stays where it is. Move it to another time, or cancel one of them.",
				strings.TrimSpace(t.FirstName+" "+t.LastName), booked.Local, booked.ID))
		}
		out = Moved{Booked: booked, From: a.ID}
		return movedUp(c, ss, st, promoted)
	})
	return out, err
}

// localDay is the booking's day as the studio reads it.
func localDay(b store.Booking, ss store.StudioStore, c *lane.Call) string {
	at := b.StartsAt
	if b.SlotID != "" {
		if slot, err := ss.GetSlot(c.Ctx, b.SlotID); err == nil {
			at = slot.StartsAt
		}
	}
	return at.In(c.Zone()).Format("Mon 2 Jan 2006")
}

// whenAndWho fills b's coach and start from the input: the day and time in
// the studio's zone; the coach given, signed in, or the trainee's; and,
// when the coach has no slot then, her hours must hold it.
func whenAndWho(c *lane.Call, ss store.StudioStore, t domain.Trainee, in *bookInput, b *store.Booking) error {
	if in.Day == "" || in.Time == "" {
		return lane.InvalidField("day", "Give slotId, or day and time (e.g. day tuesday, time 18:00).")
	}
	date, bare, err := ParseDay(in.Day, c.LocalToday(), c.FirstDay())
	if err != nil {
		return lane.InvalidField("day", "day "+err.Error()+".")
	}
	min, err := ParseClock(in.Time)
	if err != nil {
		return lane.InvalidField("time", "time "+err.Error()+".")
	}
	start := localInstant(date, min, c.Zone())
	if bare && !start.After(c.Now()) {
		date = lane.AddDays(date, 7)
		start = localInstant(date, min, c.Zone())
	}
	if !start.After(c.Now()) {
		return lane.InvalidField("time", fmt.Sprintf("%s has passed; book a time still ahead.", localLabel(start, c.Zone())))
	}
	if start.After(c.Now().AddDate(1, 0, 0)) {
		return lane.InvalidField("day", "A booking is at most a year ahead.")
	}
	coach, err := coachFor(c, ss, t, in.CoachID)
	if err != nil {
		return err
	}
	length := in.LengthMin
	if length == 0 {
		length = 60
	}
	b.CoachID, b.StartsAt, b.LengthMin, b.Place = coach.ID, start, length, strings.TrimSpace(in.Place)
	// Her slot then takes the booking; without one, her hours must hold it.
	slots, err := ss.ListSlots(c.Ctx, store.SlotFilter{CoachID: coach.ID, From: start, To: start.Add(time.Minute)})
	if err != nil || len(slots) > 0 {
		return err
	}
	hours, err := ss.CoachHours(c.Ctx, coach.ID)
	if err != nil {
		return err
	}
	local := start.In(c.Zone())
	from := local.Hour()*60 + local.Minute()
	for _, h := range hours {
		if h.Weekday == local.Weekday() && h.Start <= from && from+length <= h.End {
			return nil
		}
	}
	return lane.InvalidField("time", fmt.Sprintf("%s has no slot at %s, and %d minutes from then is outside her working hours (%s). Pick a time within them, or open a slot (create_appointment_slot).",
		coach.Name, localLabel(start, c.Zone()), length, describeHours(hours)))
}

// coachFor is the coach given, else the one signed in, else the trainee's
// first coach, else the studio's only active coach.
func coachFor(c *lane.Call, ss store.StudioStore, t domain.Trainee, given string) (domain.Coach, error) {
	id := given
	if id == "" {
		id = c.Coach()
	}
	if id == "" && len(t.CoachIDs) > 0 {
		id = t.CoachIDs[0]
	}
	if id == "" {
		all, err := ss.ListCoaches(c.Ctx, store.Page{Limit: 2})
		if err != nil {
			return domain.Coach{}, err
		}
		if all.Total != 1 {
			return domain.Coach{}, lane.InvalidField("coachId", "The trainee has no coach and the studio has several: give coachId (list_coaches).")
		}
		id = all.Items[0].ID
	}
	return lane.Lookup(c.Ctx, ids.Coach, id, ss.GetCoach)
}

// Cancelling and marking.

type cancelInput struct{}

// CancelAnswer is a cancellation's answer.
type CancelAnswer struct {
	View
	CreditKept bool    `json:"creditKept" jsonschema:"true for a late cancellation: its credit stays used."`
	Promoted   *string `json:"promoted" jsonschema:"The appointment moved up from the waiting list into the place freed, if any."`
}

func cancel(c *lane.Call, _ *cancelInput) (CancelAnswer, error) {
	var out CancelAnswer
	err := c.InTx(func(ss store.StudioStore) error {
		a, err := lane.Lookup(c.Ctx, ids.Appointment, c.ID(), ss.GetAppointment)
		if err != nil {
			return err
		}
		st, err := c.DB().StudioByID(c.Ctx, c.P.StudioID)
		if err != nil {
			return err
		}
		late := a.StartsAt.Sub(c.Now()) < time.Duration(st.LateCancelHours())*time.Hour
		done, promoted, err := ss.CancelAppointment(c.Ctx, a.ID, c.Now(), late)
		if err != nil {
			return err
		}
		n := newNames(c)
		out = CancelAnswer{View: n.view(ss, done), CreditKept: done.Status == domain.AppointmentLateCancelled}
		if promoted != nil {
			out.Promoted = &promoted.ID
		}
		return movedUp(c, ss, st, promoted)
	})
	return out, err
}

// movedUp tells the trainee moved up from the waiting list into a place a
// cancellation or a move freed, when the studio says she is told.
func movedUp(c *lane.Call, ss store.StudioStore, st domain.Studio, promoted *domain.Appointment) error {
	if promoted == nil || !st.NotifyWaitlistPromotion() {
		return nil
	}
	return c.Notify(ss, promoted.TraineeID, "appointment_waitlist_promoted", map[string]any{
		"appointmentId": promoted.ID, "startsAt": promoted.StartsAt.UTC(), "local": localLabel(promoted.StartsAt, c.Zone()), "place": promoted.Place})
}

type markInput struct {
	Status    string  `json:"status" jsonschema:"attended or no_show." lane:"enum=attended|no_show"`
	SessionID *string `json:"sessionId,omitempty" jsonschema:"The training session logged for it (list_trainee_sessions); attended only." lane:"maxLength=100,null=false" ref:"session"`
}

func mark(c *lane.Call, in *markInput) (View, error) {
	var out View
	err := c.InTx(func(ss store.StudioStore) error {
		a, err := lane.Lookup(c.Ctx, ids.Appointment, c.ID(), ss.GetAppointment)
		if err != nil {
			return err
		}
		if a.StartsAt.After(c.Now()) {
			return lane.InvalidField("status", fmt.Sprintf("The appointment starts %s; it is marked once it has begun.", localLabel(a.StartsAt, c.Zone())))
		}
		if in.SessionID != nil {
			if in.Status != domain.AppointmentAttended {
				return lane.InvalidField("sessionId", "sessionId goes with status attended only.")
			}
			s, err := ss.GetSession(c.Ctx, *in.SessionID)
			if err != nil {
				return err
			}
			if s.TraineeID != a.TraineeID {
				return lane.InvalidField("sessionId", fmt.Sprintf("Session %s is another trainee's; give one of this trainee's (list_trainee_sessions).", s.ID))
			}
		}
		got, err := ss.MarkAppointment(c.Ctx, a.ID, in.Status, in.SessionID, c.Now())
		if err != nil {
			return err
		}
		out = newNames(c).view(ss, got)
		return nil
	})
	return out, err
}
