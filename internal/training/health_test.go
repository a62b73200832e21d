package training

import (
	"reflect"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/domain"
)

var t0 = time.Date(2026, 3, 2, 7, 0, 0, 0, time.UTC) // a Monday

func day(n int) time.Time { return t0.AddDate(0, 0, n) }

func TestAnalyseBody(t *testing.T) {
	// Weigh-ins given out of order: the analysis reads them by time.
	weights := []domain.Weight{
		{WeightKg: 79.1, RecordedAt: day(14)},
		{WeightKg: 80.0, RecordedAt: day(0)},
		{WeightKg: 79.5, RecordedAt: day(7)},
	}
	measurements := []domain.Measurement{
		{RecordedAt: day(1), WaistCm: ptr(90.0), RestingHR: ptr(62)},
		{RecordedAt: day(8), WaistCm: ptr(88.5), BodyFatPct: ptr(22.0)},
		{RecordedAt: day(15), WaistCm: ptr(87.25), RestingHR: ptr(58)},
	}
	got := AnalyseBody(weights, measurements, time.UTC, time.Monday)
	// By hand: weight 80.0 → 79.1 is −0.9 over 3 values; waist 90 → 87.25 is
	// −2.75; body fat has one value (change 0); resting HR 62 → 58 is −4.
	// Each value falls in a week of its own (Mondays 2, 9 and 16 March).
	w := func(from string, v float64) TrendPoint { return TrendPoint{From: from, Value: v} }
	want := []MetricChange{
		{"weightKg", "kg", 3, Point{80, day(0)}, Point{79.1, day(14)}, -0.9, "week", []TrendPoint{w("2026-03-02", 80), w("2026-03-09", 79.5), w("2026-03-16", 79.1)}},
		{"bodyFatPct", "%", 1, Point{22, day(8)}, Point{22, day(8)}, 0, "week", []TrendPoint{w("2026-03-09", 22)}},
		{"waistCm", "cm", 3, Point{90, day(1)}, Point{87.25, day(15)}, -2.75, "week", []TrendPoint{w("2026-03-02", 90), w("2026-03-09", 88.5), w("2026-03-16", 87.3)}},
		{"restingHr", "bpm", 2, Point{62, day(1)}, Point{58, day(15)}, -4, "week", []TrendPoint{w("2026-03-02", 62), w("2026-03-16", 58)}},
	}
	if !reflect.DeepEqual(got.Metrics, want) {
		t.Fatalf("AnalyseBody =\n%+v\nwant\n%+v", got.Metrics, want)
	}
	if empty := AnalyseBody(nil, nil, nil, time.Monday); empty.Metrics == nil || len(empty.Metrics) != 0 {
		t.Fatalf("no data: %+v, want an empty, non-nil list", empty)
	}
}

// A trend is the mean of each local week; past 26 weeks, of each month.
func TestBodyTrend(t *testing.T) {
	jerusalem, err := time.LoadLocation("Asia/Jerusalem")
	if err != nil {
		t.Skip("no time zone data:", err)
	}
	// Sunday 1 March 22:30 UTC is Monday 2 March in Jerusalem: its week is
	// the one of the two weigh-ins after it, whose mean is (80+81+82)/3.
	weights := []domain.Weight{
		{WeightKg: 80, RecordedAt: time.Date(2026, 3, 1, 22, 30, 0, 0, time.UTC)},
		{WeightKg: 81, RecordedAt: day(2)},
		{WeightKg: 82, RecordedAt: day(4)},
		{WeightKg: 83, RecordedAt: day(7)},
	}
	got := AnalyseBody(weights, nil, jerusalem, time.Monday).Metrics[0]
	if got.TrendBy != "week" || !reflect.DeepEqual(got.Trend, []TrendPoint{{"2026-03-02", 81}, {"2026-03-09", 83}}) {
		t.Fatalf("weekly trend = %s %+v", got.TrendBy, got.Trend)
	}
	if utc := AnalyseBody(weights, nil, time.UTC, time.Monday).Metrics[0].Trend; len(utc) != 3 || utc[0] != (TrendPoint{"2026-02-23", 80}) {
		t.Fatalf("in UTC the first weigh-in is a week of its own: %+v", utc)
	}
	// 30 weekly weigh-ins (1 to 30 kg above 60) span 30 weeks: by month.
	var long []domain.Weight
	for i := range 30 {
		long = append(long, domain.Weight{WeightKg: float64(61 + i), RecordedAt: day(7 * i)})
	}
	m := AnalyseBody(long, nil, time.UTC, time.Monday).Metrics[0]
	// March has the weigh-ins of the 2nd, 9th, 16th, 23rd and 30th: 61 to 65.
	if m.TrendBy != "month" || len(m.Trend) != 7 || m.Trend[0] != (TrendPoint{"2026-03-01", 63}) || m.Trend[6].From != "2026-09-01" {
		t.Fatalf("monthly trend = %s %+v", m.TrendBy, m.Trend)
	}
}

