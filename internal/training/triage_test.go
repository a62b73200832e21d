package training

import (
	"slices"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/domain"
)

func dv(day string, v float64) domain.DayValue { return domain.DayValue{Day: day, Value: v} }

func codes(rs []Reason) string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Code)
	}
	return strings.Join(out, ",")
}

// weighIns gives one weigh-in at noon UTC on each day (days before today) of kg.
func weighIns(kgByDaysAgo map[int]float64) [4]domain.WeekWeight {
	var out [4]domain.WeekWeight
	for ago, kg := range kgByDaysAgo {
		if ago >= 0 && ago < 28 {
			out[3-ago/7].SumKg += kg
			out[3-ago/7].Count++
		}
	}
	return out
}

func TestReasonsEachRule(t *testing.T) {
	zone, _ := domain.LoadZone("Asia/Jerusalem")
	for _, tc := range []struct {
		name  string
		f     domain.RosterFacts
		codes string
		msg   string // the first reason's message, when set
	}{
		{name: "nothing", f: domain.RosterFacts{}, codes: ""},
		// 2 Dec → 9 Dec is 7 days: within 7. 10 Dec (8 days) is not.
		{name: "plan ending", f: domain.RosterFacts{PlanEndsOn: sp("2026-12-09")}, codes: ReasonPlanEnding,
			msg: "The plan ends on 2026-12-09 (in 7 days) with no renewal yet."},
		{name: "plan ending later", f: domain.RosterFacts{PlanEndsOn: sp("2026-12-10")}, codes: ""},
		{name: "plan ends today", f: domain.RosterFacts{PlanEndsOn: sp(today)}, codes: ReasonPlanEnding},
		// 28 Nov → 2 Dec is 4 days ago.
		{name: "plan ended", f: domain.RosterFacts{PlanEndsOn: sp("2026-11-28")}, codes: ReasonPlanEnded,
			msg: "The plan ended on 2026-11-28 (4 days ago) and was not renewed."},
		{name: "form past due", f: domain.RosterFacts{FormsPastDue: 2}, codes: ReasonFormPastDue, msg: "2 forms past due."},
		// 22 Nov → 2 Dec is 10 days: no completed session in the last 10 days (23 Nov – 2 Dec).
		{name: "no session 10 days", f: domain.RosterFacts{ActiveProgram: true, LastCompletedOn: sp("2026-11-22")}, codes: ReasonNoRecentSession,
			msg: "A program is active and the last completed session was on 2026-11-22, 10 days ago."},
		{name: "session 9 days ago", f: domain.RosterFacts{ActiveProgram: true, LastCompletedOn: sp("2026-11-23")}, codes: ""},
		{name: "no session, no program", f: domain.RosterFacts{LastCompletedOn: sp("2026-01-01")}, codes: ""},
		{name: "program, never trained", f: domain.RosterFacts{ActiveProgram: true}, codes: ReasonNoRecentSession},
		{name: "missed 2", f: domain.RosterFacts{MissedThisWeek: 2}, codes: ReasonMissedSessions, msg: "2 sessions missed this week."},
		{name: "missed 1", f: domain.RosterFacts{MissedThisWeek: 1}, codes: ""},
		// 2, 1 Dec and 30 Nov: consecutive, all ≤ 4, the last today.
		{name: "low readiness", f: domain.RosterFacts{Readiness: []domain.DayValue{dv("2026-12-02", 4), dv("2026-12-01", 3), dv("2026-11-30", 2)}}, codes: ReasonLowReadiness,
			msg: "Readiness 4 or lower 3 days running: 2026-11-30 2, 2026-12-01 3, 2026-12-02 4."},
		{name: "low readiness ending yesterday", f: domain.RosterFacts{Readiness: []domain.DayValue{dv("2026-12-01", 4), dv("2026-11-30", 3), dv("2026-11-29", 2)}}, codes: ReasonLowReadiness},
		{name: "low readiness, stale", f: domain.RosterFacts{Readiness: []domain.DayValue{dv("2026-11-30", 4), dv("2026-11-29", 3), dv("2026-11-28", 2)}}, codes: ""},
		{name: "low readiness, a gap", f: domain.RosterFacts{Readiness: []domain.DayValue{dv("2026-12-02", 4), dv("2026-12-01", 3), dv("2026-11-29", 2)}}, codes: ""},
		{name: "low readiness, one at 5", f: domain.RosterFacts{Readiness: []domain.DayValue{dv("2026-12-02", 4), dv("2026-12-01", 5), dv("2026-11-30", 2)}}, codes: ""},
		{name: "low readiness, two days", f: domain.RosterFacts{Readiness: []domain.DayValue{dv("2026-12-02", 1), dv("2026-12-01", 1)}}, codes: ""},
		// Onset 20 Nov → 2 Dec: 12 days.
		{name: "injury", f: domain.RosterFacts{ActiveInjuries: []domain.Injury{{ID: "inj_1", Area: "knee", Side: "left", Severity: 3, OnsetOn: "2026-11-20"}}}, codes: ReasonActiveInjury,
			msg: "Active injury: knee (left), severity 3/5, since 2026-11-20 (12 days)."},
		// Goal 70 kg. Weeks (days ago) 27–21, 20–14, 13–7, 6–0:
		// (74 + 74.4)/2 = 74.2, 74.5, (75 + 75.2)/2 = 75.1, 75.3 — each further from 70.
		{name: "weight away", f: domain.RosterFacts{WeightGoalKg: fp(70), WeightWeeks: weighIns(map[int]float64{25: 74, 22: 74.4, 15: 74.5, 10: 75, 8: 75.2, 1: 75.3})}, codes: ReasonWeightOffGoal,
			msg: "Weight moved away from the goal of 70 kg for 3 weeks: weekly averages 74.2, 74.5, 75.1, 75.3 kg."},
		// The third week comes back: 74.2, 74.5, 74.4, 75.3 is not monotonic.
		{name: "weight not monotonic", f: domain.RosterFacts{WeightGoalKg: fp(70), WeightWeeks: weighIns(map[int]float64{25: 74, 22: 74.4, 15: 74.5, 10: 74.4, 1: 75.3})}, codes: ""},
		// A week without a weigh-in (days 13–7): no verdict.
		{name: "weight week missing", f: domain.RosterFacts{WeightGoalKg: fp(70), WeightWeeks: weighIns(map[int]float64{25: 74, 15: 74.5, 1: 75.3})}, codes: ""},
		// Losing towards a goal of 70 from above is fine.
		{name: "weight towards goal", f: domain.RosterFacts{WeightGoalKg: fp(70), WeightWeeks: weighIns(map[int]float64{25: 76, 15: 75, 10: 74, 1: 73})}, codes: ""},
		// Moving away below a goal of 80: 78, 77, 76, 75.
		{name: "weight away below", f: domain.RosterFacts{WeightGoalKg: fp(80), WeightWeeks: weighIns(map[int]float64{21: 78, 14: 77, 7: 76, 0: 75})}, codes: ReasonWeightOffGoal},
		{name: "weight without a goal", f: domain.RosterFacts{WeightWeeks: weighIns(map[int]float64{21: 78, 14: 77, 7: 76, 0: 75})}, codes: ""},
		{name: "overdue tasks", f: domain.RosterFacts{OverdueTasks: 1}, codes: ReasonOverdueTasks, msg: "1 overdue task."},
		// Several: most severe first.
		{name: "several", f: domain.RosterFacts{FormsPastDue: 1, MissedThisWeek: 3, PlanEndsOn: sp("2026-11-01")}, codes: "plan_ended,missed_sessions,form_past_due"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs := ReasonsFor(tc.f, today, zone)
			if codes(rs) != tc.codes {
				t.Fatalf("reasons = %s; want %q", jsonOf(rs), tc.codes)
			}
			if tc.msg != "" && rs[0].Message != tc.msg {
				t.Fatalf("message = %q\nwant      %q", rs[0].Message, tc.msg)
			}
		})
	}
}

