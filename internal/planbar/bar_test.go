package planbar_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/exercises"
	"github.com/otherwise/perform/internal/llm"
	"github.com/otherwise/perform/internal/planbar"
	"github.com/otherwise/perform/internal/weekplan"
)

// TestPlanBar drafts every fixture's week with the rules alone (no model),
// three times, then once more after a knee injury is recorded, and grades
// the drafts with the checker. It prints one line:
//
//	plan quality: valid N/M, safety flags N/M, repeatable N/M, fallback N/M, unsafe K, rubric P/Q
//
// and fails on any unsafe prescription or any rubric item missed.
func TestPlanBar(t *testing.T) {
	fixtures, err := planbar.LoadFixtures("testdata/fixtures")
	if err != nil {
		t.Fatal(err)
	}
	if len(fixtures) < 40 {
		t.Fatalf("the bar holds %d fixtures; it needs at least 40", len(fixtures))
	}
	var tally planbar.Tally
	missed := map[string]int{}
	for _, f := range fixtures {
		var runs [][]byte
		valid, fell := true, false
		for range 3 {
			plan, rep, err := weekplan.Generate(context.Background(), input(f, nil), nil, llm.Prices{})
			if err != nil {
				t.Logf("%s: no draft: %v", f.Name, err)
				valid = false
				continue
			}
			raw, _ := json.Marshal(plan)
			runs = append(runs, raw)
			valid = valid && rep.Valid
			fell = fell || rep.Fallback
		}
		var first, after []byte
		if len(runs) > 0 {
			first = runs[0]
		}
		knee := planbar.NewKnee
		if plan, _, err := weekplan.Generate(context.Background(), input(f, &knee), nil, llm.Prices{}); err == nil {
			after, _ = json.Marshal(plan)
		}
		res := planbar.Check(f, first, after)
		tally.Add(res, valid && len(runs) == 3, len(runs) == 3 && planbar.Repeatable(runs), fell)
		for _, it := range planbar.Items {
			if !res.Passed[it] {
				missed[it]++
			}
		}
		unsafe := ""
		if res.Unsafe() {
			unsafe = " UNSAFE"
		}
		t.Logf("%s: %d/10%s", f.Name, res.Score(), unsafe)
		for _, x := range res.Failed() {
			t.Logf("    %s", x)
		}
		for _, x := range res.Findings {
			if x.Unsafe {
				t.Logf("    unsafe (%s): %s", x.Item, x.Text)
			}
		}
	}
	line := tally.Line()
	t.Log(line)
	fmt.Println(line)
	var most []string
	for it, n := range missed {
		most = append(most, fmt.Sprintf("%s %d", it, n))
	}
	sort.Slice(most, func(i, j int) bool {
		var a, b int
		fmt.Sscanf(most[i][strings.LastIndex(most[i], " ")+1:], "%d", &a)
		fmt.Sscanf(most[j][strings.LastIndex(most[j], " ")+1:], "%d", &b)
		return a > b
	})
	t.Logf("fixtures missing each item: %s", strings.Join(most, ", "))

	// The bar is enforced: any unsafe prescription or any rubric
	// item missed fails it.
	if tally.Unsafe > 0 || tally.Passed < tally.Items {
		t.Errorf("the bar is every rubric item on every fixture and nothing unsafe: %s", line)
	}
}

// TestPlanBarReadsTheCatalogue: the checker's movement list has a line for
// every exercise of the catalogue (its ids only are read here, never its
// area tags); one it reads only by keywords is logged, one it cannot read
// at all fails.
func TestPlanBarReadsTheCatalogue(t *testing.T) {
	var byKeyword []string
	for _, ex := range exercises.All() {
		switch planbar.Reads(ex.ID, ex.Name) {
		case "keywords":
			byKeyword = append(byKeyword, ex.ID)
		case "":
			t.Errorf("the checker cannot tell what %s (%s) loads: give it a line in internal/planbar/movements.go", ex.ID, ex.Name)
		}
	}
	if len(byKeyword) > 0 {
		t.Logf("read by keywords only (give them a line in movements.go): %s", strings.Join(byKeyword, ", "))
	}
}

