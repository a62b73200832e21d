package sessions

import (
	"fmt"
	"slices"

	"github.com/otherwise/perform/internal/areas/catalog"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/training"
)

// One change over a trainee's days: "next week's back squats → leg press".

// maxSwapDays bounds the days one swap reaches.
const maxSwapDays = 92

type swapRangeInput struct {
	ExerciseID    string  `json:"exerciseId" jsonschema:"The exercise to replace: an id or a name (back squat, סקוואט)." lane:"minLength=1,maxLength=100"`
	ReplacementID string  `json:"replacementId" jsonschema:"The exercise to put in its place: an id or a name (leg press)." lane:"minLength=1,maxLength=100"`
	From          *string `json:"from" jsonschema:"First day, YYYY-MM-DD." lane:"format=date,null=false" when:"start"`
	To            *string `json:"to" jsonschema:"Last day, YYYY-MM-DD; at most 92 days on." lane:"format=date,null=false" when:"start"`
}

type swapRangeAnswer struct {
	Summary string       `json:"summary"`
	Changed []swapChange `json:"changed" jsonschema:"The planned sessions changed, by date."`
}

type swapChange struct {
	SessionID string `json:"sessionId"`
	Date      string `json:"date"`
	Title     string `json:"title"`
	Warning   string `json:"warning,omitempty" jsonschema:"Set when the replacement was in the session already: it is there twice now."`
}

func (a *Area) swapRoutes(rs *lane.Routes) {
	lane.Add(rs, "POST", "/trainees/{id}/sessions/swap", "Swap one exercise for another in every planned session of a trainee between two days, targets kept; says what changed and warns where the replacement was already in the session.",
		a.swapRange, lane.Tool("swap_exercise_in_range"))
}

func (a *Area) swapRange(c *lane.Call, in *swapRangeInput) (swapRangeAnswer, error) {
	var out swapRangeAnswer
	var oldName, replName string
	from, to, e := c.Days(lane.DayRange{From: in.From, To: in.To})
	if e != nil {
		return out, e
	}
	if n := dayCount(from, to); n > maxSwapDays {
		return out, lane.InvalidField("to", fmt.Sprintf("from..to spans %d days; a swap reaches at most %d. Narrow the range.", n, maxSwapDays))
	}
	err := c.InTx(func(ss store.StudioStore) error {
		if _, err := lane.Lookup(c.Ctx, ids.Trainee, c.ID(), ss.GetTrainee); err != nil {
			return err
		}
		old, fe := catalog.Exercise(c, ss, "exerciseId", in.ExerciseID)
		if fe != nil {
			return lane.ValidationError([]lane.FieldError{*fe})
		}
		repl, fe := catalog.Exercise(c, ss, "replacementId", in.ReplacementID)
		if fe != nil {
			return lane.ValidationError([]lane.FieldError{*fe})
		}
		oldName, replName = old.Name, repl.Name
		if old.ID == repl.ID {
			return lane.InvalidField("replacementId", fmt.Sprintf("replacementId is %s, the exercise it would replace; name another.", repl.Name))
		}
		sessions, err := ss.SessionsBetween(c.Ctx, c.ID(), from, to)
		if err != nil {
			return err
		}
		for _, x := range sessions {
			if x.Status != domain.SessionPlanned {
				continue
			}
			had := slices.ContainsFunc(x.Exercises, func(e domain.SessionExercise) bool { return e.ExerciseID == repl.ID })
			exs, n := training.SwapExercise(x.Exercises, old.ID, repl)
			if n == 0 {
				continue
			}
			x.Exercises, x.UpdatedAt = exs, c.Now().UTC()
			if err := ss.UpdateSession(c.Ctx, &x); err != nil {
				return err
			}
			ch := swapChange{SessionID: x.ID, Date: x.Date, Title: x.Title}
			if had {
				ch.Warning = fmt.Sprintf("%s was already in this session; it is there twice now.", repl.Name)
			}
			out.Changed = append(out.Changed, ch)
		}
		return nil
	})
	if err != nil {
		return out, err
	}
	if out.Changed == nil {
		out.Changed = []swapChange{}
		out.Summary = fmt.Sprintf("No planned session from %s to %s has %s; nothing changed.", from, to, oldName)
		return out, nil
	}
	out.Summary = fmt.Sprintf("%s replaced by %s in %d planned sessions from %s to %s, targets kept.", oldName, replName, len(out.Changed), from, to)
	return out, nil
}

// dayCount is how many days from..to holds.
func dayCount(from, to string) int {
	n := 1
	for d := from; d < to && n <= maxSwapDays; d = lane.AddDays(d, 1) {
		n++
	}
	return n
}
