package training

import (
	"fmt"
	"maps"
	"reflect"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/domain"
)

// benchFacts are the roster facts of n trainees shaped like the store's
// roster benchmark: every trainee has a plan and a program, some a plan
// ending, stopped training, low readiness, an injury, a goal weight.
func benchFacts(n int) []domain.RosterFacts {
	const today = "2026-12-02"
	out := make([]domain.RosterFacts, n)
	for i := range out {
		f := domain.RosterFacts{
			TraineeID: fmt.Sprintf("trn_%06d", i), FirstName: []string{"Dana", "Noa", "Yael", "Tamar"}[i%4],
			LastName: fmt.Sprintf("Levi%03d", (i*7919)%(n/3+1)), CoachIDs: []string{}, ActiveProgram: true,
			Readiness: []domain.DayValue{}, ActiveInjuries: []domain.Injury{}, Feedback: []domain.Feedback{},
		}
		ends := dayAdd(today, 60+i%30)
		if i%10 == 0 {
			ends = dayAdd(today, -10+i%20)
		}
		f.PlanEndsOn = &ends
		last := dayAdd(today, -2-i%3)
		if i%8 == 0 {
			last = dayAdd(today, -13)
		}
		f.LastCompletedOn = &last
		f.MissedThisWeek = i % 3
		if i%13 == 0 {
			f.Readiness = []domain.DayValue{{Day: today, Value: 3}, {Day: dayAdd(today, -1), Value: 3}, {Day: dayAdd(today, -2), Value: 3}}
		}
		if i%17 == 0 {
			f.ActiveInjuries = []domain.Injury{{ID: fmt.Sprintf("inj_%d", i), Area: "knee", Side: "left", Severity: 2, Status: "active", OnsetOn: dayAdd(today, -(i % 30))}}
		}
		if i%3 == 0 {
			goal := 70.0
			f.WeightGoalKg = &goal
			for w := range f.WeightWeeks {
				kg := 78.0 - float64(w)*0.1
				if i%18 == 0 {
					kg = 76 + float64(w)*0.4
				}
				f.WeightWeeks[w] = domain.WeekWeight{SumKg: 2 * kg, Count: 2}
			}
		}
		if i%12 == 0 {
			f.OverdueTasks = 1
		}
		if i%10 == 9 {
			f.FormsPastDue = 1
		}
		if i%29 == 0 {
			f.Feedback = []domain.Feedback{{ID: "fb", Text: "Knee hurts after squats", CreatedAt: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}}
		}
		out[i] = f
	}
	return out
}

// The triage of 5,000 trainees' facts, the part of GET
// /trainees/needs-attention after the store's reads: the first page of 50
// explained (page), and the whole list explained (all), as it was built
// before only the page was.
//
//	go test -run '^$' -bench Triage -benchmem ./internal/training/
func BenchmarkTriage(b *testing.B) {
	facts := benchFacts(5000)
	zone, _ := domain.LoadZone("Asia/Jerusalem")
	want := len(Triage(facts, "2026-12-02", zone, ""))
	b.Logf("%d of %d need attention", want, len(facts))
	b.Run("page", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if got := TriagePage(facts, "2026-12-02", zone, "", 0, 50); got.Total != want || len(got.Items) != min(50, want) {
				b.Fatalf("triage: %d of %d, want %d", len(got.Items), got.Total, want)
			}
		}
	})
	b.Run("all", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if got := Triage(facts, "2026-12-02", zone, ""); len(got) != want {
				b.Fatalf("triage: %d, want %d", len(got), want)
			}
		}
	})
}

// A page of the triage is that slice of the whole, explained the same,
// and its counts are the whole list's, for every filter.
func TestTriagePageIsASliceOfTheWhole(t *testing.T) {
	t.Parallel()
	facts := benchFacts(600)
	zone, _ := domain.LoadZone("Asia/Jerusalem")
	for _, reason := range append([]string{""}, Reasons...) {
		all := Triage(facts, "2026-12-02", zone, reason)
		counts := map[string]int{}
		for _, a := range all {
			for _, r := range a.Reasons {
				counts[r.Code]++
				if r.Message == "" || r.Numbers == nil {
					t.Fatalf("%s: a reason of %s is not explained: %+v", reason, a.TraineeID, r)
				}
			}
		}
		for _, p := range [][2]int{{0, 50}, {37, 25}, {len(all) - 3, 50}, {len(all) + 5, 10}, {0, 0}} {
			got := TriagePage(facts, "2026-12-02", zone, reason, p[0], p[1])
			start := min(max(p[0], 0), len(all))
			want := all[start:min(start+p[1], len(all))]
			if got.Total != len(all) || !reflect.DeepEqual(got.Items, want) || !maps.Equal(got.Counts, counts) {
				t.Fatalf("reason %q, offset %d limit %d: %d items of %d, counts %v; want %d of %d, counts %v",
					reason, p[0], p[1], len(got.Items), got.Total, got.Counts, len(want), len(all), counts)
			}
		}
	}
}
