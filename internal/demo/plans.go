package demo

import (
	"math"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/exercises"
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
			add(id, domain.ExerciseTarget{Seconds: new(300)})
		}
	default:
		for _, l := range d.lifts {
			e, _ := exercises.Get(l.id)
			target := domain.ExerciseTarget{Sets: new(p.sets), Reps: new(p.reps), RestSeconds: new(120)}
			switch e.Measure {
			case domain.MeasureRepsLoad:
				pct := p.percent
				target.PercentRM = &pct
			case domain.MeasureTime:
				target.Reps, target.Seconds = nil, new(45)
			default:
				target.RIR = new(2)
			}
			add(l.id, target)
		}
	}
	return out
}
