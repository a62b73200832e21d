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

// Working hours.

// Range is one range of a coach's working hours.
type Range struct {
	Day  string `json:"day" jsonschema:"sunday … saturday." lane:"enum=sunday|monday|tuesday|wednesday|thursday|friday|saturday"`
	From string `json:"from" jsonschema:"HH:MM, the studio's time zone." lane:"minLength=1,maxLength=5"`
	To   string `json:"to" jsonschema:"HH:MM, after from; 24:00 is the day's end." lane:"minLength=1,maxLength=5"`
}

// Hours is a coach's working hours.
type Hours struct {
	CoachID string  `json:"coachId"`
	Hours   []Range `json:"hours"`
}

type hoursInput struct {
	Hours []Range `json:"hours" jsonschema:"Every range of her week (the list replaces her hours; empty clears them), e.g. {day: tuesday, from: 16:00, to: 21:00}." lane:"maxItems=28"`
}

func getHours(c *lane.Call, _ *lane.NoInput) (Hours, error) {
	ss := c.Studio()
	coach, err := lane.Lookup(c.Ctx, ids.Coach, c.ID(), ss.GetCoach)
	if err != nil {
		return Hours{}, err
	}
	hours, err := ss.CoachHours(c.Ctx, coach.ID)
	return hoursOf(coach.ID, hours), err
}

func hoursOf(coachID string, hours []domain.WorkingHours) Hours {
	out := Hours{CoachID: coachID, Hours: make([]Range, len(hours))}
	for i, h := range hours {
		out.Hours[i] = Range{Day: domain.WeekdayName(h.Weekday), From: clock(h.Start), To: clock(h.End)}
	}
	return out
}

func putHours(c *lane.Call, in *hoursInput) (Hours, error) {
	hours := make([]domain.WorkingHours, 0, len(in.Hours))
	for i, r := range in.Hours {
		field := fmt.Sprintf("hours[%d]", i)
		wd, _ := domain.ParseWeekday(r.Day)
		from, err := ParseClock(r.From)
		if err != nil {
			return Hours{}, lane.InvalidField(field+".from", "from "+err.Error()+".")
		}
		to, err := ParseClock(r.To)
		if strings.TrimSpace(r.To) == "24:00" {
			to, err = 24*60, nil
		}
		if err != nil {
			return Hours{}, lane.InvalidField(field+".to", "to "+err.Error()+".")
		}
		if to <= from {
			return Hours{}, lane.InvalidField(field+".to", fmt.Sprintf("to must be after from; got %s to %s.", clock(from), clock(to)))
		}
		for _, h := range hours {
			if h.Weekday == wd && h.Start < to && from < h.End {
				return Hours{}, lane.InvalidField(field, fmt.Sprintf("%s %s–%s overlaps %s–%s of the same day; give each time once.", r.Day, clock(from), clock(to), clock(h.Start), clock(h.End)))
			}
		}
		hours = append(hours, domain.WorkingHours{Weekday: wd, Start: from, End: to})
	}
	slices.SortFunc(hours, func(a, b domain.WorkingHours) int {
		if a.Weekday != b.Weekday {
			return int(a.Weekday) - int(b.Weekday)
		}
		return a.Start - b.Start
	})
	ss := c.Studio()
	coach, err := lane.Lookup(c.Ctx, ids.Coach, c.ID(), ss.GetCoach)
	if err != nil {
		return Hours{}, err
	}
	if err := ss.SetCoachHours(c.Ctx, coach.ID, hours); err != nil {
		return Hours{}, err
	}
	return hoursOf(coach.ID, hours), nil
}

// describeHours is the hours as a sentence's part: "tuesday 16:00–21:00,
// sunday 08:00–12:00", or "none set".
func describeHours(hours []domain.WorkingHours) string {
	if len(hours) == 0 {
		return "none set: set_working_hours sets them"
	}
	parts := make([]string, len(hours))
	for i, h := range hours {
		parts[i] = fmt.Sprintf("%s %s–%s", domain.WeekdayName(h.Weekday), clock(h.Start), clock(h.End))
	}
	return strings.Join(parts, ", ")
}

// Slots.

// SlotView is a slot as the lane answers it.
type SlotView struct {
	ID         string    `json:"id"`
	CoachID    string    `json:"coachId"`
	Coach      string    `json:"coach"`
	StartsAt   time.Time `json:"startsAt" jsonschema:"The start, UTC."`
	Local      string    `json:"local" jsonschema:"The start in the studio's time zone."`
	LengthMin  int       `json:"lengthMin"`
	Place      string    `json:"place"`
	Capacity   int       `json:"capacity"`
	Booked     int       `json:"booked"`
	Left       int       `json:"left" jsonschema:"Places left; 0 is full (a booking then waits)."`
	Waitlisted int       `json:"waitlisted"`
}

func slotView(c *lane.Call, n *names, ss store.StudioStore, s domain.Slot) SlotView {
	return SlotView{ID: s.ID, CoachID: s.CoachID, Coach: n.coach(ss, s.CoachID), StartsAt: s.StartsAt.UTC(), Local: localLabel(s.StartsAt, c.Zone()),
		LengthMin: s.LengthMin, Place: s.Place, Capacity: s.Capacity, Booked: s.Booked, Left: max(s.Capacity-s.Booked, 0), Waitlisted: s.Waitlisted}
}

