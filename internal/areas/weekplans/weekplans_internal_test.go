package weekplans

import (
	"slices"
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
	} {
		in := base()
		c.change(&in)
		if got := changed(fp, fingerprint(in)); !slices.Equal(got, []string{c.want}) {
			t.Errorf("%s: changed %v", c.want, got)
		}
	}
	if got := changed("", fp); len(got) != len(fingerprintParts) {
		t.Errorf("a draft without a fingerprint: changed %v; want every part", got)
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
