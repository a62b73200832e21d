package weekplans

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/weekplan"
)

// The fingerprint changes with what the rules read, and says which part:
// not with the time of the ask.
func TestTheFingerprintNamesWhatChanged(t *testing.T) {
	at := time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)
	base := func() weekplan.Input {
		return weekplan.Input{WeekStart: "2026-03-02", Days: []int{1, 3, 5}, Minutes: 60, Sport: "running",
			Injuries: []domain.Injury{{ID: "inj_1", Area: "knee", Severity: 2, Status: domain.InjuryActive}},
			History:  []domain.Session{{ID: "ses_1", Date: "2026-02-25", Status: domain.SessionCompleted, UpdatedAt: at}},
			CheckIns: []domain.CheckIn{{ID: "chk_1", UpdatedAt: at}}}
	}
	fp := fingerprint(base())
	if again := fingerprint(base()); again != fp {
		t.Fatalf("the same input: %s, then %s", fp, again)
	}
	for _, c := range []struct {
		want   string
		change func(in *weekplan.Input)
	}{
		{"injuries", func(in *weekplan.Input) {
			in.Injuries = append(in.Injuries, domain.Injury{ID: "inj_2", Area: "shoulder"})
		}},
		{"injuries", func(in *weekplan.Input) { in.Injuries[0].Kind = "tendinopathy" }},
		{"profile", func(in *weekplan.Input) { in.Goal = "fat_loss" }},
		{"conditions", func(in *weekplan.Input) { in.Conditions = []string{"hypertension"} }},
		{"history", func(in *weekplan.Input) { in.History[0].UpdatedAt = at.Add(time.Minute) }},
		{"planned", func(in *weekplan.Input) { in.Planned = []domain.Session{{ID: "ses_2", Date: "2026-03-03"}} }},
		{"checkins", func(in *weekplan.Input) { in.CheckIns = nil }},
		{"appointments", func(in *weekplan.Input) {
			in.Booked = []weekplan.Appointment{{ID: "apt_1", Date: "2026-03-03", Start: "18:00", Minutes: 60, Status: domain.AppointmentBooked}}
		}},
	} {
		in := base()
		c.change(&in)
		if got := changed(fp, fingerprint(in)); !slices.Equal(got, []string{c.want}) {
			t.Errorf("%s: changed %v", c.want, got)
		}
	}
	if got := changed("", fp); len(got) != len(strings.Split(fp, ";")) {
		t.Errorf("a draft without a fingerprint: changed %v; want every part", got)
	}
}

// Her booked appointments of the week are a part of the fingerprint: a
// booking, a move, a mark and a cancellation each change it and say
// "appointments". While she has none the part is absent, so a draft
// fingerprinted before appointments were read still answers.
func TestTheFingerprintHoldsHerAppointments(t *testing.T) {
	in := weekplan.Input{WeekStart: "2026-03-02", Days: []int{1, 3, 5}, Minutes: 60}
	before := fingerprint(in)
	if strings.Contains(before, "appointments") || len(strings.Split(before, ";")) != len(fingerprintParts)-1 {
		t.Fatalf("a week without appointments: %s; want the parts a draft made before appointments has", before)
	}
	in.Booked = []weekplan.Appointment{{ID: "apt_1", Date: "2026-03-03", Start: "18:00", Minutes: 60, Status: domain.AppointmentBooked}}
	booked := fingerprint(in)
	for _, c := range []struct {
		name   string
		change func(a *weekplan.Appointment)
	}{
		{"moved", func(a *weekplan.Appointment) { a.Start = "19:00" }},
		{"another day", func(a *weekplan.Appointment) { a.Date = "2026-03-04" }},
		{"attended", func(a *weekplan.Appointment) { a.Status = domain.AppointmentAttended }},
		{"another booking", func(a *weekplan.Appointment) { a.ID = "apt_2" }},
	} {
		x := in
		x.Booked = slices.Clone(in.Booked)
		c.change(&x.Booked[0])
		if got := changed(booked, fingerprint(x)); !slices.Equal(got, []string{"appointments"}) {
			t.Errorf("%s: changed %v", c.name, got)
		}
	}
	if got := changed(before, booked); !slices.Equal(got, []string{"appointments"}) {
		t.Errorf("booked after a draft: changed %v", got)
	}
	if got := changed(booked, before); !slices.Equal(got, []string{"appointments"}) {
		t.Errorf("cancelled after a draft: changed %v", got)
	}
}

// Drafted days the planner left unpaired adjust the planned week: the same
// day first, then the nearest; a day past is no longer planned, and a plan
// the planner paired itself is kept as it is.
func TestDraftedDaysPairWithThePlannedWeek(t *testing.T) {
	planned := []domain.Session{{ID: "mon", Date: "2026-03-02"}, {ID: "tue", Date: "2026-03-03"}, {ID: "thu", Date: "2026-03-05"}, {ID: "fri", Date: "2026-03-06"}}
	plan := weekplan.Plan{Sessions: []weekplan.Session{{Date: "2026-03-02"}, {Date: "2026-03-04"}, {Date: "2026-03-06"}}}
	pairPlanned(&plan, planned, "2026-03-02")
	var got []string
	for _, s := range plan.Sessions {
		got = append(got, s.PlannedID)
	}
	if !slices.Equal(got, []string{"mon", "tue", "fri"}) {
		t.Errorf("paired %v; want mon, tue (nearest to Wednesday), fri", got)
	}
	plan = weekplan.Plan{Sessions: []weekplan.Session{{Date: "2026-03-04"}}}
	pairPlanned(&plan, planned, "2026-03-04")
	if plan.Sessions[0].PlannedID != "thu" {
		t.Errorf("from Wednesday on, Monday and Tuesday are past: paired %q", plan.Sessions[0].PlannedID)
	}
	own := weekplan.Plan{Sessions: []weekplan.Session{{Date: "2026-03-02", PlannedID: "tue"}, {Date: "2026-03-06"}}}
	pairPlanned(&own, planned, "2026-03-02")
	if own.Sessions[1].PlannedID != "" {
		t.Errorf("the planner's own pairing was changed: %+v", own.Sessions)
	}
}
