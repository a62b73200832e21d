package weekplans

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/exercises"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/training"
	"github.com/otherwise/perform/internal/weekplan"
)

// params are what a draft was asked with: the route's input as resolved,
// kept with a refinement's job so the job reads the same input again.
type params struct {
	StudioID  string       `json:"studioId"`
	TraineeID string       `json:"traineeId"`
	Week      string       `json:"week"`
	Today     string       `json:"today"`
	FirstDay  time.Weekday `json:"firstDay"`
	Days      []int        `json:"days,omitempty"`
	Rule      string       `json:"rule,omitempty"`
	Language  string       `json:"language"`
}

// gather reads what the core plans from: her profile, health, history,
// planned week, appointments and readiness, and the studio's settings, and its
// fingerprint. It needs no lane call, so a refinement's job reads it as
// the route did. The fingerprint is of her records alone, not of the
// ask's days and rule: a plain ask answers a pending draft a coach drafted
// with days of her choosing.
func gather(ctx context.Context, ss store.StudioStore, studio domain.Studio, t domain.Trainee, p params) (weekplan.Input, string, error) {
	pin, err := records(ctx, ss, studio, t, p)
	if err != nil {
		return pin, "", err
	}
	fp := fingerprint(pin)
	if len(p.Days) > 0 {
		pin.Days = p.Days
	}
	pin.Rule = p.Rule
	return pin, fp, nil
}

// records is the input from her records, before the ask's days and rule.
func records(ctx context.Context, ss store.StudioStore, studio domain.Studio, t domain.Trainee, p params) (weekplan.Input, error) {
	pin := weekplan.Input{Today: p.Today, WeekStart: p.Week, FirstDay: p.FirstDay, Minutes: 60, Language: p.Language,
		SeniorAge: studio.SeniorAge()}
	if t.Gender != nil {
		pin.Gender = *t.Gender
	}
	prof, err := ss.GetTrainingProfile(ctx, t.ID)
	switch {
	case errors.Is(err, store.ErrNotFound):
	case err != nil:
		return pin, err
	default:
		pin.Days, pin.Equipment = prof.Availability, prof.Equipment
		pin.Sport, pin.Goal, pin.Conditions = prof.Sport, prof.Goal, prof.Conditions
		if prof.SessionMinutes != nil {
			pin.Minutes = *prof.SessionMinutes
		}
		if prof.Experience != nil {
			pin.Experience = *prof.Experience
		}
	}
	pin.Age = ageOn(t.BirthDate, p.Today)
	injuries, err := ss.ListInjuries(ctx, t.ID, "")
	if err != nil {
		return pin, err
	}
	for _, inj := range injuries {
		if inj.Status == domain.InjuryActive || inj.Status == domain.InjuryRecovering {
			pin.Injuries = append(pin.Injuries, inj)
		}
	}
	// Her completed sessions of the four weeks before the week (and any of
	// its days done), and the sessions already planned in the week.
	done, err := ss.SessionsBetween(ctx, t.ID, lane.AddDays(p.Week, -28), max(p.Today, lane.AddDays(p.Week, 6)))
	if err != nil {
		return pin, err
	}
	for _, s := range done {
		switch {
		case s.Status == domain.SessionCompleted && s.Date <= p.Today:
			pin.History = append(pin.History, s)
		case s.Status == domain.SessionPlanned && s.Date >= p.Week && s.Date <= lane.AddDays(p.Week, 6):
			pin.Planned = append(pin.Planned, s)
		}
	}
	checks, err := ss.ListCheckIns(ctx, t.ID, lane.AddDays(p.Today, -14), p.Today, store.Page{Limit: 15})
	if err != nil {
		return pin, err
	}
	pin.CheckIns = checks.Items
	own, err := ss.ListExercises(ctx)
	if err != nil {
		return pin, err
	}
	pin.Exercises = append(append([]domain.Exercise(nil), exercises.All()...), own...)
	pin.Program, err = programIn(ctx, ss, t.ID, p.Week, p.FirstDay)
	if err != nil {
		return pin, err
	}
	pin.Booked, err = bookedIn(ctx, ss, t.ID, p.Week, studio.TimeZone())
	return pin, err
}

// bookedIn are her appointments of the week that fix a training day
// (booked, and attended), in the studio's time: its local day and start,
// its length, and the coach's name (or the place).
func bookedIn(ctx context.Context, ss store.StudioStore, traineeID, week string, zone *time.Location) ([]weekplan.Appointment, error) {
	at := func(day string) time.Time { t, _ := time.ParseInLocation(time.DateOnly, day, zone); return t }
	list, err := ss.ListAppointments(ctx, store.AppointmentFilter{TraineeID: traineeID, From: at(week), To: at(lane.AddDays(week, 7)),
		Statuses: []string{domain.AppointmentBooked, domain.AppointmentAttended}, Page: store.Page{Limit: 100}})
	if err != nil {
		return nil, err
	}
	coaches := map[string]string{}
	var out []weekplan.Appointment
	for _, a := range list.Items {
		name, ok := coaches[a.CoachID]
		if !ok {
			c, err := ss.GetCoach(ctx, a.CoachID)
			if err != nil && !errors.Is(err, store.ErrNotFound) {
				return nil, err
			}
			name, coaches[a.CoachID] = c.Name, c.Name
		}
		if name == "" {
			name = a.Place
		}
		local := a.StartsAt.In(zone)
		out = append(out, weekplan.Appointment{ID: a.ID, Date: local.Format(time.DateOnly), Start: local.Format("15:04"),
			Minutes: int(a.EndsAt.Sub(a.StartsAt) / time.Minute), With: name, Status: a.Status})
	}
	return out, nil
}