func TestProgressBenchmark(t *testing.T) {
	squat := &domain.Benchmark{Direction: domain.HigherIsBetter, Entries: []domain.BenchmarkEntry{
		{Value: 90, RecordedAt: day(-30)},
		{Value: 100, RecordedAt: day(-2)}, // the value when the goal was set
		{Value: 112.5, RecordedAt: day(20)},
	}}
	g := domain.Goal{Kind: domain.GoalBenchmark, TargetValue: ptr(120.0), CreatedAt: day(0)}
	p := Progress(g, GoalData{Benchmark: squat})
	// By hand: start 100, now 112.5, target 120: 12.5 of 20 is 62.5 %.
	if *p.Start != 100 || *p.Current != 112.5 || p.Percent != 62.5 || p.Reached {
		t.Fatalf("squat progress = %+v", p)
	}

	// Lower is better: a 5 km run from 1500 s to a 1380 s target, now 1410 s.
	run := &domain.Benchmark{Direction: domain.LowerIsBetter, Entries: []domain.BenchmarkEntry{
		{Value: 1500, RecordedAt: day(1)}, // after the goal: the first value is the start
		{Value: 1410, RecordedAt: day(10)},
	}}
	g = domain.Goal{Kind: domain.GoalBenchmark, TargetValue: ptr(1380.0), CreatedAt: day(0)}
	p = Progress(g, GoalData{Benchmark: run})
	// By hand: 90 s of the 120 s to gain is 75 %.
	if *p.Start != 1500 || *p.Current != 1410 || p.Percent != 75 || p.Reached {
		t.Fatalf("run progress = %+v", p)
	}
	run.Entries = append(run.Entries, domain.BenchmarkEntry{Value: 1375, RecordedAt: day(12)})
	if p = Progress(g, GoalData{Benchmark: run}); !p.Reached || p.Percent != 100 {
		t.Fatalf("run past its target = %+v, want reached, 100 %%", p)
	}
	// Worse than the start: 0 %, never negative.
	run.Entries = []domain.BenchmarkEntry{{Value: 1500, RecordedAt: day(-1)}, {Value: 1550, RecordedAt: day(3)}}
	if p = Progress(g, GoalData{Benchmark: run}); p.Percent != 0 || p.Reached {
		t.Fatalf("a slower run = %+v, want 0 %%", p)
	}
	if Progress(g, GoalData{}) != nil {
		t.Fatal("a benchmark goal without its benchmark has no progress")
	}
}

func TestProgressMeasurement(t *testing.T) {
	weights := []domain.Weight{{WeightKg: 84, RecordedAt: day(-10)}, {WeightKg: 82, RecordedAt: day(-1)}, {WeightKg: 80.5, RecordedAt: day(20)}}
	g := domain.Goal{Kind: domain.GoalMeasurement, Measure: ptr("weightKg"), TargetValue: ptr(77.0), CreatedAt: day(0)}
	p := Progress(g, GoalData{Weights: weights})
	// By hand: from 82 down to 77 is 5 kg; 1.5 kg done is 30 %.
	if *p.Start != 82 || *p.Current != 80.5 || p.Percent != 30 || p.Reached {
		t.Fatalf("weight progress = %+v", p)
	}
	// A goal to go up (arm 35 → 38 cm), now 36.5: 50 %.
	ms := []domain.Measurement{{RecordedAt: day(-3), ArmCm: ptr(35.0)}, {RecordedAt: day(5), WaistCm: ptr(80.0)}, {RecordedAt: day(9), ArmCm: ptr(36.5)}}
	g = domain.Goal{Kind: domain.GoalMeasurement, Measure: ptr("armCm"), TargetValue: ptr(38.0), CreatedAt: day(0)}
	if p = Progress(g, GoalData{Measurements: ms}); *p.Start != 35 || *p.Current != 36.5 || p.Percent != 50 {
		t.Fatalf("arm progress = %+v", p)
	}
	// No values yet: progress with no current.
	g.Measure = ptr("hipsCm")
	if p = Progress(g, GoalData{Measurements: ms}); p == nil || p.Current != nil || p.Percent != 0 {
		t.Fatalf("hips without values = %+v", p)
	}
	if Progress(domain.Goal{Kind: domain.GoalText, TargetValue: ptr(1.0)}, GoalData{}) != nil {
		t.Fatal("a free-text goal has no progress")
	}
}

