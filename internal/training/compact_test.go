package training

import (
	"testing"

	"github.com/otherwise/perform/internal/domain"
)

func TestCompact(t *testing.T) {
	i := func(n int) *int { return &n }
	f := func(n float64) *float64 { return &n }
	set := func(reps int, kg float64) domain.SetEntry {
		return domain.SetEntry{Reps: i(reps), LoadKg: f(kg), Done: true}
	}
	for want, e := range map[string]domain.SessionExercise{
		"Back squat 3×5 @80kg":           {Name: "Back squat", Sets: []domain.SetEntry{set(5, 80), set(5, 80), set(5, 80)}},
		"Back squat 3 sets, top 100kg×3": {Name: "Back squat", Sets: []domain.SetEntry{set(5, 80), set(5, 90), set(3, 100)}},
		"Bench press 3×8 @60kg":          {Name: "Bench press", Target: &domain.ExerciseTarget{Sets: i(3), Reps: i(8), LoadKg: f(60)}},
		"Rowing 2000m":                   {Name: "Rowing", Sets: []domain.SetEntry{{Metres: f(1000), Done: true}, {Metres: f(1000), Done: true}}},
		"Plank 3×45s":                    {Name: "Plank", Sets: []domain.SetEntry{{Seconds: i(45), Done: true}, {Seconds: i(45), Done: true}, {Seconds: i(45), Done: true}}},
		"Pull-up":                        {Name: "Pull-up"},
		"Pull-up 2×8":                    {Name: "Pull-up", Sets: []domain.SetEntry{{Reps: i(8), Done: true}, {Reps: i(8), Done: true}, {Reps: i(8)}}},
	} {
		if got := Compact(e); got != want {
			t.Errorf("Compact = %q, want %q", got, want)
		}
	}
}
