package training

import (
	"testing"
	"time"

	"github.com/otherwise/perform/internal/domain"
)

// lifted is a completed session with one exercise of done sets (reps, kg pairs).
func lifted(id, date, exercise string, repsLoad ...float64) domain.Session {
	s := session(id, date, domain.SessionCompleted, 0, 60, 0)
	e := domain.SessionExercise{ExerciseID: exercise, Name: exercise}
	for i := 0; i+1 < len(repsLoad); i += 2 {
		e.Sets = append(e.Sets, domain.SetEntry{Reps: ip(int(repsLoad[i])), LoadKg: fp(repsLoad[i+1]), Done: true})
	}
	s.Exercises = []domain.SessionExercise{e}
	return s
}

func TestInsightsConsistency(t *testing.T) {
	// Today Wed 2 Dec; this week from 30 Nov. Weeks back: W48 (23 Nov),
	// W47 (16 Nov), W46 (9 Nov), W45 (2 Nov).
	sessions := []domain.Session{
		session("a", "2026-11-03", domain.SessionMissed, 0, 0, 0),    // W45: not met, the streak stops here
		session("b", "2026-11-05", domain.SessionCompleted, 0, 0, 0), // W45, the first day of the 4 weeks (3 Nov is before them)
		session("c", "2026-11-10", domain.SessionCompleted, 0, 0, 0), // W46
		session("d", "2026-11-17", domain.SessionCompleted, 0, 0, 0), // W47
		session("e", "2026-11-19", domain.SessionCompleted, 0, 0, 0), // W47
		session("f", "2026-11-24", domain.SessionCompleted, 0, 0, 0), // W48
		session("g", "2026-11-30", domain.SessionMissed, 0, 0, 0),    // this week
		session("h", "2026-12-01", domain.SessionCompleted, 0, 0, 0),
		session("i", "2026-12-02", domain.SessionCompleted, 0, 0, 0),
	}
	in := BuildInsights(InsightsInput{Today: today, FirstDay: time.Monday, Sessions: sessions})
	c := in.Consistency
	// The 4 weeks are 5 Nov (2 Dec − 27) to 2 Dec: b..i = 8 due, 7 completed (g missed): 7/8 = 0.875 → 0.88.
	// Week streak: W48, W47, W46 met; W45 has a missed one: 3.
	// Session streak: i, h completed, then g missed: 2.
	if c.FourWeeks.Due != 8 || c.FourWeeks.Completed != 7 || !eqf(c.FourWeeks.Rate, 0.88) || c.WeekStreak != 3 || c.SessionStreak != 2 {
		t.Fatalf("consistency = %s", jsonOf(c))
	}
	if in.Observations[0].Message != "Completed 7 of 8 sessions due in the last 4 weeks (88%)." {
		t.Fatalf("observation = %q", in.Observations[0].Message)
	}
	// A week with no session breaks the streak: without f, W48 is empty.
	in = BuildInsights(InsightsInput{Today: today, FirstDay: time.Monday, Sessions: append(sessions[:5:5], sessions[6:]...)})
	if in.Consistency.WeekStreak != 0 {
		t.Fatalf("week streak over an empty week = %d", in.Consistency.WeekStreak)
	}
}

func TestInsightsFatigue(t *testing.T) {
	// Recent: 26 Nov – 2 Dec; baseline: 5 – 25 Nov.
	checkIns := []domain.CheckIn{
		checkIn("2026-11-04", 1, 10), // before the baseline: ignored
		checkIn("2026-11-10", 8, 2),
		checkIn("2026-11-15", 7, 3),
		checkIn("2026-11-25", 9, 1),
		checkIn("2026-11-26", 5, 5),
		checkIn("2026-11-29", 4, 6),
		checkIn("2026-12-02", 6, 7),
	}
	sessions := []domain.Session{
		session("a", "2026-11-12", domain.SessionCompleted, 0, 60, 6),
		session("b", "2026-11-20", domain.SessionCompleted, 0, 60, 7),
		session("c", "2026-11-27", domain.SessionCompleted, 0, 60, 7),
		session("d", "2026-11-30", domain.SessionMissed, 0, 0, 9), // not completed: its RPE does not count
	}
	f := BuildInsights(InsightsInput{Today: today, FirstDay: time.Monday, Sessions: sessions, CheckIns: checkIns}).Fatigue
	// Readiness: recent (5+4+6)/3 = 5.0, baseline (8+7+9)/3 = 8.0, change −3.0.
	// Soreness: recent (5+6+7)/3 = 6.0, baseline (2+3+1)/3 = 2.0, change +4.0.
	// RPE: recent 7 (c), baseline (6+7)/2 = 6.5, change +0.5.
	if !eqf(f.Readiness.Recent, 5) || !eqf(f.Readiness.Baseline, 8) || !eqf(f.Readiness.Change, -3) || f.Readiness.RecentCount != 3 || f.Readiness.BaselineCount != 3 {
		t.Fatalf("readiness = %s", jsonOf(f.Readiness))
	}
	if !eqf(f.Soreness.Change, 4) || !eqf(f.SessionRPE.Recent, 7) || !eqf(f.SessionRPE.Baseline, 6.5) || !eqf(f.SessionRPE.Change, 0.5) {
		t.Fatalf("soreness %s, rpe %s", jsonOf(f.Soreness), jsonOf(f.SessionRPE))
	}
	obs := BuildInsights(InsightsInput{Today: today, FirstDay: time.Monday, Sessions: sessions, CheckIns: checkIns}).Observations
	want := map[string]string{
		"readiness":   "Readiness averaged 5 over the last 7 days (3) against 8 over the 21 before (3): -3.0, worse.",
		"soreness":    "Soreness averaged 6 over the last 7 days (3) against 2 over the 21 before (3): +4.0, worse.",
		"session_rpe": "Session RPE averaged 7 over the last 7 days (1) against 6.5 over the 21 before (2): +0.5, steady.",
	}
	for _, o := range obs {
		if w, ok := want[o.Kind]; ok {
			if o.Message != w {
				t.Errorf("%s: %q\nwant %q", o.Kind, o.Message, w)
			}
			delete(want, o.Kind)
		}
	}
	if len(want) != 0 {
		t.Fatalf("missing observations %v in %s", want, jsonOf(obs))
	}
}