func TestProgressConsistency(t *testing.T) {
	// Today is 2026-03-29; the weeks are 03-02..03-08, 03-09..03-15,
	// 03-16..03-22 and 03-23..03-29.
	s := func(date, status string) domain.Session { return domain.Session{Date: date, Status: status} }
	sessions := []domain.Session{
		s("2026-03-01", domain.SessionCompleted), // before the 4 weeks
		s("2026-03-02", domain.SessionCompleted),
		s("2026-03-04", domain.SessionCompleted),
		s("2026-03-10", domain.SessionCompleted),
		s("2026-03-12", domain.SessionMissed),
		s("2026-03-16", domain.SessionCompleted),
		s("2026-03-18", domain.SessionCompleted),
		s("2026-03-20", domain.SessionCompleted),
		s("2026-03-29", domain.SessionCompleted),
		s("2026-03-30", domain.SessionPlanned),
	}
	g := domain.Goal{Kind: domain.GoalConsistency, TargetValue: ptr(3.0)}
	p := Progress(g, GoalData{Sessions: sessions, Today: "2026-03-29"})
	// By hand: weeks 2, 1, 3, 1 → 7 sessions / 4 weeks = 1.75 a week; 1.75/3 = 58.3 %.
	if !reflect.DeepEqual(p.Weeks, []int{2, 1, 3, 1}) || *p.Current != 1.75 || p.Percent != 58.3 || p.Reached || p.Start != nil {
		t.Fatalf("consistency = %+v (current %v)", p, *p.Current)
	}
	g.TargetValue = ptr(1.5)
	if p = Progress(g, GoalData{Sessions: sessions, Today: "2026-03-29"}); !p.Reached || p.Percent != 100 {
		t.Fatalf("consistency at 1.5 a week = %+v", p)
	}
}

func TestOnboarding(t *testing.T) {
	none := Onboarding(IntakeFacts{})
	if none.Complete || len(none.Done) != 0 || len(none.Missing) != 5 || none.Missing[0].Part != IntakeProfile || none.Missing[4].Part != IntakeGoals {
		t.Fatalf("nothing done = %+v", none)
	}
	half := Onboarding(IntakeFacts{Profile: &domain.TrainingProfile{Availability: []int{1, 4}, Experience: ptr("beginner")}, Goals: 1})
	if !reflect.DeepEqual(half.Done, []string{IntakeAvailability, IntakeGoals}) || half.Complete {
		t.Fatalf("half done = %+v; profile needs a session length too", half)
	}
	var missing []string
	for _, m := range half.Missing {
		missing = append(missing, m.Part)
		if m.Needs == "" {
			t.Errorf("%s missing without saying what it needs", m.Part)
		}
	}
	if !reflect.DeepEqual(missing, []string{IntakeProfile, IntakeEquipment, IntakeBenchmarks}) {
		t.Fatalf("missing = %v", missing)
	}
	all := Onboarding(IntakeFacts{Profile: &domain.TrainingProfile{Availability: []int{1}, Equipment: []string{"barbell"}, Experience: ptr("advanced"), SessionMinutes: ptr(45)}, Benchmarks: 2, Goals: 1})
	if !all.Complete || !reflect.DeepEqual(all.Done, IntakeParts) || len(all.Missing) != 0 {
		t.Fatalf("everything done = %+v", all)
	}
}

