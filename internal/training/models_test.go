package training

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/domain"
)

func ip(v int) *int                  { return &v }
func fp(v float64) *float64          { return &v }
func sp(v string) *string            { return &v }
func jsonOf(v any) string            { b, _ := json.Marshal(v); return string(b) }
func eqf(p *float64, v float64) bool { return p != nil && *p == v }

func session(id, date, status string, volume float64, minutes, rpe int) domain.Session {
	s := domain.Session{ID: id, Date: date, Title: "S " + id, Sport: "strength", Status: status, Totals: domain.SessionTotals{VolumeKg: volume}}
	if minutes > 0 {
		s.DurationMin = ip(minutes)
	}
	if rpe > 0 {
		s.RPE = ip(rpe)
	}
	return s
}

func checkIn(day string, readiness, soreness int) domain.CheckIn {
	return domain.CheckIn{Day: day, Readiness: ip(readiness), Soreness: ip(soreness)}
}

// Today is Wednesday 2 December 2026 throughout.
const today = "2026-12-02"

func TestPosition(t *testing.T) {
	// Phases: Base 2 weeks, Build 3 weeks → 5 weeks in all.
	st := &domain.ProgramStructure{Phases: []domain.ProgramPhase{
		{Name: "Base", Weeks: make([]domain.ProgramWeek, 2)},
		{Name: "Build", Weeks: make([]domain.ProgramWeek, 3)},
	}}
	p := domain.Program{ID: "prg_1", Name: "Block", StartsOn: "2026-11-11"}
	// 11 Nov is a Wednesday of the week from Monday 9 Nov; 2 Dec's week
	// starts Monday 30 Nov, 21 days later: 21/7 = 3 weeks done, so week 4;
	// weeks 1–2 are Base, 3–5 Build, so Build's week 4−2 = 2.
	pos := ProgramAt(p, st, today, time.Monday)
	if pos.Week != 4 || *pos.TotalWeeks != 5 || *pos.Phase != "Build" || *pos.PhaseWeek != 2 || pos.Finished {
		t.Fatalf("Position = %s", jsonOf(pos))
	}
	// 16 Dec's Monday is 14 Dec, 35 days after 9 Nov: 35/7 + 1 = week 6 of 5, finished.
	if pos := ProgramAt(p, st, "2026-12-16", time.Monday); pos.Week != 6 || !pos.Finished || pos.Phase != nil {
		t.Fatalf("Position after the end = %s", jsonOf(pos))
	}
	// Before the start: week 0.
	if pos := ProgramAt(p, st, "2026-11-10", time.Monday); pos.Week != 0 || pos.Phase != nil {
		t.Fatalf("Position before the start = %s", jsonOf(pos))
	}
	// Sunday 15 Nov is still week 1; Monday 16 Nov starts week 2.
	if pos := ProgramAt(p, nil, "2026-11-15", time.Monday); pos.Week != 1 || pos.TotalWeeks != nil {
		t.Fatalf("Position without a structure = %s", jsonOf(pos))
	}
	if pos := ProgramAt(p, st, "2026-11-16", time.Monday); pos.Week != 2 || *pos.Phase != "Base" || *pos.PhaseWeek != 2 {
		t.Fatalf("Position on the second Monday = %s", jsonOf(pos))
	}
}

