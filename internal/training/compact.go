package training

import (
	"fmt"
	"strconv"

	"github.com/otherwise/perform/internal/domain"
)

// Compact names an exercise of a session with what was done, in a few
// characters a list row can carry: "Back squat 3×5 @80kg" when every
// done set was the same, "Back squat 4 sets, top 100kg×3" when not,
// "Rowing 2000m", "Plank 3×45s"; a planned one with its target
// ("Bench press 3×8 @60kg"); the name alone when neither says more.
func Compact(e domain.SessionExercise) string {
	var done []domain.SetEntry
	for _, s := range e.Sets {
		if s.Done {
			done = append(done, s)
		}
	}
	if len(done) > 0 {
		return e.Name + " " + setsSaid(done)
	}
	if t := e.Target; t != nil {
		said := ""
		switch {
		case t.Sets != nil && t.Reps != nil:
			said = fmt.Sprintf("%d×%d", *t.Sets, *t.Reps)
		case t.Sets != nil && t.Seconds != nil:
			said = fmt.Sprintf("%d×%ds", *t.Sets, *t.Seconds)
		case t.Metres != nil:
			said = num(*t.Metres) + "m"
		case t.Sets != nil:
			said = fmt.Sprintf("%d sets", *t.Sets)
		}
		if t.LoadKg != nil && said != "" {
			said += " @" + num(*t.LoadKg) + "kg"
		}
		if said != "" {
			return e.Name + " " + said
		}
	}
	return e.Name
}

// setsSaid says done sets: n×reps @load when all alike, else the count and the top set.
func setsSaid(done []domain.SetEntry) string {
	first := done[0]
	same := true
	var metres float64
	top := first
	for _, s := range done {
		same = same && eqInt(s.Reps, first.Reps) && eqFloat(s.LoadKg, first.LoadKg) && eqInt(s.Seconds, first.Seconds) && eqFloat(s.Metres, first.Metres)
		if s.Metres != nil {
			metres += *s.Metres
		}
		if s.LoadKg != nil && (top.LoadKg == nil || *s.LoadKg > *top.LoadKg) {
			top = s
		}
	}
	if metres > 0 {
		return num(metres) + "m"
	}
	if same {
		out := strconv.Itoa(len(done)) + " sets"
		switch {
		case first.Reps != nil:
			out = fmt.Sprintf("%d×%d", len(done), *first.Reps)
		case first.Seconds != nil:
			out = fmt.Sprintf("%d×%ds", len(done), *first.Seconds)
		}
		if first.LoadKg != nil {
			out += " @" + num(*first.LoadKg) + "kg"
		}
		return out
	}
	out := strconv.Itoa(len(done)) + " sets"
	if top.LoadKg != nil {
		out += ", top " + num(*top.LoadKg) + "kg"
		if top.Reps != nil {
			out += "×" + strconv.Itoa(*top.Reps)
		}
	}
	return out
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func eqInt(a, b *int) bool       { return a == nil && b == nil || a != nil && b != nil && *a == *b }
func eqFloat(a, b *float64) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }
