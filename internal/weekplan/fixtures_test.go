package weekplan_test

import (
	"fmt"
	"slices"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/exercises"
	"github.com/otherwise/perform/internal/weekplan"
)

// The quality bar's trainees: synthetic, each with four weeks of logged
// sets, from a beginner on two short days to an advanced lifter on six;
// runners, a cyclist and a swimmer, health conditions, a tendinopathy,
// seniors from 60, no-equipment beginners, impossible and tiny loads, and
// a trainee on a running program.

const (
	fixtureToday = "2026-12-04" // a Friday
	fixtureWeek  = "2026-12-07" // the Monday after
)

var (
	gym      = []string{"barbell", "rack", "bench", "dumbbell", "cable", "machine", "pull-up bar", "kettlebell"}
	home     = []string{"dumbbell", "bench", "band", "pull-up bar"}
	bodyOnly = []string{"none"}
)

// fixture is one synthetic trainee and what her plan must show.
type fixture struct {
	name  string
	in    weekplan.Input
	flags []string // adjustment kinds the draft must state
	// spare is an injured area no planned exercise may load.
	spare string
	// deload: the week must be a deload.
	deload bool
}

// lift is one exercise in a fixture's history: its load in the first of
// the four weeks, the reps of each set, and the step each week.
type lift struct {
	id   string
	kg   float64
	reps int
	inc  float64
}

// history is four weeks of sessions before the planned week, perWeek a
// week, every lift in every session: week k of 4 (1 the oldest) has loads
// kg+(k-1)·inc and sets sets (scale[k-1] of them when scale is given).
type history struct {
	perWeek int
	sets    int
	lifts   []lift
	scale   [4]float64 // the share of sets each week (0 means 1)
	skip    [4]bool    // weeks without a session
	rpe     int        // each session's RPE (0: none)
	fail    string     // this lift's last two sessions miss a rep
}

func (h history) sessions() []domain.Session {
	monday, _ := time.Parse(time.DateOnly, fixtureWeek)
	var out []domain.Session
	weekdays := []int{0, 2, 4, 1, 3, 5}[:h.perWeek]
	n := 0
	for k := 0; k < 4; k++ {
		if h.skip[k] {
			continue
		}
		sets := h.sets
		scale := h.scale
		if scale == [4]float64{} {
			scale = [4]float64{0.6, 1, 1, 1} // a lighter week four weeks ago
		}
		if scale[k] > 0 {
			sets = max(int(float64(h.sets)*scale[k]+0.5), 1)
		}
		for si, wd := range weekdays {
			date := monday.AddDate(0, 0, -7*(4-k)+wd).Format(time.DateOnly)
			s := domain.Session{ID: fmt.Sprintf("ses_%d", n), Date: date, Status: domain.SessionCompleted, Sport: "strength"}
			n++
			if h.rpe > 0 {
				s.RPE = ptr(h.rpe)
			}
			for li, l := range h.lifts {
				if li%h.perWeek != si%h.perWeek && len(h.lifts) > h.perWeek*2 {
					continue // spread a long list over the week's sessions
				}
				load := l.kg + float64(k)*l.inc
				e := domain.SessionExercise{ExerciseID: l.id}
				for j := 0; j < sets; j++ {
					reps := l.reps
					if l.id == h.fail && k == 3 && j == sets-1 {
						reps--
					}
					set := domain.SetEntry{Reps: ptr(reps), Done: true, RIR: ptr(2.0)}
					if load > 0 {
						set.LoadKg = ptr(load)
					}
					e.Sets = append(e.Sets, set)
				}
				s.Exercises = append(s.Exercises, e)
			}
			out = append(out, s)
		}
	}
	return out
}

func ptr[T any](v T) *T { return &v }

func checkIns(readiness ...int) []domain.CheckIn {
	today, _ := time.Parse(time.DateOnly, fixtureToday)
	var out []domain.CheckIn
	for i, r := range readiness {
		out = append(out, domain.CheckIn{Day: today.AddDate(0, 0, -i).Format(time.DateOnly), Readiness: ptr(r)})
	}
	return out
}

func injury(id, area string) domain.Injury {
	return domain.Injury{ID: id, Area: area, Side: "left", Severity: 3, Status: domain.InjuryActive, OnsetOn: "2026-11-20"}
}

func input(exp string, days []int, minutes int, equipment []string, h history) weekplan.Input {
	return weekplan.Input{Today: fixtureToday, WeekStart: fixtureWeek, FirstDay: time.Monday, Days: days, Minutes: minutes, Equipment: equipment,
		Experience: exp, History: h.sessions(), CheckIns: checkIns(7, 7, 8), Exercises: exercises.All(), Language: "he"}
}