func TestInjuryGuidance(t *testing.T) {
	// A fixed catalogue, so the expected lists are worked out here.
	cat := map[string]domain.Exercise{
		"squat":      {ID: "squat", Name: "Squat", Loads: []string{"knee", "hip"}, Alternatives: []string{"leg-press", "hip-thrust", "box-squat"}},
		"leg-press":  {ID: "leg-press", Name: "Leg press", Loads: []string{"knee"}, Alternatives: []string{"squat"}},
		"hip-thrust": {ID: "hip-thrust", Name: "Hip thrust", Loads: []string{"hip", "glute"}},
		"box-squat":  {ID: "box-squat", Name: "Box squat", Loads: []string{"hip"}},
		"bench":      {ID: "bench", Name: "Bench press", Loads: []string{"shoulder", "chest"}, Alternatives: []string{"push-up"}},
		"push-up":    {ID: "push-up", Name: "Push-up", Loads: []string{"wrist", "chest"}},
		"running":    {ID: "running", Name: "Running", Loads: []string{"knee", "ankle"}, Alternatives: []string{"cycling", "rowing"}},
		"cycling":    {ID: "cycling", Name: "Cycling", Loads: []string{"knee"}},
		"rowing":     {ID: "rowing", Name: "Rowing", Loads: []string{"lower_back"}},
	}
	find := func(id string) (domain.Exercise, bool) { e, ok := cat[id]; return e, ok }
	pe := func(ids ...string) []domain.SessionExercise {
		var out []domain.SessionExercise
		for _, id := range ids {
			out = append(out, domain.SessionExercise{ExerciseID: id})
		}
		return out
	}
	sessions := []domain.Session{
		{ID: "ses_3", Date: "2026-03-06", Title: "Run", Status: domain.SessionPlanned, Exercises: pe("running")},
		{ID: "ses_1", Date: "2026-03-03", Title: "Legs", Status: domain.SessionPlanned, Exercises: pe("squat", "bench", "leg-press")},
		{ID: "ses_2", Date: "2026-03-04", Title: "Done already", Status: domain.SessionCompleted, Exercises: pe("squat")},
		{ID: "ses_4", Date: "2026-03-20", Title: "Too far", Status: domain.SessionPlanned, Exercises: pe("squat")},
		{ID: "ses_5", Date: "2026-03-05", Title: "Custom", Status: domain.SessionPlanned, Exercises: []domain.SessionExercise{{ExerciseID: "exr_unknown", Name: "Sled push"}, {ExerciseID: "push-up"}}},
	}
	g := InjuryGuidance("knee", []string{"exr_unknown"}, sessions, "2026-03-02", "2026-03-15", find)
	// By hand, for the knee from 03-02 to 03-15: planned sessions ses_1, ses_5
	// and ses_3 (ses_2 is completed, ses_4 is past the window).
	//   ses_1 squat loads the knee; its swaps: leg-press (knee: no),
	//         hip-thrust and box-squat (hip only: yes). bench: no. leg-press
	//         loads the knee; its swap squat loads it too: none.
	//   ses_5 the studio's sled push is named affected; push-up spares the knee.
	//   ses_3 running loads the knee; cycling does too, rowing does not.
	want := Guidance{Area: "knee", From: "2026-03-02", To: "2026-03-15", PlannedSessions: 3, AtRisk: []AtRisk{
		{SessionID: "ses_1", Date: "2026-03-03", Session: "Legs", ExerciseID: "squat", Name: "Squat", Reason: RiskLoadsArea,
			Alternatives: []ExerciseRef{{"hip-thrust", "Hip thrust"}, {"box-squat", "Box squat"}}},
		{SessionID: "ses_1", Date: "2026-03-03", Session: "Legs", ExerciseID: "leg-press", Name: "Leg press", Reason: RiskLoadsArea, Alternatives: []ExerciseRef{}},
		{SessionID: "ses_5", Date: "2026-03-05", Session: "Custom", ExerciseID: "exr_unknown", Name: "Sled push", Reason: RiskAffected, Alternatives: []ExerciseRef{}},
		{SessionID: "ses_3", Date: "2026-03-06", Session: "Run", ExerciseID: "running", Name: "Running", Reason: RiskLoadsArea, Alternatives: []ExerciseRef{{"rowing", "Rowing"}}},
	}}
	if !reflect.DeepEqual(g, want) {
		t.Fatalf("guidance =\n%+v\nwant\n%+v", g, want)
	}
	// The shoulder: only the bench press, whose push-up swap spares it.
	g = InjuryGuidance("shoulder", nil, sessions, "2026-03-02", "2026-03-15", find)
	if len(g.AtRisk) != 1 || g.AtRisk[0].ExerciseID != "bench" || !reflect.DeepEqual(g.AtRisk[0].Alternatives, []ExerciseRef{{"push-up", "Push-up"}}) {
		t.Fatalf("shoulder guidance = %+v", g)
	}
	if g = InjuryGuidance("neck", nil, sessions, "2026-03-02", "2026-03-15", find); g.AtRisk == nil || len(g.AtRisk) != 0 || g.PlannedSessions != 3 {
		t.Fatalf("neck guidance = %+v, want nothing at risk of 3 planned", g)
	}
}