type slotInput struct {
	CoachID   string `json:"coachId,omitempty" jsonschema:"The coach (list_coaches, or her name); the coach signed in when omitted." lane:"maxLength=100" ref:"coach"`
	Day       string `json:"day" jsonschema:"today, tomorrow, a weekday (next one), next tuesday, or YYYY-MM-DD; the studio's week and time zone." lane:"minLength=1,maxLength=40"`
	Time      string `json:"time" jsonschema:"The start, HH:MM, 24-hour clock." lane:"minLength=1,maxLength=5"`
	LengthMin int    `json:"lengthMin,omitempty" jsonschema:"15 to 240 minutes; 60 when omitted." lane:"min=15,max=240"`
	Place     string `json:"place,omitempty" jsonschema:"Where." lane:"maxLength=200"`
	Capacity  int    `json:"capacity,omitempty" jsonschema:"How many trainees it takes, 1 (one-to-one, the default) to 50." lane:"min=1,max=50"`
}

func createSlot(c *lane.Call, in *slotInput) (SlotView, error) {
	ss := c.Studio()
	id := in.CoachID
	if id == "" {
		id = c.Coach()
	}
	if id == "" {
		return SlotView{}, lane.InvalidField("coachId", "Give coachId (list_coaches): this key speaks for the whole studio.")
	}
	coach, err := lane.Lookup(c.Ctx, ids.Coach, id, ss.GetCoach)
	if err != nil {
		return SlotView{}, err
	}
	date, bare, err := ParseDay(in.Day, c.LocalToday(), c.FirstDay())
	if err != nil {
		return SlotView{}, lane.InvalidField("day", "day "+err.Error()+".")
	}
	min, err := ParseClock(in.Time)
	if err != nil {
		return SlotView{}, lane.InvalidField("time", "time "+err.Error()+".")
	}
	start := localInstant(date, min, c.Zone())
	if bare && !start.After(c.Now()) {
		start = localInstant(lane.AddDays(date, 7), min, c.Zone())
	}
	if !start.After(c.Now()) || start.After(c.Now().AddDate(1, 0, 0)) {
		return SlotView{}, lane.InvalidField("time", fmt.Sprintf("%s is not ahead within a year; a slot is opened from now to a year ahead.", localLabel(start, c.Zone())))
	}
	s := domain.Slot{CoachID: coach.ID, StartsAt: start, LengthMin: cmpOr(in.LengthMin, 60), Place: strings.TrimSpace(in.Place), Capacity: cmpOr(in.Capacity, 1), CreatedAt: c.Now()}
	err = ss.CreateSlot(c.Ctx, &s)
	var clash *store.ClashError
	if errors.As(err, &clash) {
		return SlotView{}, lane.Conflict(fmt.Sprintf("%s has a slot from %s to %s (%s) that overlaps it; pick another time.",
			coach.Name, localLabel(clash.StartsAt, c.Zone()), clash.EndsAt.In(c.Zone()).Format("15:04"), clash.ID))
	}
	if err != nil {
		return SlotView{}, err
	}
	return slotView(c, newNames(c), ss, s), nil
}

func cmpOr(v, or int) int {
	if v == 0 {
		return or
	}
	return v
}

type slotsQuery struct {
	lane.DayRange
	CoachID string `json:"coachId,omitempty" jsonschema:"Only this coach's; every coach's when omitted." lane:"maxLength=100" ref:"coach"`
	Open    bool   `json:"open,omitempty" jsonschema:"true: only slots with a place left."`
}

func listSlots(c *lane.Call, q *slotsQuery) (lane.ListOf[SlotView], error) {
	from, to, err := localDays(c, q.DayRange)
	if err != nil {
		return lane.ListOf[SlotView]{}, err
	}
	ss := c.Studio()
	slots, err := ss.ListSlots(c.Ctx, store.SlotFilter{CoachID: q.CoachID, From: from, To: to})
	if err != nil {
		return lane.ListOf[SlotView]{}, err
	}
	n := newNames(c)
	out := make([]SlotView, 0, len(slots))
	for _, s := range slots {
		if q.Open && s.Booked >= s.Capacity {
			continue
		}
		out = append(out, slotView(c, n, ss, s))
	}
	return lane.PageSlice(out, store.Page{Limit: 200}), nil
}

// Settings.

// Settings are the studio's appointment rules.
type Settings struct {
	LateCancelHours         int  `json:"lateCancelHours" jsonschema:"A cancellation later than this many hours before the start keeps its credit used."`
	NotifyWaitlistPromotion bool `json:"notifyWaitlistPromotion" jsonschema:"Whether a trainee moved up from a waiting list is told."`
}

type settingsInput struct {
	LateCancelHours         *int  `json:"lateCancelHours,omitempty" jsonschema:"0 to 168 hours (default 12)." lane:"min=0,max=168,null=false"`
	NotifyWaitlistPromotion *bool `json:"notifyWaitlistPromotion,omitempty" jsonschema:"Tell a trainee moved up from a waiting list (off by default)." lane:"null=false"`
}

func getSettings(c *lane.Call, _ *lane.NoInput) (Settings, error) {
	st, err := c.DB().StudioByID(c.Ctx, c.P.StudioID)
	return Settings{LateCancelHours: st.LateCancelHours(), NotifyWaitlistPromotion: st.NotifyWaitlistPromotion()}, err
}

func patchSettings(c *lane.Call, in *settingsInput) (Settings, error) {
	patch := map[string]any{}
	if in.LateCancelHours != nil {
		patch["lateCancelHours"] = *in.LateCancelHours
	}
	if in.NotifyWaitlistPromotion != nil {
		patch["notifyWaitlistPromotion"] = *in.NotifyWaitlistPromotion
	}
	if len(patch) == 0 {
		return Settings{}, lane.InvalidField("lateCancelHours", "Send at least one setting: lateCancelHours or notifyWaitlistPromotion.")
	}
	st, err := store.PatchStudioSettings(c.Ctx, c.DB(), c.P.StudioID, patch)
	return Settings{LateCancelHours: st.LateCancelHours(), NotifyWaitlistPromotion: st.NotifyWaitlistPromotion()}, err
}