var (
	barbellLifts = []lift{{"back-squat", 80, 5, 2.5}, {"bench-press", 60, 5, 2.5}, {"deadlift", 100, 5, 5}, {"barbell-row", 50, 8, 2.5}}
	dbLifts      = []lift{{"goblet-squat", 16, 10, 2}, {"dumbbell-bench-press", 14, 10, 1}, {"dumbbell-row", 16, 10, 2}, {"dumbbell-romanian-deadlift", 16, 10, 2}}
	bwLifts      = []lift{{"push-up", 0, 12, 0}, {"bodyweight-squat", 0, 15, 0}, {"glute-bridge", 0, 15, 0}, {"plank", 0, 0, 0}}
)

// fixtures are the trainees of the quality bar.
func fixtures() []fixture {
	std := history{perWeek: 3, sets: 3, lifts: barbellLifts}
	var fs []fixture
	add := func(name string, in weekplan.Input, flags []string, spare string) {
		fs = append(fs, fixture{name: name, in: in, flags: flags, spare: spare})
	}
	add("beginner 2 days 30 min bodyweight", input("beginner", []int{1, 4}, 30, bodyOnly, history{perWeek: 2, sets: 2, lifts: bwLifts}), nil, "")
	add("beginner 3 days 45 min home", input("beginner", []int{1, 3, 5}, 45, home, history{perWeek: 3, sets: 2, lifts: dbLifts}), nil, "")
	add("beginner 3 days 60 min gym", input("beginner", []int{2, 4, 6}, 60, gym, std), nil, "")
	add("new trainee no history", input("beginner", []int{1, 3, 5}, 45, gym, history{perWeek: 3}), nil, "")
	add("intermediate 4 days 60 min gym", input("intermediate", []int{1, 2, 4, 5}, 60, gym, history{perWeek: 4, sets: 3, lifts: barbellLifts}), nil, "")
	add("intermediate 3 days 90 min gym", input("intermediate", []int{1, 3, 5}, 90, gym, std), nil, "")
	add("intermediate 4 days 45 min home", input("intermediate", []int{1, 2, 4, 6}, 45, home, history{perWeek: 4, sets: 3, lifts: dbLifts}), nil, "")
	add("intermediate 2 days 90 min gym", input("intermediate", []int{3, 7}, 90, gym, history{perWeek: 2, sets: 3, lifts: barbellLifts}), nil, "")
	add("advanced 5 days 75 min gym", input("advanced", []int{1, 2, 3, 4, 5}, 75, gym, history{perWeek: 5, sets: 4, lifts: barbellLifts}), nil, "")
	add("advanced 6 days 60 min gym", input("advanced", []int{1, 2, 3, 4, 5, 6}, 60, gym, history{perWeek: 6, sets: 3, lifts: barbellLifts}), nil, "")
	add("advanced 4 days 90 min gym rpe", input("advanced", []int{1, 2, 4, 5}, 90, gym, history{perWeek: 4, sets: 4, lifts: barbellLifts}), nil, "")
	add("intermediate 5 days 30 min bodyweight", input("intermediate", []int{1, 2, 3, 4, 5}, 30, bodyOnly, history{perWeek: 5, sets: 3, lifts: bwLifts}), nil, "")

	knee := input("intermediate", []int{1, 3, 5}, 60, gym, std)
	knee.Injuries = []domain.Injury{injury("inj_knee", "knee")}
	add("active knee injury", knee, []string{weekplan.AdjustInjury}, "knee")
	shoulder := input("beginner", []int{1, 4}, 45, home, history{perWeek: 2, sets: 2, lifts: dbLifts})
	shoulder.Injuries = []domain.Injury{injury("inj_shoulder", "shoulder")}
	add("shoulder injury at home", shoulder, []string{weekplan.AdjustInjury}, "shoulder")
	back := input("advanced", []int{1, 2, 4, 5}, 75, gym, history{perWeek: 4, sets: 4, lifts: barbellLifts})
	back.Injuries = []domain.Injury{{ID: "inj_back", Area: "lower_back", Side: "", Severity: 2, Status: domain.InjuryRecovering, OnsetOn: "2026-11-01"}}
	add("recovering lower back", back, []string{weekplan.AdjustInjury}, "lower_back")

	add("scheduled deload after four hard weeks", input("intermediate", []int{1, 3, 5}, 60, gym, history{perWeek: 3, sets: 3, lifts: barbellLifts, scale: [4]float64{1, 1, 1, 1}}), []string{weekplan.AdjustDeload}, "")
	fs[len(fs)-1].deload = true
	add("recent deload", input("intermediate", []int{1, 3, 5}, 60, gym, history{perWeek: 3, sets: 3, lifts: barbellLifts, scale: [4]float64{1, 0.5, 1, 1}}), nil, "")
	poor := input("intermediate", []int{1, 3, 5}, 60, gym, std)
	poor.CheckIns = checkIns(3, 4, 3, 6)
	add("poor readiness", poor, []string{weekplan.AdjustReadiness}, "")
	fs[len(fs)-1].deload = true
	add("overreaching volume", input("intermediate", []int{1, 3, 5}, 75, gym, history{perWeek: 3, sets: 3, lifts: barbellLifts, scale: [4]float64{1, 0.6, 0.6, 1.3}}), []string{weekplan.AdjustOverreaching}, "")
	add("overreaching effort", input("advanced", []int{1, 2, 4, 5}, 60, gym, history{perWeek: 4, sets: 3, lifts: barbellLifts, rpe: 10, scale: [4]float64{1, 0.6, 1, 1}}), []string{weekplan.AdjustOverreaching}, "")
	stalled := history{perWeek: 3, sets: 3, lifts: []lift{{"back-squat", 90, 5, 0}, {"bench-press", 60, 5, 2.5}, {"deadlift", 110, 5, 5}, {"barbell-row", 50, 8, 2.5}}, scale: [4]float64{1, 0.6, 1, 1}}
	add("stalled squat", input("intermediate", []int{1, 3, 5}, 60, gym, stalled), []string{weekplan.AdjustStall}, "")
	add("returner after three weeks off", input("intermediate", []int{1, 3, 5}, 60, gym, history{perWeek: 3, sets: 3, lifts: barbellLifts, skip: [4]bool{false, true, true, true}}), []string{weekplan.AdjustReturn}, "")
	senior := input("beginner", []int{2, 4}, 45, home, history{perWeek: 2, sets: 2, lifts: dbLifts})
	senior.Age = ptr(71)
	add("senior", senior, []string{weekplan.AdjustAge}, "")
	teen := input("intermediate", []int{1, 3, 5}, 60, gym, std)
	teen.Age, teen.Rule = ptr(16), weekplan.RuleRPE
	add("teenager", teen, []string{weekplan.AdjustAge}, "")
	linearFail := input("beginner", []int{1, 3, 5}, 60, gym, history{perWeek: 3, sets: 3, lifts: barbellLifts, fail: "bench-press"})
	add("linear with a missed rep", linearFail, nil, "")

	// Trainees no fixture had met: her sport, her conditions, her program.
	runner := input("beginner", []int{1, 2, 3, 5, 6}, 55, bodyOnly, history{})
	runner.History = endurance("running", "running", 19, 50, 9)
	add("10 km runner, no sport on her profile", runner, []string{weekplan.AdjustSport}, "")
	cyclist := input("intermediate", []int{2, 4, 6, 7}, 75, []string{"bike", "dumbbell"}, history{})
	cyclist.Sport, cyclist.History = "cycling", endurance("cycling", "cycling", 14, 70, 30)
	add("cyclist", cyclist, []string{weekplan.AdjustSport}, "")
	swimmer := input("intermediate", []int{1, 3, 5}, 60, []string{"pool", "band"}, history{})
	swimmer.Sport, swimmer.History = "swimming", endurance("swimming", "swimming", 10, 45, 2)
	add("swimmer", swimmer, []string{weekplan.AdjustSport}, "")
	tendon := input("advanced", []int{1, 3, 5}, 60, append(slices.Clone(gym), "band", "box", "none"), history{perWeek: 3, sets: 4, lifts: barbellLifts})
	tendon.Injuries = []domain.Injury{{ID: "inj_t", Area: "knee", Side: "left", Severity: 2, Kind: "tendinopathy", Status: domain.InjuryActive}}
	add("knee tendinopathy", tendon, []string{weekplan.AdjustInjury, weekplan.AdjustRehab}, "")
	hyper := input("advanced", []int{1, 3, 5}, 50, gym, std)
	hyper.Age, hyper.Conditions = ptr(62), []string{"hypertension"}
	hyper.Injuries = []domain.Injury{{ID: "inj_b", Area: "lower_back", Severity: 2, Kind: "pain", Status: domain.InjuryActive}}
	add("62, hypertension, low-back pain", hyper, []string{weekplan.AdjustAge, weekplan.AdjustCondition, weekplan.AdjustInjury}, "lower_back")
	pregnant := input("intermediate", []int{1, 3, 5}, 45, home, history{perWeek: 3, sets: 3, lifts: dbLifts})
	pregnant.Conditions = []string{"pregnancy"}
	add("pregnancy", pregnant, []string{weekplan.AdjustCondition}, "")
	bones := input("beginner", []int{2, 5}, 45, home, history{perWeek: 2, sets: 2, lifts: dbLifts})
	bones.Conditions, bones.Age = []string{"osteoporosis"}, ptr(60)
	add("osteoporosis at 60", bones, []string{weekplan.AdjustCondition, weekplan.AdjustAge}, "")
	heart := input("intermediate", []int{1, 4}, 60, gym, history{perWeek: 2, sets: 3, lifts: barbellLifts})
	heart.Conditions = []string{"heart_condition"}
	add("heart condition", heart, []string{weekplan.AdjustCondition}, "")
	add("no-equipment beginner on five days", input("beginner", []int{1, 2, 3, 4, 5}, 40, bodyOnly, history{}), nil, "")
	fat := input("beginner", []int{1, 3, 5}, 50, append(slices.Clone(gym), "rower"), history{perWeek: 3, sets: 2, lifts: barbellLifts})
	fat.Goal = "fat_loss"
	add("fat-loss beginner", fat, []string{weekplan.AdjustGoal}, "")
	huge := input("beginner", []int{1, 3, 5}, 60, gym, history{perWeek: 3, sets: 3, lifts: []lift{{"bench-press", 1000, 5, 0}, {"back-squat", 60, 5, 2.5}}})
	add("a logged 1,000 kg bench press", huge, []string{weekplan.AdjustData}, "")
	tiny := input("beginner", []int{2, 4}, 40, home, history{perWeek: 2, sets: 2, lifts: []lift{{"dumbbell-bench-press", 2, 12, 0}, {"goblet-squat", 4, 12, 0}}})
	add("tiny loads", tiny, nil, "")
	heavy := input("advanced", []int{1, 2, 4, 5}, 75, gym, history{perWeek: 4, sets: 4, lifts: []lift{{"deadlift", 210, 2, 5}, {"front-squat", 110, 5, 5}, {"bench-press", 140, 3, 2.5}}, scale: [4]float64{1, 1, 1, 1}})
	add("advanced heavy lifter due a deload", heavy, []string{weekplan.AdjustDeload}, "")
	fs[len(fs)-1].deload = true
	program := input("intermediate", []int{1, 3, 5, 7}, 60, home, history{})
	program.History = endurance("running", "running", 14, 40, 7)
	program.CheckIns = checkIns(3, 3, 4)
	program.Planned = programWeek()
	add("tired, on a running program", program, []string{weekplan.AdjustProgram, weekplan.AdjustReadiness}, "")
	fs[len(fs)-1].deload = true
	return fs
}

