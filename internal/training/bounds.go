package training

import (
	"math"
	"slices"

	"github.com/otherwise/perform/internal/domain"
)

// The bounds of a logged load: what people lift, and what this person
// lifts. A set past either is refused where sets are logged (POST
// /trainees/{id}/workouts, every door's), with a sentence naming the fix,
// rather than kept and flagged: a wrong load read into her estimated 1RM
// moves every load a weekly plan prescribes from it, her PRs and her
// insights, and every one of those readers would have to skip the flag.
// Refused, it is fixed at once by the person who knows the right number.

// Human ceilings of an estimated 1RM, kg, a little above the raw world
// records of 2025 (deadlift 501, squat 490, bench press 355): a leg
// machine or a sled takes what the lane takes (1,000 kg).
const (
	HumanMaxLowerKg   = 520.0
	HumanMaxUpperKg   = 380.0
	HumanMaxMachineKg = 1000.0
)

// PersonalJump is how far past her best estimated 1RM of an exercise a set
// may go unconfirmed: 1.5 times it plus 10 kg (a beginner's 40 kg best
// allows 70). A true jump past it is logged with confirmLoads.
const (
	PersonalJumpFactor = 1.5
	PersonalJumpKg     = 10.0
)

// lowerBody are the muscles that make an exercise a lower-body or hinge lift.
var lowerBody = []string{"quadriceps", "glutes", "hamstrings", "lower back", "calves", "adductors", "abductors"}

// HumanMaxKg is the largest estimated 1RM a person logs on ex.
func HumanMaxKg(ex domain.Exercise) float64 {
	lower := slices.ContainsFunc(ex.Primary, func(m string) bool { return slices.Contains(lowerBody, m) })
	machine := slices.Contains(ex.Equipment, "machine") || slices.Contains(ex.Equipment, "sled")
	switch {
	case lower && machine:
		return HumanMaxMachineKg
	case lower || ex.Category == "conditioning":
		return HumanMaxLowerKg
	}
	return HumanMaxUpperKg
}

// SetE1RM is the estimated 1RM a set's load and reps stand for: Epley's
// up to MaxE1RMReps (more reps count as that many: a lower bound), the
// load itself without reps.
func SetE1RM(loadKg float64, reps *int) float64 {
	if reps == nil || *reps < 1 {
		return loadKg
	}
	return math.Max(loadKg, E1RM(loadKg, min(*reps, MaxE1RMReps)))
}

// PersonalMaxKg is the largest estimated 1RM a set may stand for without
// confirmation, for a person whose best is best.
func PersonalMaxKg(best float64) float64 { return best*PersonalJumpFactor + PersonalJumpKg }