func TestTriageOrderAndFilter(t *testing.T) {
	facts := []domain.RosterFacts{
		{TraineeID: "trn_a", FirstName: "Avi", LastName: "Cohen", FormsPastDue: 1},                                                                             // 30
		{TraineeID: "trn_b", FirstName: "Bat", LastName: "Levi", MissedThisWeek: 2, OverdueTasks: 1},                                                           // 55 + 35 = 90
		{TraineeID: "trn_c", FirstName: "Chen", LastName: "Mor"},                                                                                               // nothing
		{TraineeID: "trn_d", FirstName: "Dana", LastName: "Amir", Readiness: []domain.DayValue{dv("2026-12-02", 2), dv("2026-12-01", 2), dv("2026-11-30", 2)}}, // 90
		{TraineeID: "trn_e", FirstName: "Eli", LastName: "Bar", PlanEndsOn: sp("2026-11-01"), FormsPastDue: 3, CoachIDs: []string{"cch_1"}},                    // 75 + 30 = 105
		{TraineeID: "trn_f", FirstName: "Gil", LastName: "Cohen", FormsPastDue: 2},                                                                             // 30, after Avi Cohen by name
	}
	got := Triage(facts, today, nil, "")
	var order []string
	for _, a := range got {
		order = append(order, a.TraineeID)
	}
	// 105 (e); 90 twice: d's top reason is 90, b's 55, so d first; then 30, 30 by name: Avi Cohen, Gil Cohen.
	if strings.Join(order, ",") != "trn_e,trn_d,trn_b,trn_a,trn_f" {
		t.Fatalf("order = %v", order)
	}
	if got[0].Score != 105 || got[1].Score != 90 || got[2].Score != 90 || got[3].Score != 30 || got[0].CoachIDs[0] != "cch_1" || got[3].CoachIDs == nil {
		t.Fatalf("scores = %s", jsonOf(got))
	}
	filtered := Triage(facts, today, nil, ReasonFormPastDue)
	if len(filtered) != 3 || filtered[0].TraineeID != "trn_e" || len(filtered[0].Reasons) != 2 {
		t.Fatalf("form_past_due = %s", jsonOf(filtered))
	}
	if n := len(Triage(facts, today, nil, ReasonActiveInjury)); n != 0 {
		t.Fatalf("active_injury kept %d", n)
	}
	for _, r := range Reasons {
		if Severities[r] == 0 {
			t.Fatalf("reason %s has no severity", r)
		}
	}
}

// The order over many trainees, ties on score and top severity among
// them: score, then the most severe reason, then last name, first name and
// id, as one key compares them.
func TestTriageOrderOfMany(t *testing.T) {
	got := Triage(benchFacts(600), today, nil, "")
	if len(got) < 100 {
		t.Fatalf("%d need attention; want more to sort", len(got))
	}
	if !slices.IsSortedFunc(got, func(a, b Attention) int {
		if a.Score != b.Score {
			return b.Score - a.Score
		}
		if a.Reasons[0].Severity != b.Reasons[0].Severity {
			return b.Reasons[0].Severity - a.Reasons[0].Severity
		}
		return strings.Compare(a.LastName+"\x00"+a.FirstName+"\x00"+a.TraineeID, b.LastName+"\x00"+b.FirstName+"\x00"+b.TraineeID)
	}) {
		t.Error("the triage is out of order")
	}
	seen := map[string]bool{}
	for _, a := range got {
		if seen[a.TraineeID] {
			t.Fatalf("%s twice", a.TraineeID)
		}
		seen[a.TraineeID] = true
	}
}