// ageOn is her age on today, nil without a birth date.
func ageOn(birth *string, today string) *int {
	if birth == nil {
		return nil
	}
	b, err := time.Parse(time.DateOnly, *birth)
	if err != nil {
		return nil
	}
	now, _ := time.Parse(time.DateOnly, today)
	age := now.Year() - b.Year()
	if now.Month() < b.Month() || now.Month() == b.Month() && now.Day() < b.Day() {
		age-- // the birthday is still ahead this year
	}
	return &age
}

// programIn is where the trainee's active program stands in the week.
func programIn(ctx context.Context, ss store.StudioStore, traineeID, week string, first time.Weekday) (*weekplan.Program, error) {
	progs, err := ss.ListPrograms(ctx, traineeID)
	if err != nil {
		return nil, err
	}
	for _, p := range progs {
		if p.Status != domain.ProgramActive {
			continue
		}
		var structure *domain.ProgramStructure
		if tpl, err := ss.GetProgramTemplate(ctx, p.TemplateID); err == nil {
			structure = tpl.Structure
		} else if !errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
		pos := training.ProgramAt(p, structure, week, first)
		out := &weekplan.Program{Name: p.Name, Week: pos.Week}
		if pos.Phase != nil {
			out.Phase = *pos.Phase
		}
		return out, nil
	}
	return nil, nil
}

// The fingerprint of what the rules read: one short hash per part, so a
// changed fingerprint says what changed. Timestamps of the draft or the
// ask are no part of it (today's date is, through the windows it sets: a
// check-in that leaves the window changes the readiness).
var fingerprintParts = []string{"profile", "conditions", "injuries", "history", "planned", "checkins", "program", "appointments"}

// optionalParts are parts left out of a fingerprint while empty: a draft
// made before the part existed (or with nothing in it) keeps answering
// until something is in it.
var optionalParts = map[string]bool{"appointments": true}

// fingerprint hashes pin's parts, "profile=…;conditions=…;…".
func fingerprint(pin weekplan.Input) string {
	type injury struct {
		ID, Area, Side, Kind, Status string
		Severity                     int
		Affected                     []string
	}
	type session struct {
		ID, Date, Status string
		Updated          int64
	}
	sessionsOf := func(list []domain.Session) []session {
		out := make([]session, len(list))
		for i, s := range list {
			out[i] = session{s.ID, s.Date, s.Status, s.UpdatedAt.UnixMilli()}
		}
		return out
	}
	var injuries []injury
	for _, i := range pin.Injuries {
		injuries = append(injuries, injury{i.ID, i.Area, i.Side, i.Kind, i.Status, i.Severity, i.AffectedExercises})
	}
	type checkIn struct {
		ID      string
		Updated int64
	}
	var checks []checkIn
	for _, c := range pin.CheckIns {
		checks = append(checks, checkIn{c.ID, c.UpdatedAt.UnixMilli()})
	}
	var own []string
	for _, e := range pin.Exercises {
		if e.Custom {
			own = append(own, e.ID)
		}
	}
	parts := map[string]any{
		"profile": []any{pin.WeekStart, pin.FirstDay, pin.Days, pin.Minutes, pin.Equipment, pin.Experience, pin.Age,
			pin.Sport, pin.Goal, pin.SeniorAge, pin.Language, pin.Gender},
		"conditions": pin.Conditions,
		"injuries":   injuries,
		"history":    sessionsOf(pin.History),
		"planned":    sessionsOf(pin.Planned),
		"checkins":   checks,
		"program":    []any{pin.Program, own},
	}
	type appointment struct {
		ID, Date, Start, Status string
		Minutes                 int
	}
	var booked []appointment
	for _, a := range pin.Booked {
		booked = append(booked, appointment{a.ID, a.Date, a.Start, a.Status, a.Minutes})
	}
	if len(booked) > 0 {
		parts["appointments"] = booked
	}
	var b strings.Builder
	for _, name := range fingerprintParts {
		if _, ok := parts[name]; !ok && optionalParts[name] {
			continue
		}
		raw, _ := json.Marshal(parts[name])
		sum := sha256.Sum256(raw)
		if b.Len() > 0 {
			b.WriteByte(';')
		}
		b.WriteString(name + "=" + hex.EncodeToString(sum[:6]))
	}
	return b.String()
}

// changed names the parts that differ between two fingerprints, in
// fingerprintParts' order: a part in one and not the other differs (an
// optional part is absent while empty), and every part differs when the
// old one is not a fingerprint at all.
func changed(old, now string) []string {
	read := func(fp string) map[string]string {
		out := map[string]string{}
		for _, kv := range strings.Split(fp, ";") {
			if k, v, ok := strings.Cut(kv, "="); ok {
				out[k] = v
			}
		}
		return out
	}
	was, is := read(old), read(now)
	var out []string
	for _, k := range fingerprintParts {
		if was[k] != is[k] {
			out = append(out, k)
		}
	}
	return out
}
