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

// lift is a planned strength exercise with the share of the trainee's
// squat 1RM its own 1RM starts at.
type lift struct {
	id    string
	share float64
}

// planTemplate is a program template the demo builds: its days (weekday,
// title, sport, minutes, lifts or a run) and its phases' lengths.
type planTemplate struct {
	name, description string
	sport             string
	days              []planDay
	phases            []phase
}

type planDay struct {
	weekday  int
	title    string
	minutes  int
	lifts    []lift
	run      bool // a run; its distance grows week by week
	mobility bool
}

type phase struct {
	name, focus string
	weeks       int
	sets, reps  int
	percent     float64 // of 1RM
}

var planTemplates = []planTemplate{
	{name: "Full-body strength, 3 days", description: "Three full-body sessions a week in 12 weeks: base, build, peak and a deload.", sport: "strength",
		days: []planDay{
			{weekday: 1, title: "Full body A", minutes: 60, lifts: []lift{{"back-squat", 1}, {"bench-press", 0.72}, {"barbell-row", 0.6}, {"plank", 0}}},
			{weekday: 3, title: "Full body B", minutes: 60, lifts: []lift{{"deadlift", 1.2}, {"overhead-press", 0.45}, {"pull-up", 0}, {"walking-lunge", 0.3}}},
			{weekday: 5, title: "Full body C", minutes: 55, lifts: []lift{{"front-squat", 0.8}, {"incline-dumbbell-press", 0.25}, {"seated-cable-row", 0.55}, {"hip-thrust", 1.1}}},
		},
		phases: []phase{{"Base", "technique and volume", 4, 3, 10, 65}, {"Build", "strength", 4, 4, 6, 75}, {"Peak", "heavy triples", 3, 5, 3, 85}, {"Deload", "recovery", 1, 2, 8, 60}}},
	{name: "Run 5 to 10 km", description: "Three runs a week and one strength day, from 5 km to 10 km in 10 weeks.", sport: "running",
		days: []planDay{
			{weekday: 2, title: "Easy run", minutes: 40, run: true},
			{weekday: 4, title: "Strength for runners", minutes: 45, lifts: []lift{{"goblet-squat", 0.35}, {"romanian-deadlift", 0.7}, {"step-up", 0.2}, {"standing-calf-raise", 0.5}}},
			{weekday: 6, title: "Long run", minutes: 60, run: true},
			{weekday: 7, title: "Mobility", minutes: 25, mobility: true},
		},
		phases: []phase{{"Base", "easy kilometres", 4, 3, 10, 60}, {"Build", "longer runs", 4, 3, 8, 70}, {"Taper", "race week", 2, 2, 8, 60}}},
	{name: "אימון כוח עליון-תחתון", description: "Upper and lower days twice a week, 8 weeks of hypertrophy.", sport: "strength",
		days: []planDay{
			{weekday: 1, title: "Lower", minutes: 60, lifts: []lift{{"back-squat", 1}, {"romanian-deadlift", 0.8}, {"leg-press", 1.6}, {"leg-curl", 0.35}}},
			{weekday: 2, title: "Upper", minutes: 60, lifts: []lift{{"bench-press", 0.72}, {"lat-pulldown", 0.55}, {"dumbbell-shoulder-press", 0.2}, {"dumbbell-curl", 0.12}}},
			{weekday: 4, title: "Lower", minutes: 55, lifts: []lift{{"deadlift", 1.2}, {"bulgarian-split-squat", 0.25}, {"hip-thrust", 1.1}, {"standing-calf-raise", 0.6}}},
			{weekday: 5, title: "Upper", minutes: 55, lifts: []lift{{"incline-bench-press", 0.6}, {"dumbbell-row", 0.25}, {"lateral-raise", 0.07}, {"triceps-pushdown", 0.2}}},
		},
		phases: []phase{{"Accumulation", "volume", 4, 4, 10, 67}, {"Intensification", "heavier sets", 3, 4, 6, 77}, {"Deload", "recovery", 1, 2, 8, 60}}},
}