func TestOverview(t *testing.T) {
	// The window is 19 Nov (2 Dec − 13) to 2 Dec.
	sessions := []domain.Session{
		session("old", "2026-11-18", domain.SessionCompleted, 9000, 60, 7), // a day before the window
		session("a", "2026-11-19", domain.SessionCompleted, 4000, 60, 7),
		session("b", "2026-11-23", domain.SessionMissed, 0, 0, 0),
		session("c", "2026-11-25", domain.SessionCompleted, 5000.04, 55, 8),
		session("d", "2026-11-30", domain.SessionPlanned, 0, 0, 0), // left planned: due, not done
		session("e", "2026-12-02", domain.SessionCompleted, 3000, 45, 6),
		session("f", "2026-12-04", domain.SessionPlanned, 0, 0, 0), // after today
	}
	injuries := []domain.Injury{
		{ID: "inj_1", Area: "knee", Side: "left", Severity: 2, Status: domain.InjuryActive, OnsetOn: "2026-11-20"},
		{ID: "inj_2", Area: "wrist", Side: "right", Severity: 1, Status: domain.InjuryResolved, OnsetOn: "2026-09-01"},
	}
	goals := []GoalLine{
		{Goal: domain.Goal{ID: "gol_1", Title: "Squat 140", Status: domain.GoalActive}, Progress: map[string]float64{"pct": 50}},
		{Goal: domain.Goal{ID: "gol_2", Title: "Old", Status: domain.GoalCompleted}},
	}
	o := BuildOverview(OverviewInput{
		Today:    today,
		Program:  &domain.Program{ID: "prg_1", Name: "Block", StartsOn: "2026-11-11"},
		Sessions: sessions,
		CheckIns: []domain.CheckIn{checkIn("2026-11-28", 8, 2), checkIn("2026-12-01", 5, 6), checkIn("2026-11-30", 6, 4), checkIn("2026-11-29", 7, 3)},
		Injuries: injuries,
		Goals:    goals,
	})
	// Due: a, b, c, d, e = 5 (old is before, f after today); completed a, c, e = 3;
	// rate 3/5 = 0.6.
	if o.From != "2026-11-19" || o.Completion.Due != 5 || o.Completion.Completed != 3 || !eqf(o.Completion.Rate, 0.6) {
		t.Fatalf("completion = %s from %s", jsonOf(o.Completion), o.From)
	}
	var ids []string
	for _, s := range o.Sessions {
		ids = append(ids, s.ID)
	}
	if strings.Join(ids, ",") != "e,d,c,b,a" {
		t.Fatalf("sessions = %v; want newest first e,d,c,b,a", ids)
	}
	// Volume 5000.04 reads 5000 to one decimal.
	if o.Sessions[2].VolumeKg != 5000 || *o.Sessions[2].RPE != 8 || *o.Sessions[2].DurationMin != 55 {
		t.Fatalf("session c = %s", jsonOf(o.Sessions[2]))
	}
	if len(o.LatestCheckIns) != 3 || o.LatestCheckIns[0].Day != "2026-12-01" || o.LatestCheckIns[2].Day != "2026-11-29" {
		t.Fatalf("check-ins = %s", jsonOf(o.LatestCheckIns))
	}
	if len(o.ActiveInjuries) != 1 || o.ActiveInjuries[0].ID != "inj_1" || len(o.ActiveGoals) != 1 || o.ActiveGoals[0].Goal.ID != "gol_1" {
		t.Fatalf("injuries %s goals %s", jsonOf(o.ActiveInjuries), jsonOf(o.ActiveGoals))
	}
	want := "Program Block: week 4. Last 14 days: 3 of 5 sessions completed (60%). Latest check-in 2026-12-01: readiness 5/10. 1 active injury: knee (left, severity 2). 1 active goal."
	if o.Summary != want {
		t.Fatalf("summary = %q\nwant      %q", o.Summary, want)
	}
}

func TestOverviewBounded(t *testing.T) {
	// Five sessions a day for 14 days is 70; the overview keeps 42, and
	// the completion still counts all 70.
	var sessions []domain.Session
	for d := 0; d < 14; d++ {
		for i := 0; i < 5; i++ {
			sessions = append(sessions, session("x", dayAdd(today, -d), domain.SessionCompleted, 1, 1, 1))
		}
	}
	var checkIns []domain.CheckIn
	for d := 0; d < 400; d++ {
		checkIns = append(checkIns, checkIn(dayAdd(today, -d), 5, 5))
	}
	o := BuildOverview(OverviewInput{Today: today, Sessions: sessions, CheckIns: checkIns})
	if len(o.Sessions) != 42 || o.Completion.Due != 70 || len(o.LatestCheckIns) != 3 || o.Program != nil {
		t.Fatalf("%d sessions, due %d, %d check-ins", len(o.Sessions), o.Completion.Due, len(o.LatestCheckIns))
	}
	if !strings.HasPrefix(o.Summary, "No active program. Last 14 days: 70 of 70") {
		t.Fatalf("summary = %q", o.Summary)
	}
}