func TestInsightsProgress(t *testing.T) {
	// The last 3 weeks are 12 Nov (2 Dec − 20) to 2 Dec.
	sessions := []domain.Session{
		// Squat before: 100 kg × 5 → 100 × (1 + 5/30) = 116.67; 110 × 3 → 110 × 1.1 = 121.0 (the best, 28 Oct).
		lifted("s1", "2026-10-28", "back-squat", 5, 100, 3, 110),
		// Squat in the 3 weeks: 105 × 4 → 105 × (1 + 4/30) = 119.0; 100 × 6 → 100 × 1.2 = 120.0. Best 120 ≤ 121: stalled.
		lifted("s2", "2026-11-18", "back-squat", 4, 105),
		lifted("s3", "2026-11-25", "back-squat", 6, 100),
		// Bench before: 80 × 5 → 80 × 7/6 = 93.33; in the 3 weeks 85 × 5 → 85 × 7/6 = 99.17: improved.
		lifted("b1", "2026-10-29", "bench-press", 5, 80),
		lifted("b2", "2026-11-26", "bench-press", 5, 85),
		// Deadlift only before the 3 weeks: not trained lately, not stalled.
		lifted("d1", "2026-10-30", "deadlift", 5, 140),
		// Row only in the 3 weeks: nothing before to compare.
		lifted("r1", "2026-11-27", "barbell-row", 8, 60),
	}
	// A set not done does not count: 200 × 5 undone in s3.
	sessions[2].Exercises[0].Sets = append(sessions[2].Exercises[0].Sets, domain.SetEntry{Reps: ip(5), LoadKg: fp(200)})
	zone, _ := domain.LoadZone("Asia/Jerusalem")
	at := func(s string) time.Time { t, _ := time.Parse(time.RFC3339, s); return t }
	benchmarks := []domain.Benchmark{
		{ID: "bmk_5k", Name: "5 km", Unit: "s", Direction: domain.LowerIsBetter, Entries: []domain.BenchmarkEntry{
			{Value: 1500, RecordedAt: at("2026-10-01T08:00:00Z")},
			// 4 Nov 22:30 UTC is already 5 Nov 00:30 in Israel: less than 28
			// days before 2 Dec (4 Nov), so the 4-week base is 1500 of 1 Oct.
			{Value: 1480, RecordedAt: at("2026-11-04T22:30:00Z")},
			{Value: 1450, RecordedAt: at("2026-11-30T08:00:00Z")},
		}},
		{ID: "bmk_pu", Name: "Pull-ups", Unit: "reps", Direction: domain.HigherIsBetter, Entries: []domain.BenchmarkEntry{
			{Value: 12, RecordedAt: at("2026-10-01T08:00:00Z")},
			{Value: 10, RecordedAt: at("2026-11-20T08:00:00Z")},
		}},
	}
	in := BuildInsights(InsightsInput{Today: today, FirstDay: time.Monday, Zone: zone, Sessions: sessions, Benchmarks: benchmarks})
	if len(in.StalledLifts) != 1 {
		t.Fatalf("stalled = %s", jsonOf(in.StalledLifts))
	}
	l := in.StalledLifts[0]
	if l.ExerciseID != "back-squat" || l.RecentBestE1RM != 120 || l.PriorBestE1RM != 121 || l.PriorBestOn != "2026-10-28" || l.RecentSessions != 2 {
		t.Fatalf("stalled = %s", jsonOf(l))
	}
	// 5 km: latest 1450 (30 Nov), best 1450 (lower is better), 4-week change 1450 − 1500 = −50 (improving).
	// Pull-ups: latest 10, best 12, change 10 − 12 = −2 (declining). Newest first.
	b := in.Benchmarks
	if len(b) != 2 || b[0].Name != "5 km" || b[0].Latest != 1450 || b[0].Best != 1450 || !eqf(b[0].Change4w, -50) || b[0].LatestOn != "2026-11-30" || b[0].Entries != 3 {
		t.Fatalf("benchmarks = %s", jsonOf(b))
	}
	if b[1].Latest != 10 || b[1].Best != 12 || !eqf(b[1].Change4w, -2) {
		t.Fatalf("pull-ups = %s", jsonOf(b[1]))
	}
	msgs := map[string]bool{}
	for _, o := range in.Observations {
		msgs[o.Message] = true
	}
	for _, w := range []string{
		"5 km: 1450 s on 2026-11-30, -50 s over 4 weeks (improving); best 1450.",
		"Pull-ups: 10 reps on 2026-11-20, -2 reps over 4 weeks (declining); best 12.",
		"back-squat has not improved for 3 weeks: best e1RM 120 kg over 2 sessions, against 121 kg on 2026-10-28.",
	} {
		if !msgs[w] {
			t.Errorf("no observation %q in %s", w, jsonOf(in.Observations))
		}
	}
}