// prLifts are the lifts whose estimated 1RM the demo keeps as benchmarks.
var prLifts = []string{"back-squat", "bench-press", "deadlift", "overhead-press"}

func (t planTemplate) weeks() int {
	n := 0
	for _, p := range t.phases {
		n += p.weeks
	}
	return n
}

// phaseOf is the phase of week w (0-based).
func (t planTemplate) phaseOf(w int) phase {
	for _, p := range t.phases {
		if w < p.weeks {
			return p
		}
		w -= p.weeks
	}
	return t.phases[len(t.phases)-1]
}

// structure is the template's program structure, as the lane stores it.
func (t planTemplate) structure() *domain.ProgramStructure {
	var s domain.ProgramStructure
	for _, p := range t.phases {
		focus := p.focus
		ph := domain.ProgramPhase{Name: p.name, Focus: &focus}
		for w := range p.weeks {
			var week domain.ProgramWeek
			for _, d := range t.days {
				wd, minutes := d.weekday, d.minutes
				day := domain.ProgramDay{Weekday: &wd, Title: d.title, Sport: daySport(t, d), DurationMin: &minutes}
				for _, ex := range plannedExercises(t, d, p, w) {
					day.Exercises = append(day.Exercises, domain.PlannedExercise{ExerciseID: ex.ExerciseID, Name: ex.Name, Target: *ex.Target})
				}
				week.Days = append(week.Days, day)
			}
			ph.Weeks = append(ph.Weeks, week)
		}
		s.Phases = append(s.Phases, ph)
	}
	return &s
}

func daySport(t planTemplate, d planDay) string {
	switch {
	case d.run:
		return "running"
	case d.mobility:
		return "mobility"
	case t.sport == "running":
		return "strength"
	}
	return t.sport
}