// endurance is n logged sessions of an endurance exercise of minutes and
// km each, spread over the five weeks before the planned week.
func endurance(sport, id string, n, minutes int, km float64) []domain.Session {
	monday, _ := time.Parse(time.DateOnly, fixtureWeek)
	var out []domain.Session
	for i := range n {
		date := monday.AddDate(0, 0, -35+i*35/n).Format(time.DateOnly)
		out = append(out, domain.Session{ID: fmt.Sprintf("end_%d", i), Date: date, Status: domain.SessionCompleted, Sport: sport,
			Exercises: []domain.SessionExercise{{ExerciseID: id, Sets: []domain.SetEntry{{Seconds: ptr(minutes * 60), Metres: ptr(km * 1000), Done: true}}}}})
	}
	return out
}

// programWeek is a running program's planned week: two runs, a strength
// day and a long run, the first already done.
func programWeek() []domain.Session {
	t := func(sets, reps int) *domain.ExerciseTarget {
		return &domain.ExerciseTarget{Sets: ptr(sets), Reps: ptr(reps)}
	}
	return []domain.Session{
		{ID: "p_mon", Date: "2026-12-07", Status: domain.SessionCompleted, Sport: "running", DurationMin: ptr(40)},
		{ID: "p_wed", Date: "2026-12-09", Status: domain.SessionPlanned, Sport: "running", DurationMin: ptr(40)},
		{ID: "p_fri", Date: "2026-12-11", Status: domain.SessionPlanned, Sport: "strength", Exercises: []domain.SessionExercise{
			{ExerciseID: "goblet-squat", Target: t(3, 10)}, {ExerciseID: "dumbbell-row", Target: t(3, 10)}, {ExerciseID: "plank", Target: &domain.ExerciseTarget{Sets: ptr(3), Seconds: ptr(40)}}}},
		{ID: "p_sun", Date: "2026-12-13", Status: domain.SessionPlanned, Sport: "running", DurationMin: ptr(55)},
	}
}
