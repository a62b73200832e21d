package sessions

import (
	"fmt"
	"strings"

	"github.com/otherwise/perform/internal/areas/catalog"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/training"
)

// checkLoads holds every logged set to the bounds of training/bounds.go:
// beyond what people lift is refused always; far beyond her own best
// estimated 1RM of the exercise (her benchmark) unless confirm. Every door
// that logs sets (the coach's tools, hers, WhatsApp) logs them here.
// defs are the logged exercises' definitions, in order.
func checkLoads(c *lane.Call, ss store.StudioStore, traineeID string, logged []domain.SessionExercise, defs []domain.Exercise, confirm bool) error {
	exIDs := make([]string, 0, len(logged))
	for _, ex := range logged {
		exIDs = append(exIDs, ex.ExerciseID)
	}
	bests, err := ss.ExerciseBests(c.Ctx, traineeID, exIDs)
	if err != nil {
		return err
	}
	var errs []lane.FieldError
	for i, ex := range logged {
		human := training.HumanMaxKg(defs[i])
		for j, s := range ex.Sets {
			if s.LoadKg == nil || *s.LoadKg <= 0 {
				continue
			}
			field := fmt.Sprintf("exercises[%d].sets[%d].loadKg", i, j)
			e1rm := training.SetE1RM(*s.LoadKg, s.Reps)
			what := fmt.Sprintf("%s: %s on %s stands for an estimated 1RM of %.0f kg", field, setText(s), ex.Name, e1rm)
			switch best := bests[ex.ExerciseID].Best; {
			case e1rm > human:
				errs = append(errs, lane.FieldError{Field: field, Message: fmt.Sprintf("%s, beyond what people lift (%.0f kg). Check the load: kilograms (not pounds), the whole load (not one side of the bar).", what, human)})
			case !confirm && best != nil && *best > 0 && e1rm > training.PersonalMaxKg(*best):
				errs = append(errs, lane.FieldError{Field: field, Message: fmt.Sprintf("%s, more than %.1f times her best of %.0f kg. Fix the load if it is wrong (kilograms, not pounds); if it is right, log it again with confirmLoads true.", what, training.PersonalJumpFactor, *best)})
			}
		}
	}
	if len(errs) > 0 {
		return lane.ValidationError(errs)
	}
	return nil
}

// checkBenchmarkLoad holds a lift's 1RM benchmark (its exercise named, in
// kg) to what people lift: her estimates and the personal bound read it.
func checkBenchmarkLoad(c *lane.Call, ss store.StudioStore, b domain.Benchmark, value float64) error {
	if b.ExerciseID == nil || !strings.EqualFold(b.Unit, "kg") {
		return nil
	}
	ex, fe := catalog.Exercise(c, ss, "exerciseId", *b.ExerciseID)
	if fe != nil {
		return nil // an exercise since deleted: nothing to bound it by
	}
	if human := training.HumanMaxKg(ex); value > human {
		return lane.InvalidField("value", fmt.Sprintf("value %g kg for %s is beyond what people lift (%.0f kg). Check it: kilograms (not pounds), the whole load (not one side of the bar).", value, b.Name, human))
	}
	return nil
}

// setText is "5 × 100 kg" or "100 kg".
func setText(s domain.SetEntry) string {
	if s.Reps != nil {
		return fmt.Sprintf("%d × %g kg", *s.Reps, *s.LoadKg)
	}
	return fmt.Sprintf("%g kg", *s.LoadKg)
}