// plannedExercises are a day's exercises with their targets in phase p,
// week w of the phase (runs lengthen by 10% a week).
func plannedExercises(t planTemplate, d planDay, p phase, w int) []domain.SessionExercise {
	var out []domain.SessionExercise
	add := func(id string, target domain.ExerciseTarget) {
		e, _ := exercises.Get(id)
		out = append(out, domain.SessionExercise{ExerciseID: id, Name: e.Name, Target: &target, Sets: []domain.SetEntry{}})
	}
	switch {
	case d.run:
		metres := 5000 * math.Pow(1.07, float64(w))
		if d.title == "Long run" {
			metres *= 1.4
		}
		metres = math.Round(metres/100) * 100
		add("running", domain.ExerciseTarget{Metres: &metres})
	case d.mobility:
		for _, id := range []string{"worlds-greatest-stretch", "hip-flexor-stretch", "foam-rolling"} {
			add(id, domain.ExerciseTarget{Seconds: ptrTo(300)})
		}
	default:
		for _, l := range d.lifts {
			e, _ := exercises.Get(l.id)
			target := domain.ExerciseTarget{Sets: ptrTo(p.sets), Reps: ptrTo(p.reps), RestSeconds: ptrTo(120)}
			switch e.Measure {
			case domain.MeasureRepsLoad:
				pct := p.percent
				target.PercentRM = &pct
			case domain.MeasureTime:
				target.Reps, target.Seconds = nil, ptrTo(45)
			default:
				target.RIR = ptrTo(2)
			}
			add(l.id, target)
		}
	}
	return out
}

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
	profile := domain.TrainingProfile{TraineeID: t.ID, Equipment: equipment, Availability: availability, SessionMinutes: ptrTo(45 + 15*(k%3)),
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
		cycleStart := monday(start)
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
					date := addDays(c, 7*w+d.weekday-1)
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
	weekStart := monday(today)
	for _, x := range sessions {
		switch {
		case k == roleNoRecentSession && x.Date >= addDays(today, -13) && x.Date < today:
			markMissed(x)
		case k == roleMissed && x.Date >= weekStart && x.Date < today:
			markMissed(x)
		}
	}
	if k == roleMissed && weekStart < today {
		// At least two this week, even early in it: an extra run on Monday.
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
		c := domain.CheckIn{TraineeID: t.ID, Day: day, Readiness: ptrTo(5 + rnd.IntN(5)), Soreness: ptrTo(1 + rnd.IntN(5)),
			SleepHours: ptrTo(float64(55+rnd.IntN(30)) / 10), SleepQuality: ptrTo(2 + rnd.IntN(4)), Mood: ptrTo(2 + rnd.IntN(4)), Stress: ptrTo(1 + rnd.IntN(4)),
			SoreAreas: []string{}, CreatedAt: dayAt(day, 7, zone).Add(time.Duration(rnd.IntN(90)) * time.Minute)}
		if *c.Soreness >= 4 {
			c.SoreAreas = []string{[]string{"quadriceps", "glute", "hamstring", "upper_back", "calf"}[rnd.IntN(5)]}
		}
		if k == roleLowReadiness {
			if back == 0 {
				continue // today's is not in yet
			}
			if back <= 3 {
				c.Readiness, c.SleepHours, c.Stress = ptrTo([]int{3, 4, 3}[back-1]), ptrTo(4.5+0.5*float64(back%2)), ptrTo(5)
				c.Note = ptrTo([]string{"עייפה מאוד, לילה קשה", "Work deadline, barely slept", "Legs heavy, low energy"}[back-1])
			}
		}
		if k == roleInjury && back <= 9 {
			c.SoreAreas, c.Soreness = []string{"knee"}, ptrTo(6)
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
			AffectedExercises: []string{"back-squat", "walking-lunge", "running"}, Notes: ptrTo("Pain on the inside of the left knee when squatting deep.")})
	case k%7 == 3:
		onset := addDays(today, -150)
		if onset < start {
			onset = start
		}
		resolved := addDays(onset, 40)
		injuries = append(injuries, domain.Injury{Area: "lower_back", Side: "none", Severity: 2, Status: domain.InjuryResolved, OnsetOn: onset, ResolvedOn: &resolved,
			AffectedExercises: []string{"deadlift", "barbell-row"}, Notes: ptrTo("כאב גב תחתון אחרי דדליפט כבד")})
	case k%11 == 6:
		injuries = append(injuries, domain.Injury{Area: "shoulder", Side: "right", Severity: 2, Status: domain.InjuryRecovering, OnsetOn: addDays(today, -30),
			AffectedExercises: []string{"overhead-press", "bench-press"}, Notes: ptrTo("Impingement; pressing light, pain-free range only.")})
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
		goals = append(goals, domain.Goal{Title: fmt.Sprintf("Squat %g kg", target), Kind: domain.GoalBenchmark, BenchmarkID: &id, TargetValue: &target, Unit: ptrTo("kg"), TargetDate: ptrTo(addDays(today, 90))})
	}
	if hasProgram && k%2 == 0 {
		goals = append(goals, domain.Goal{Title: "3 sessions every week", Kind: domain.GoalConsistency, TargetValue: ptrTo(3.0), Unit: ptrTo("sessions/week")})
	}
	if k == roleWeightAway || k%4 == 1 {
		w := 70.0
		if t.WeightKg != nil {
			w = *t.WeightKg
		}
		target := math.Round(w) - 6
		goals = append(goals, domain.Goal{Title: fmt.Sprintf("להגיע ל-%g ק\"ג", target), Kind: domain.GoalMeasurement, Measure: ptrTo("weightKg"), TargetValue: &target, Unit: ptrTo("kg"), TargetDate: ptrTo(addDays(today, 120))})
	}
	if k%5 == 2 {
		goals = append(goals, domain.Goal{Title: "Run a half marathon in the spring", Kind: domain.GoalText})
		done := now.AddDate(0, -2, 0)
		goals = append(goals, domain.Goal{Title: "First unassisted pull-up", Kind: domain.GoalText, Status: domain.GoalCompleted, CompletedAt: &done})
	}
	if k%9 == 4 {
		goals = append(goals, domain.Goal{Title: "Train every morning at 6", Kind: domain.GoalText, Status: domain.GoalAbandoned})
	}
	for i := range goals {
		g := &goals[i]
		g.TraineeID = t.ID
		if g.Status == "" {
			g.Status = domain.GoalActive
		}
		g.CreatedAt = dayAt(start, 12, zone).AddDate(0, 0, 2)
		g.UpdatedAt = g.CreatedAt
		if err := ss.CreateGoal(ctx, g); err != nil {
			return fmt.Errorf("goal %s: %w", g.Title, err)
		}
	}

	// Body measurements once a month for half of the trainees.
	if k%2 == 0 {
		fat, waist := 18+float64(rnd.IntN(14)), 75+float64(rnd.IntN(25))
		for date := start; date <= today; date = addDays(date, 30) {
			m := domain.Measurement{TraineeID: t.ID, RecordedAt: dayAt(date, 8, zone), BodyFatPct: ptrTo(round1(fat)), WaistCm: ptrTo(round1(waist)),
				HipsCm: ptrTo(round1(waist + 18)), ChestCm: ptrTo(round1(waist + 20)), ArmCm: ptrTo(round1(30 + fat/10)), ThighCm: ptrTo(round1(52 + fat/5)),
				RestingHR: ptrTo(58 + rnd.IntN(14))}
			m.CreatedAt = m.RecordedAt
			if err := ss.CreateMeasurement(ctx, &m); err != nil {
				return fmt.Errorf("measurement: %w", err)
			}
			fat -= 0.2 + 0.4*rnd.Float64()
			waist -= 0.3 * rnd.Float64()
		}
	}
	return seedTriageFacts(ctx, ss, a, now, today, zone)
}