func TestDebrief(t *testing.T) {
	// Week 2026-W48: Monday 23 to Sunday 29 November. Today is 2 Dec, after it.
	// The week before: 16–22 Nov. Next week: 30 Nov – 6 Dec.
	sessions := []domain.Session{
		session("p1", "2026-11-17", domain.SessionCompleted, 4000, 60, 7),
		session("p2", "2026-11-20", domain.SessionCompleted, 4000, 60, 8),
		session("p3", "2026-11-21", domain.SessionMissed, 0, 0, 0),
		session("w1", "2026-11-23", domain.SessionCompleted, 5000, 70, 8),
		session("w2", "2026-11-25", domain.SessionMissed, 0, 0, 0),
		session("w3", "2026-11-26", domain.SessionSkipped, 0, 0, 0),
		session("w4", "2026-11-27", domain.SessionPlanned, 0, 0, 0), // never done: missed
		session("w5", "2026-11-28", domain.SessionCompleted, 4000, 50, 9),
		session("n1", "2026-12-01", domain.SessionCompleted, 3000, 40, 6), // next week, done: not listed
		session("n2", "2026-12-03", domain.SessionPlanned, 0, 0, 0),
		session("n3", "2026-12-07", domain.SessionPlanned, 0, 0, 0), // the week after next
	}
	checkIns := []domain.CheckIn{
		checkIn("2026-11-22", 1, 1), // the week before: ignored
		checkIn("2026-11-23", 6, 3),
		checkIn("2026-11-24", 4, 5),
		checkIn("2026-11-25", 3, 6),
		checkIn("2026-11-26", 2, 7),
		checkIn("2026-11-28", 7, 2),
	}
	checkIns[4].SleepHours = fp(6.5)
	checkIns[5].SleepHours = fp(8)
	at := func(day string) time.Time { t, _ := time.Parse(time.DateOnly, day); return t.Add(18 * time.Hour) }
	benchmarks := []domain.Benchmark{{
		ID: "bmk_sq", Name: "Back squat 1RM", Unit: "kg", Direction: domain.HigherIsBetter,
		Entries: []domain.BenchmarkEntry{
			{Value: 120, RecordedAt: at("2026-10-01"), Source: domain.BenchmarkFromCoach},
			{Value: 125, RecordedAt: at("2026-11-17"), Source: domain.BenchmarkFromSession, SessionID: sp("p1")},
			{Value: 130, RecordedAt: at("2026-11-23"), Source: domain.BenchmarkFromSession, SessionID: sp("w1")},
		},
	}}
	d := BuildDebrief(DebriefInput{WeekStart: "2026-11-23", Today: today, Sessions: sessions, CheckIns: checkIns, Benchmarks: benchmarks,
		Injuries: []domain.Injury{{Area: "knee", Side: "left", Severity: 3, Status: domain.InjuryActive, OnsetOn: "2026-11-20"}}})
	// Planned w1..w5 = 5; completed w1, w5 = 2; missed w2 and w4 (planned, its day passed) = 2; skipped w3 = 1.
	if d.Week != "2026-11-23" || d.Planned != 5 || d.Completed != 2 || d.Missed != 2 || d.Skipped != 1 || d.Remaining != 0 {
		t.Fatalf("counts = %s", jsonOf(d))
	}
	// Volume 5000 + 4000 = 9000 against 4000 + 4000 = 8000: +12.5%.
	// Minutes 70 + 50 = 120 against 60 + 60 = 120: 0%.
	if d.VolumeKg.Week != 9000 || d.VolumeKg.PreviousWeek != 8000 || !eqf(d.VolumeKg.ChangePct, 12.5) {
		t.Fatalf("volume = %s", jsonOf(d.VolumeKg))
	}
	if d.Minutes.Week != 120 || d.Minutes.PreviousWeek != 120 || !eqf(d.Minutes.ChangePct, 0) {
		t.Fatalf("minutes = %s", jsonOf(d.Minutes))
	}
	// One PR in the week: 130 from w1, the best before it 125.
	if len(d.PRs) != 1 || d.PRs[0].Value != 130 || !eqf(d.PRs[0].PreviousBest, 125) || d.PRs[0].Date != "2026-11-23" {
		t.Fatalf("PRs = %s", jsonOf(d.PRs))
	}
	// Five check-ins in the week: readiness (6+4+3+2+7)/5 = 22/5 = 4.4;
	// soreness (3+5+6+7+2)/5 = 23/5 = 4.6; sleep (6.5+8)/2 = 7.25 → 7.3.
	c := d.CheckIns
	if c.Count != 5 || !eqf(c.Readiness, 4.4) || !eqf(c.Soreness, 4.6) || !eqf(c.SleepHours, 7.3) || c.Mood != nil {
		t.Fatalf("check-ins = %s", jsonOf(c))
	}
	// Flags: missed (2), low readiness 24, 25, 26 Nov (4, 3, 2), the injury.
	if len(d.Flags) != 3 || d.Flags[0].Kind != FlagMissed || d.Flags[1].Kind != FlagLowReadiness || d.Flags[2].Kind != FlagInjury {
		t.Fatalf("flags = %s", jsonOf(d.Flags))
	}
	if d.Flags[0].Message != "2 sessions missed: 2026-11-25 S w2, 2026-11-27 S w4." ||
		d.Flags[1].Message != "Readiness 4 or lower 3 days running: 2026-11-24 4, 2026-11-25 3, 2026-11-26 2." {
		t.Fatalf("flag messages = %s", jsonOf(d.Flags))
	}
	if len(d.NextWeek) != 1 || d.NextWeek[0].ID != "n2" || len(d.Sessions) != 5 || d.Sessions[0].ID != "w1" {
		t.Fatalf("next week %s, sessions %s", jsonOf(d.NextWeek), jsonOf(d.Sessions))
	}
	want := "Week of 2026-11-23 to 2026-11-29: 2 of 5 sessions completed, 2 missed. Volume 9000 kg (+12.5% on the week before), 120 minutes (+0.0% on the week before). 1 PR. Average readiness 4.4/10 over 5 check-ins. 3 flags. 1 session planned next week."
	if d.Summary != want {
		t.Fatalf("summary = %q\nwant      %q", d.Summary, want)
	}

	// The current week: 30 Nov – 6 Dec, today Wednesday 2 Dec. n1 (1 Dec)
	// is done, n2 (3 Dec) still to come; nothing the week before it… but
	// W48's 9000 kg: 3000 against 9000 is −66.7%.
	cur := BuildDebrief(DebriefInput{WeekStart: "2026-11-30", Today: today, Sessions: sessions})
	if cur.Planned != 2 || cur.Completed != 1 || cur.Remaining != 1 || cur.Missed != 0 || !eqf(cur.VolumeKg.ChangePct, -66.7) || len(cur.Flags) != 0 {
		t.Fatalf("current week = %s", jsonOf(cur))
	}
	if len(cur.NextWeek) != 1 || cur.NextWeek[0].ID != "n3" {
		t.Fatalf("next week = %s", jsonOf(cur.NextWeek))
	}
}

func TestLowReadinessRunNeedsConsecutiveDays(t *testing.T) {
	// 24, 25, 27 Nov are low but 26 is missing: no run of 3.
	cs := []domain.CheckIn{checkIn("2026-11-24", 3, 0), checkIn("2026-11-25", 3, 0), checkIn("2026-11-27", 3, 0)}
	if run := lowReadinessRun(cs, "2026-11-23", "2026-11-29"); len(run) != 2 {
		t.Fatalf("run = %v; want the 2 days 24–25", run)
	}
}