// input is the fixture as the lane would hand it to the generator; extra
// is an injury recorded after the first draft.
func input(f planbar.Fixture, extra *planbar.Injury) weekplan.Input {
	in := weekplan.Input{
		Today: f.Today, WeekStart: f.WeekStart, FirstDay: f.First(), Days: f.Days, Minutes: f.Minutes,
		Equipment: f.Equipment, Experience: f.Experience, Exercises: exercises.All(), Language: f.Language,
		Sport: f.Sport, Goal: f.Goal, Conditions: f.Conditions, SeniorAge: f.SeniorAge,
	}
	if f.Age > 0 {
		in.Age = ptr(f.Age)
	}
	today, _ := time.Parse(time.DateOnly, f.Today)
	injuries := append([]planbar.Injury(nil), f.Injuries...)
	if extra != nil {
		injuries = append(injuries, *extra)
	}
	for i, inj := range injuries {
		side, status := inj.Side, inj.Status
		if side == "" {
			side = "none"
		}
		if status == "" {
			status = domain.InjuryActive
		}
		id := inj.ID
		if id == "" {
			id = fmt.Sprintf("inj_%d", i)
		}
		onset := today.AddDate(0, 0, -21).Format(time.DateOnly)
		if extra != nil && inj == *extra {
			onset = f.Today
		}
		in.Injuries = append(in.Injuries, domain.Injury{ID: id, Area: inj.Area, Side: side, Severity: inj.Severity,
			Kind: inj.Kind, Status: status, OnsetOn: onset})
	}
	for i, r := range f.Readiness {
		in.CheckIns = append(in.CheckIns, domain.CheckIn{ID: fmt.Sprintf("chk_%d", i),
			Day: today.AddDate(0, 0, -i).Format(time.DateOnly), Readiness: ptr(r)})
	}
	if f.Program != nil {
		in.Program = &weekplan.Program{Name: f.Program.Name, Phase: f.Program.Phase, Week: f.Program.Week}
	}
	for i, s := range f.History() {
		ds := domain.Session{ID: fmt.Sprintf("ses_%d", i), Date: s.Date, Status: domain.SessionCompleted,
			Source: domain.SessionFromTrainee, Sport: s.Sport}
		if s.Minutes > 0 {
			ds.DurationMin = ptr(s.Minutes)
		}
		for _, e := range s.Exercises {
			de := domain.SessionExercise{ExerciseID: e.Exercise}
			for _, set := range e.Sets {
				se := domain.SetEntry{Done: true, RIR: set.RIR, RPE: set.RPE}
				if set.Reps > 0 {
					se.Reps = ptr(set.Reps)
				}
				if set.Kg > 0 {
					se.LoadKg = ptr(set.Kg)
				}
				if set.Seconds > 0 {
					se.Seconds = ptr(set.Seconds)
				}
				if set.Metres > 0 {
					se.Metres = ptr(set.Metres)
				}
				de.Sets = append(de.Sets, se)
			}
			ds.Exercises = append(ds.Exercises, de)
		}
		in.History = append(in.History, ds)
	}
	for _, b := range f.Booked {
		status := b.Status
		if status == "" {
			status = domain.AppointmentBooked
		}
		in.Booked = append(in.Booked, weekplan.Appointment{ID: b.ID, Date: f.BookedDate(b), Start: b.Time, Minutes: max(b.Minutes, 60),
			With: b.With, Status: status})
	}
	for _, p := range f.Planned {
		ds := domain.Session{ID: p.ID, Date: f.PlannedDate(p), Status: domain.SessionPlanned,
			Source: domain.SessionFromProgram, Sport: p.Sport, Title: p.Title, ProgramID: ptr("prg_bar")}
		if p.Minutes > 0 {
			ds.DurationMin = ptr(p.Minutes)
		}
		for _, it := range p.Items {
			tg := domain.ExerciseTarget{RIR: it.RIR}
			if it.Sets > 0 {
				tg.Sets = ptr(it.Sets)
			}
			if it.Reps > 0 {
				tg.Reps = ptr(it.Reps)
			}
			if it.Kg > 0 {
				tg.LoadKg = ptr(it.Kg)
			}
			if it.Minutes > 0 {
				tg.Seconds = ptr(it.Minutes * 60)
			}
			if it.Km != nil {
				tg.Metres = ptr(*it.Km * 1000)
			}
			ds.Exercises = append(ds.Exercises, domain.SessionExercise{ExerciseID: it.Exercise, Target: &tg})
		}
		in.Planned = append(in.Planned, ds)
	}
	return in
}

func ptr[T any](v T) *T { return &v }