// seedTriageFacts gives the role trainees the plan, form, task and weight
// facts of their triage reason (sessions, check-ins and injuries are laid
// out above).
func seedTriageFacts(ctx context.Context, ss store.StudioStore, a *athlete, now time.Time, today string, zone *time.Location) error {
	t := a.t
	switch a.k {
	case rolePlanEnded, rolePlanEnding:
		subs, err := ss.ListSubscriptions(ctx, t.ID)
		if err != nil {
			return err
		}
		products, err := ss.ListProducts(ctx, "", store.Page{Limit: 200})
		if err != nil {
			return err
		}
		monthly := products.Items[slices.IndexFunc(products.Items, func(p domain.Product) bool { return p.DurationDays != nil && *p.DurationDays == 30 && p.Price != nil })]
		for _, s := range subs {
			if s.Status != domain.SubCancelled {
				// Switched to the monthly plan below.
				if err := ss.SetSubscriptionState(ctx, s.ID, domain.SubCancelled); err != nil {
					return err
				}
			}
		}
		ends := addDays(today, 4)
		if a.k == rolePlanEnded {
			ends = addDays(today, -10)
		}
		sub := domain.Subscription{TraineeID: t.ID, ProductID: monthly.ID, StartedOn: addDays(ends, -29), EndsOn: &ends, Price: monthly.Price, CreatedAt: dayAt(addDays(ends, -30), 10, zone)}
		if err := ss.CreateSubscription(ctx, &sub); err != nil {
			return fmt.Errorf("plan: %w", err)
		}
	case roleFormPastDue:
		forms, err := ss.ListFormTemplates(ctx, "", store.Page{Limit: 200})
		if err != nil {
			return err
		}
		if len(forms.Items) == 0 {
			return fmt.Errorf("no form to send")
		}
		off := false
		due := now.Add(-50 * time.Hour).Truncate(time.Hour)
		f := domain.FormAssignment{TraineeID: t.ID, FormTemplateID: forms.Items[len(forms.Items)-1].ID, DueAt: &due, Prompt: ptrTo("Your weekly check-in, please"), Notify: &off, CreatedAt: now.AddDate(0, 0, -5)}
		if err := ss.CreateFormAssignment(ctx, &f); err != nil {
			return fmt.Errorf("form: %w", err)
		}
	case roleOverdueTask:
		due := now.Add(-72 * time.Hour).Truncate(time.Hour)
		task := domain.Task{Title: "לתאם שיחת מעקב על התוכנית", ClientID: &t.ID, DueAt: &due, Priority: 3, CreatedAt: now.AddDate(0, 0, -6)}
		if len(t.CoachIDs) > 0 {
			task.CoachID = &t.CoachIDs[0]
		}
		if err := ss.CreateTask(ctx, &task); err != nil {
			return fmt.Errorf("task: %w", err)
		}
	case roleWeightAway:
		// Three weigh-ins a week for four weeks, chosen so that each
		// week's average (with the weigh-ins already there) is a kilo
		// heavier: away from the goal set above.
		base := 70.0
		if t.WeightKg != nil {
			base = *t.WeightKg
		}
		for week := range 4 {
			from := addDays(today, -27+7*week)
			had, err := ss.WeightsBetween(ctx, t.ID, dayAt(from, 0, zone), dayAt(addDays(from, 7), 0, zone))
			if err != nil {
				return err
			}
			sum := 0.0
			for _, w := range had {
				sum += w.WeightKg
			}
			target := base + 1 + float64(week)
			v := (float64(len(had)+3)*target - sum) / 3
			for i, day := range []int{0, 3, 5} {
				w := domain.Weight{TraineeID: t.ID, WeightKg: round1(v), RecordedAt: dayAt(addDays(from, day), 7, zone).Add(time.Duration(i) * time.Minute)}
				if err := ss.CreateWeight(ctx, &w); err != nil {
					return fmt.Errorf("weight: %w", err)
				}
			}
		}
		// The profile's weight is the latest weigh-in, as the lane keeps it.
		ws, err := ss.ListWeights(ctx, t.ID, store.Page{Limit: 1})
		if err != nil {
			return err
		}
		t.WeightKg = &ws.Items[0].WeightKg
		t.UpdatedAt = time.Time{}
		if err := ss.UpdateTrainee(ctx, &t); err != nil {
			return fmt.Errorf("trainee weight: %w", err)
		}
	}
	return nil
}

