package demo

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/exercises"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/training"
)

// The demo's training memory: structured programs laid out as sessions
// (completed with their sets, some skipped or missed, the rest planned),
// PRs and benchmarks, daily check-ins, injuries, goals, body measurements
// and training profiles. History starts at each trainee's start, at most
// a year back. A few trainees are made to meet each reason of the roster
// triage, so every coach tool answers something worth reading.

// Triage roles: the active trainee at each index meets that reason.
const (
	roleLowReadiness = 1 + iota
	roleInjury
	rolePlanEnded
	roleNoRecentSession
	roleMissed
	rolePlanEnding
	roleWeightAway
	roleOverdueTask
	roleFormPastDue
)

// athlete is what the seed tracks of one trainee while laying out history.
type athlete struct {
	t        domain.Trainee
	k        int    // index among the active trainees
	start    string // the first day of its history
	squat1RM float64
	fitness  float64 // 5 km in seconds
	best     map[string]float64
	entries  map[string][]domain.BenchmarkEntry // PRs by lift
}

func seedTraining(ctx context.Context, ss store.StudioStore, trainees []domain.Trainee, now time.Time) error {
	rnd := rand.New(rand.NewPCG(2026, 10)) // fixed: the same demo everywhere
	zone := domain.Studio{}.TimeZone()
	today := now.In(zone).Format(time.DateOnly)

	var templates []domain.ProgramTemplate
	for _, pt := range planTemplates {
		weeks := pt.weeks()
		desc := pt.description
		tm := domain.ProgramTemplate{Name: pt.name, Description: &desc, Weeks: &weeks, Structure: pt.structure(), CreatedAt: now.AddDate(-1, 0, -7)}
		if err := ss.CreateProgramTemplate(ctx, &tm); err != nil {
			return fmt.Errorf("program template %s: %w", pt.name, err)
		}
		templates = append(templates, tm)
	}
	active := slices.DeleteFunc(slices.Clone(trainees), func(t domain.Trainee) bool { return t.Status != domain.TraineeActive })
	slices.SortFunc(active, func(a, b domain.Trainee) int { return cmp.Compare(a.Phone, b.Phone) })
	if len(active) <= roleFormPastDue {
		return fmt.Errorf("the training demo needs more than %d active trainees, has %d", roleFormPastDue, len(active))
	}
	for k, t := range active {
		a := &athlete{t: t, k: k, best: map[string]float64{}, entries: map[string][]domain.BenchmarkEntry{}}
		weight := 70.0
		if t.WeightKg != nil {
			weight = *t.WeightKg
		}
		a.squat1RM = math.Round(weight * (0.9 + 0.5*rnd.Float64()))
		a.fitness = 1500 + 600*rnd.Float64() // 25 to 35 minutes for 5 km
		if err := seedAthlete(ctx, ss, rnd, a, templates, now, today, zone); err != nil {
			return fmt.Errorf("training of %s: %w", t.ID, err)
		}
	}
	return nil
}

