package weekplan

import (
	"slices"
	"testing"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/exercises"
)

// TestMuscleInjuriesRuleOutWhatTrainsTheMuscle: an injury of a muscle
// area rules out every exercise whose primary muscles are that muscle,
// whatever its loadsAreas list; and the catalogue's rows load the
// shoulder, its front squat the lower back.
func TestMuscleInjuriesRuleOutWhatTrainsTheMuscle(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		area, muscle string
	}{{"quadriceps", "quadriceps"}, {"hamstring", "hamstrings"}, {"glute", "glutes"}, {"calf", "calves"}, {"chest", "chest"}} {
		in := baseInput()
		in.Injuries = []domain.Injury{{ID: "inj_1", Area: c.area, Kind: "strain", Severity: 3, Status: domain.InjuryActive, Side: "left"}}
		p := generate(t, in)
		for _, s := range p.Sessions {
			for _, it := range s.Items {
				ex, _ := exercises.Get(it.ExerciseID)
				if slices.Contains(ex.Primary, c.muscle) {
					t.Errorf("a %s strain: %s trains the %s", c.area, it.ExerciseID, c.muscle)
				}
			}
		}
	}
	for _, c := range []struct{ area, id string }{{"shoulder", "barbell-row"}, {"shoulder", "seated-cable-row"}, {"lower_back", "front-squat"}} {
		in := baseInput()
		in.Equipment = append(in.Equipment, "cable")
		in.Injuries = []domain.Injury{{ID: "inj_1", Area: c.area, Kind: "after_surgery", Severity: 3, Status: domain.InjuryActive}}
		p := generate(t, in)
		if _, ok := items(p)[c.id]; ok {
			t.Errorf("after %s surgery the week holds %s", c.area, c.id)
		}
	}
}