// session is one session of the plan on date: completed with its sets,
// skipped or missed when past; planned from today on.
func (a *athlete) session(rnd *rand.Rand, pt planTemplate, d planDay, w int, date string, programID *string, today string, zone *time.Location) *domain.Session {
	p := phase{sets: 3, reps: 10, percent: 65}
	if len(pt.phases) > 0 {
		p = pt.phaseOf(w)
	}
	minutes := d.minutes
	x := &domain.Session{ID: ids.New(ids.Session), TraineeID: a.t.ID, ProgramID: programID, Date: date, StartTime: ptrTo([]string{"07:00", "18:30", "20:00"}[a.k%3]),
		Sport: daySport(pt, d), Title: d.title, Status: domain.SessionPlanned, Source: domain.SessionFromProgram, DurationMin: &minutes,
		Exercises: plannedExercises(pt, d, p, w), CreatedAt: dayAt(date, 8, zone).AddDate(0, 0, -14)}
	if programID == nil {
		x.Source = domain.SessionFromCoach
	}
	if x.CreatedAt.After(dayAt(today, 6, zone)) {
		x.CreatedAt = dayAt(today, 6, zone)
	}
	x.UpdatedAt = x.CreatedAt
	if date >= today {
		return x
	}
	switch r := rnd.IntN(100); {
	case r < 6:
		x.Status, x.Notes = domain.SessionSkipped, ptrTo([]string{"Sick", "עבודה עד מאוחר", "Travelling"}[rnd.IntN(3)])
		return x
	case r < 14:
		x.Status = domain.SessionMissed
		return x
	}
	// Completed: sets done at the phase's load of a 1RM that grows about
	// half a percent a week of training.
	weeksIn := float64(dayCount(a.start, date)) / 7
	growth := 1 + 0.005*weeksIn
	for i := range x.Exercises {
		ex := &x.Exercises[i]
		e, _ := exercises.Get(ex.ExerciseID)
		tg := ex.Target
		switch {
		case tg.Metres != nil:
			pace := a.fitness / 5000 / (1 + 0.003*weeksIn) * (0.97 + 0.06*rnd.Float64()) // seconds per metre
			m := *tg.Metres * (0.95 + 0.1*rnd.Float64())
			m = math.Round(m/10) * 10
			secs := int(m * pace)
			ex.Sets = []domain.SetEntry{{Metres: &m, Seconds: &secs, Done: true}}
			minutes = secs / 60
		case tg.Seconds != nil && tg.Sets == nil:
			ex.Sets = []domain.SetEntry{{Seconds: ptrTo(*tg.Seconds), Done: true}}
		case tg.Seconds != nil:
			for range *tg.Sets {
				ex.Sets = append(ex.Sets, domain.SetEntry{Seconds: ptrTo(*tg.Seconds + 5*rnd.IntN(4)), Done: true})
			}
		default:
			share := 0.0
			for _, l := range d.lifts {
				if l.id == ex.ExerciseID {
					share = l.share
				}
			}
			for s := range *tg.Sets {
				reps := *tg.Reps
				if s == *tg.Sets-1 && rnd.IntN(4) == 0 {
					reps-- // the last set fell short
				}
				set := domain.SetEntry{Reps: &reps, Done: true, RPE: ptrTo(float64(7 + rnd.IntN(3)))}
				if e.Measure == domain.MeasureRepsLoad && tg.PercentRM != nil && share > 0 {
					load := math.Round(a.squat1RM*share*growth**tg.PercentRM/100/2.5) * 2.5
					set.LoadKg = &load
				}
				ex.Sets = append(ex.Sets, set)
			}
		}
	}
	x.Status = domain.SessionCompleted
	x.Totals = training.Totals(x.Exercises)
	x.DurationMin = &minutes
	x.RPE = ptrTo(5 + rnd.IntN(5))
	if rnd.IntN(6) == 0 {
		x.Feedback = ptrTo([]string{"Felt strong today", "הרגשתי כבד, אבל סיימתי", "Great session, legs on fire", "Knees a bit achy on squats"}[rnd.IntN(4)])
	}
	done := dayAt(date, 19, zone).Add(time.Duration(minutes) * time.Minute)
	x.CompletedAt, x.UpdatedAt = &done, done
	a.notePRs(x, done)
	return x
}