func seedAthlete(ctx context.Context, ss store.StudioStore, rnd *rand.Rand, a *athlete, templates []domain.ProgramTemplate, now time.Time, today string, zone *time.Location) error {
	k, t := a.k, a.t
	start := today
	if t.StartedOn != nil {
		start = *t.StartedOn
	}
	if yearAgo := addDays(today, -364); start < yearAgo {
		start = yearAgo
	}
	// A third of the roster (and every triage role) has its whole history; the
	// rest the last six weeks, which keeps the seed quick.
	if recent := addDays(today, -42); k%3 != 0 && k > roleFormPastDue && start < recent {
		start = recent
	}
	a.start = start
	hasProgram := k < 10 || k%5 != 0
	pi := k % len(planTemplates)
	pt, tmpl := planTemplates[pi], templates[pi]

	// The profile: what the trainee trains with and when.
	exp := []string{"beginner", "intermediate", "advanced"}[k%3]
	var availability []int
	for _, d := range pt.days {
		availability = append(availability, d.weekday)
	}
	equipment := []string{"barbell", "rack", "bench", "dumbbell", "pull-up bar", "cable", "machine"}
	if pt.sport == "running" {
		equipment = []string{"none", "dumbbell", "kettlebell", "treadmill", "band"}
	}
	onboarding := []string{"profile", "availability", "equipment", "benchmarks", "goals"}
	if k%4 == 3 {
		onboarding = onboarding[:2] // still mid-intake
	}
	profile := domain.TrainingProfile{TraineeID: t.ID, Equipment: equipment, Availability: availability, SessionMinutes: new(45 + 15*(k%3)),
		Experience: &exp, Units: "metric", Onboarding: onboarding, UpdatedAt: now.AddDate(0, 0, -k)}
	if err := ss.PutTrainingProfile(ctx, &profile); err != nil {
		return fmt.Errorf("profile: %w", err)
	}

	// Sessions: program cycles back to back from the start, the last one
	// active and laid out to its end; without a program, runs and walks
	// the trainee logs.
	var sessions []*domain.Session
	if hasProgram {
		if err := ss.ReplaceActivePrograms(ctx, t.ID); err != nil {
			return err
		}
		weeks := pt.weeks()
		first := domain.Studio{}.FirstDay() // the demo studio's week, as Layout lays a program out
		cycleStart := training.WeekStartOn(start, first)
		var cycles []string
		for c := cycleStart; c <= today; c = addDays(c, 7*weeks) {
			cycles = append(cycles, c)
		}
		for ci, c := range cycles {
			status := domain.ProgramReplaced
			if ci == len(cycles)-1 {
				status = domain.ProgramActive
			}
			prog := domain.Program{TraineeID: t.ID, TemplateID: tmpl.ID, StartsOn: c, Status: status, CreatedAt: dayAt(c, 8, zone).AddDate(0, 0, -2)}
			if err := ss.CreateProgram(ctx, &prog); err != nil {
				return fmt.Errorf("program: %w", err)
			}
			for w := range weeks {
				for _, d := range pt.days {
					date := addDays(c, 7*w+(d.weekday-training.ISOWeekday(first)+7)%7)
					if date < start || date > addDays(today, 20) {
						continue // the next three weeks are planned
					}
					sessions = append(sessions, a.session(rnd, pt, d, w, date, &prog.ID, today, zone))
				}
			}
		}
	} else {
		for date := start; date < today; date = addDays(date, 2+rnd.IntN(3)) {
			d := planDay{title: "Morning run", minutes: 30 + 5*rnd.IntN(4), run: true}
			x := a.session(rnd, planTemplate{sport: "running"}, d, 0, date, nil, today, zone)
			x.Source = domain.SessionFromTrainee
			sessions = append(sessions, x)
		}
	}
	weekStart := training.WeekStartOn(today, domain.Studio{}.FirstDay()) // the demo studio's week
	for _, x := range sessions {
		switch {
		case k == roleNoRecentSession && x.Date >= addDays(today, -13) && x.Date < today:
			markMissed(x)
		case k == roleMissed && x.Date >= weekStart && x.Date < today:
			markMissed(x)
		}
	}
	if k == roleMissed && weekStart < today {
		// At least two this week, even early in it: an extra run on its first day.
		missed := 0
		for _, x := range sessions {
			if x.Date >= weekStart && x.Date < today {
				missed++
			}
		}
		for ; missed < 2; missed++ {
			x := a.session(rnd, planTemplate{sport: "running"}, planDay{title: "Recovery run", minutes: 25 + missed, run: true}, 0, weekStart, nil, today, zone)
			x.Source = domain.SessionFromCoach
			markMissed(x)
			sessions = append(sessions, x)
		}
	}
	if err := ss.CreateSessions(ctx, sessions); err != nil {
		return fmt.Errorf("sessions: %w", err)
	}

	// Benchmarks: each lift's PRs (found in the sessions above), the 5 km
	// run and max pull-ups.
	benchmarks := map[string]string{}
	for _, id := range prLifts {
		if len(a.entries[id]) == 0 {
			continue
		}
		e, _ := exercises.Get(id)
		exID := id
		b := domain.Benchmark{TraineeID: t.ID, Name: e.Name + " 1RM", ExerciseID: &exID, Unit: "kg", Direction: domain.HigherIsBetter,
			Entries: a.entries[id], CreatedAt: a.entries[id][0].RecordedAt}
		if err := ss.CreateBenchmark(ctx, &b); err != nil {
			return fmt.Errorf("benchmark %s: %w", b.Name, err)
		}
		benchmarks[id] = b.ID
	}
	five := domain.Benchmark{TraineeID: t.ID, Name: "5 km run", Unit: "s", Direction: domain.LowerIsBetter}
	pullUps := domain.Benchmark{TraineeID: t.ID, Name: "Max pull-ups", Unit: "reps", Direction: domain.HigherIsBetter}
	reps := float64(1 + k%8)
	for date, i := start, 0; date <= today; date, i = addDays(date, 28), i+1 {
		at := dayAt(date, 7, zone)
		fiveK := math.Round(a.fitness * (1 - 0.012*float64(i)) * (0.98 + 0.04*rnd.Float64()))
		five.Entries = append(five.Entries, domain.BenchmarkEntry{ID: ids.New(ids.BenchmarkEntry), Value: fiveK, RecordedAt: at, Source: domain.BenchmarkFromTrainee})
		if pt.sport == "strength" {
			pullUps.Entries = append(pullUps.Entries, domain.BenchmarkEntry{ID: ids.New(ids.BenchmarkEntry), Value: reps, RecordedAt: at.Add(time.Hour), Source: domain.BenchmarkFromCoach})
			reps += float64(rnd.IntN(2))
		}
	}
	for _, b := range []*domain.Benchmark{&five, &pullUps} {
		if len(b.Entries) == 0 {
			continue
		}
		b.CreatedAt = b.Entries[0].RecordedAt
		if err := ss.CreateBenchmark(ctx, b); err != nil {
			return fmt.Errorf("benchmark %s: %w", b.Name, err)
		}
	}

	// Check-ins: most days for a third of the trainees, twice a week for
	// another third, over the last two months; a run of low readiness for one.
	daily, weekly := k%3 == 0 || k == roleLowReadiness, k%3 == 1 && k != roleLowReadiness
	for back := 60; back >= 0; back-- {
		day := addDays(today, -back)
		write := daily && rnd.IntN(100) < 88 || weekly && back%7 < 2 && rnd.IntN(100) < 90
		if k == roleLowReadiness && back >= 1 && back <= 3 {
			write = true
		}
		if day < start || !write {
			continue
		}
		c := domain.CheckIn{TraineeID: t.ID, Day: day, Readiness: new(5 + rnd.IntN(5)), Soreness: new(1 + rnd.IntN(5)),
			SleepHours: new(float64(55+rnd.IntN(30)) / 10), SleepQuality: new(2 + rnd.IntN(4)), Mood: new(2 + rnd.IntN(4)), Stress: new(1 + rnd.IntN(4)),
			SoreAreas: []string{}, CreatedAt: dayAt(day, 7, zone).Add(time.Duration(rnd.IntN(90)) * time.Minute)}
		if *c.Soreness >= 4 {
			c.SoreAreas = []string{[]string{"quadriceps", "glute", "hamstring", "upper_back", "calf"}[rnd.IntN(5)]}
		}
		if k == roleLowReadiness {
			if back == 0 {
				continue // today's is not in yet
			}
			if back <= 3 {
				c.Readiness, c.SleepHours, c.Stress = new([]int{3, 4, 3}[back-1]), new(4.5+0.5*float64(back%2)), new(5)
				c.Note = new([]string{"עייפה מאוד, לילה קשה", "Work deadline, barely slept", "Legs heavy, low energy"}[back-1])
			}
		}
		if k == roleInjury && back <= 9 {
			c.SoreAreas, c.Soreness = []string{"knee"}, new(6)
		}
		if k%10 == 5 && back <= 1 {
			c.SoreAreas, c.Soreness = []string{"hamstring", "glute"}, new(7) // sore after a hard week: the roster's soreness question
		}
		c.UpdatedAt = c.CreatedAt
		if _, err := ss.PutCheckIn(ctx, &c); err != nil {
			return fmt.Errorf("check-in %s: %w", day, err)
		}
	}

	// Injuries: one active, a few resolved or recovering.
	var injuries []domain.Injury
	switch {
	case k == roleInjury:
		injuries = append(injuries, domain.Injury{Area: "knee", Side: "left", Severity: 3, Status: domain.InjuryActive, OnsetOn: addDays(today, -9),
			AffectedExercises: []string{"back-squat", "walking-lunge", "running"}, Notes: new("Pain on the inside of the left knee when squatting deep.")})
	case k%7 == 3:
		onset := addDays(today, -150)
		if onset < start {
			onset = start
		}
		resolved := addDays(onset, 40)
		injuries = append(injuries, domain.Injury{Area: "lower_back", Side: "none", Severity: 2, Status: domain.InjuryResolved, OnsetOn: onset, ResolvedOn: &resolved,
			AffectedExercises: []string{"deadlift", "barbell-row"}, Notes: new("כאב גב תחתון אחרי דדליפט כבד")})
	case k%11 == 6:
		injuries = append(injuries, domain.Injury{Area: "shoulder", Side: "right", Severity: 2, Status: domain.InjuryRecovering, OnsetOn: addDays(today, -30),
			AffectedExercises: []string{"overhead-press", "bench-press"}, Notes: new("Impingement; pressing light, pain-free range only.")})
	}
	for i := range injuries {
		injuries[i].TraineeID = t.ID
		injuries[i].CreatedAt = dayAt(injuries[i].OnsetOn, 19, zone)
		injuries[i].UpdatedAt = injuries[i].CreatedAt
		if err := ss.CreateInjury(ctx, &injuries[i]); err != nil {
			return fmt.Errorf("injury: %w", err)
		}
	}

	// Goals: a lift target, consistency, a weight goal, free text.
	var goals []domain.Goal
	if id, ok := benchmarks["back-squat"]; ok && k%3 == 0 {
		target := math.Round(a.best["back-squat"]*1.1/2.5) * 2.5
		goals = append(goals, domain.Goal{Title: fmt.Sprintf("Squat %g kg", target), Kind: domain.GoalBenchmark, BenchmarkID: &id, TargetValue: &target, Unit: new("kg"), TargetDate: new(addDays(today, 90))})
	}
	if hasProgram && k%2 == 0 {
		goals = append(goals, domain.Goal{Title: "3 sessions every week", Kind: domain.GoalConsistency, TargetValue: new(3.0), Unit: new("sessions/week")})
	}
	if k == roleWeightAway || k%4 == 1 {
		w := 70.0
		if t.WeightKg != nil {
			w = *t.WeightKg
		}
		target := math.Round(w) - 6
		goals = append(goals, domain.Goal{Title: fmt.Sprintf("להגיע ל-%g ק\"ג", target), Kind: domain.GoalMeasurement, Measure: new("weightKg"), TargetValue: &target, Unit: new("kg"), TargetDate: new(addDays(today, 120))})
	}
	if k%5 == 2 {
		goals = append(goals, domain.Goal{Title: "Run a half marathon in the spring", Kind: domain.GoalText})
		done := now.AddDate(0, -2, 0)
		goals = append(goals, domain.Goal{Title: "First unassisted pull-up", Kind: domain.GoalText, Status: domain.GoalCompleted, CompletedAt: &done})
	}
	if k%9 == 4 {
		goals = append(goals, domain.Goal{Title: "Train every morning at 6", Kind: domain.GoalText, Status: domain.GoalAbandoned})
	}
	if k%6 == 1 { // reached this month: the roster's goals_reached question
		done := now.AddDate(0, 0, -(2 + k%12))
		goals = append(goals, domain.Goal{Title: "Hold a 60-second plank", Kind: domain.GoalText, Status: domain.GoalCompleted, CompletedAt: &done})
	}
	for i := range goals {
		g := &goals[i]
		g.TraineeID = t.ID
		if g.Status == "" {
			g.Status = domain.GoalActive
		}
		// A minute apart, in this order: goals list by when they were
		// made, and equal times would fall back on their random ids.
		g.CreatedAt = dayAt(start, 12, zone).AddDate(0, 0, 2).Add(time.Duration(i) * time.Minute)
		g.UpdatedAt = g.CreatedAt
		if err := ss.CreateGoal(ctx, g); err != nil {
			return fmt.Errorf("goal %s: %w", g.Title, err)
		}
	}

	// Body measurements once a month for half of the trainees.
	if k%2 == 0 {
		fat, waist := 18+float64(rnd.IntN(14)), 75+float64(rnd.IntN(25))
		for date := start; date <= today; date = addDays(date, 30) {
			m := domain.Measurement{TraineeID: t.ID, RecordedAt: dayAt(date, 8, zone), BodyFatPct: new(round1(fat)), WaistCm: new(round1(waist)),
				HipsCm: new(round1(waist + 18)), ChestCm: new(round1(waist + 20)), ArmCm: new(round1(30 + fat/10)), ThighCm: new(round1(52 + fat/5)),
				RestingHR: new(58 + rnd.IntN(14))}
			m.CreatedAt = m.RecordedAt
			if err := ss.CreateMeasurement(ctx, &m); err != nil {
				return fmt.Errorf("measurement: %w", err)
			}
			fat -= 0.2 + 0.4*rnd.Float64()
			waist -= 0.3 * rnd.Float64()
		}
	}
	// Feedback for the studio from one trainee in eight, this fortnight.
	if k%8 == 3 {
		said := []struct {
			text, topic string
			rating      int
		}{
			{"The new program is great, but the Wednesday class is too crowded.", "schedule", 4},
			{"המאמנת מעולה, הייתי שמחה לעוד אימוני ריצה", "coaching", 5},
			{"Hard to book the morning slots lately.", "booking", 3},
			{"I would love a nutrition session.", "services", 4},
		}[(k/8)%4]
		f := domain.Feedback{TraineeID: t.ID, Text: said.text, Topic: &said.topic, Rating: &said.rating, Source: "mcp", CreatedAt: now.AddDate(0, 0, -(1 + k%13))}
		if err := ss.CreateFeedback(ctx, &f); err != nil {
			return fmt.Errorf("feedback: %w", err)
		}
	}
	return seedTriageFacts(ctx, ss, a, now, today, zone)
}

func dayCount(from, to string) int {
	a, _ := time.Parse(time.DateOnly, from)
	b, _ := time.Parse(time.DateOnly, to)
	return int(b.Sub(a).Hours() / 24)
}

// dayAt is hour o'clock of the local date in zone.
func dayAt(date string, hour int, zone *time.Location) time.Time {
	d, _ := time.ParseInLocation(time.DateOnly, date, zone)
	return d.Add(time.Duration(hour) * time.Hour).UTC()
}