// notePRs records, as the lane does, an entry for each tracked lift whose
// best estimated 1RM in x beats the trainee's best so far.
func (a *athlete) notePRs(x *domain.Session, at time.Time) {
	for _, l := range training.BestLifts(x.Exercises) {
		if !slices.Contains(prLifts, l.ExerciseID) || l.E1RM <= a.best[l.ExerciseID] {
			continue
		}
		a.best[l.ExerciseID] = l.E1RM
		sid := x.ID
		a.entries[l.ExerciseID] = append(a.entries[l.ExerciseID], domain.BenchmarkEntry{ID: ids.New(ids.BenchmarkEntry), Value: l.E1RM, RecordedAt: at, Source: domain.BenchmarkFromSession, SessionID: &sid})
	}
}

// markMissed turns a session into one the trainee missed.
func markMissed(x *domain.Session) {
	for i := range x.Exercises {
		x.Exercises[i].Sets = []domain.SetEntry{}
	}
	x.Status, x.Totals, x.RPE, x.Feedback, x.CompletedAt = domain.SessionMissed, domain.SessionTotals{}, nil, nil, nil
	x.UpdatedAt = x.CreatedAt
}

func ptrTo[T any](v T) *T { return &v }

// monday is the Monday of date's ISO week.
func monday(date string) string {
	d, _ := time.Parse(time.DateOnly, date)
	back := (int(d.Weekday()) + 6) % 7
	return d.AddDate(0, 0, -back).Format(time.DateOnly)
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
