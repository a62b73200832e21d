package sessions

import (
	"fmt"
	"slices"
	"strings"

	"github.com/otherwise/perform/internal/areas/catalog"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/exercises"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/text"
	"github.com/otherwise/perform/internal/training"
)

// modifiable is the path's session when its status is one of allow, else
// the conflict sentence naming the statuses that can be changed.
func modifiable(c *lane.Call, ss store.StudioStore, allow ...string) (domain.Session, error) {
	x, err := lane.Lookup(c.Ctx, ids.Session, c.ID(), ss.GetSession)
	if err != nil {
		return x, err
	}
	if !slices.Contains(allow, x.Status) {
		return x, lane.Conflict(fmt.Sprintf("Session %s is %s; only a session with status %s can be changed this way.", x.ID, x.Status, strings.Join(allow, " or ")))
	}
	return x, nil
}

// modifySession is open to a studio:write key (the coach tools and, later,
// the trainee's): it only reshapes a planned session's targets or date,
// notifies no one and can be undone by another modification.
func (a *Area) modifySession(c *lane.Call, in *modifySessionInput) (modifiedSession, error) {
	out := modifiedSession{Operation: in.Operation}
	need := func(field string, set bool, why string) *lane.Error {
		if set {
			return nil
		}
		return lane.InvalidField(field, fmt.Sprintf("%s is required for %s: %s.", field, in.Operation, why))
	}
	switch in.Operation {
	case "reduce_volume":
		if e := need("percent", in.Percent != nil, "the share of the volume to take off, 1 to 90"); e != nil {
			return out, e
		}
	case "raise_intensity":
		if e := need("loadPercent", in.LoadPercent != nil || in.RPEIncrease != nil, "give loadPercent (load up by that percentage), rpeIncrease (RPE up by that much), or both"); e != nil {
			return out, e
		}
	case "swap_exercise":
		if e := need("exerciseId", in.ExerciseID != nil, "the session's exercise to replace (get_session lists them)"); e != nil {
			return out, e
		}
	case "reschedule":
		if e := need("date", in.Date != nil, "the new local date, YYYY-MM-DD"); e != nil {
			return out, e
		}
		if e := checkClock("startTime", in.StartTime); e != nil {
			return out, e
		}
	}
	err := c.InTx(func(ss store.StudioStore) error {
		allow := []string{domain.SessionPlanned}
		if in.Operation == "reschedule" {
			allow = append(allow, domain.SessionSkipped, domain.SessionMissed)
		}
		x, err := modifiable(c, ss, allow...)
		if err != nil {
			return err
		}
		switch in.Operation {
		case "reduce_volume":
			x.Exercises, out.Changed = training.ReduceVolume(x.Exercises, *in.Percent)
			out.Summary = fmt.Sprintf("Volume reduced by %g%% on %d exercises (sets first, then reps).", *in.Percent, out.Changed)
		case "raise_intensity":
			var load, rpe float64
			if in.LoadPercent != nil {
				load = *in.LoadPercent
			}
			if in.RPEIncrease != nil {
				rpe = *in.RPEIncrease
			}
			x.Exercises, out.Changed = training.RaiseIntensity(x.Exercises, load, rpe)
			out.Summary = fmt.Sprintf("Intensity raised on %d exercises.", out.Changed)
		case "swap_exercise":
			from := strings.TrimSpace(*in.ExerciseID)
			inSession := func(id string) bool {
				return slices.ContainsFunc(x.Exercises, func(e domain.SessionExercise) bool { return e.ExerciseID == id })
			}
			if !inSession(from) {
				// A name ("back squat", "סקוואט") of one of the session's exercises.
				if ex, fe := catalog.Exercise(c, ss, "exerciseId", from); fe == nil && inSession(ex.ID) {
					from = ex.ID
				}
			}
			if !inSession(from) {
				have := make([]string, len(x.Exercises))
				for i, e := range x.Exercises {
					have[i] = e.ExerciseID
				}
				return lane.InvalidField("exerciseId", fmt.Sprintf("exerciseId %s is not in session %s; its exercises are %s.", text.Truncate(from, 100), x.ID, orNone(have)))
			}
			to, err := replacement(c, ss, from, in.ReplacementID)
			if err != nil {
				return err
			}
			x.Exercises, out.Changed = training.SwapExercise(x.Exercises, from, to)
			out.Summary = fmt.Sprintf("%s replaced by %s (%s), targets kept.", from, to.Name, to.ID)
		case "reschedule":
			old := x.Date
			x.Date, x.Status, out.Changed = *in.Date, domain.SessionPlanned, 1
			if in.StartTime != nil {
				x.StartTime = in.StartTime
			}
			out.Summary = fmt.Sprintf("Moved from %s to %s.", old, x.Date)
		}
		if out.Changed == 0 {
			return lane.InvalidField("operation", fmt.Sprintf("%s changes nothing in session %s: none of its exercises has a target it applies to.", in.Operation, x.ID))
		}
		x.UpdatedAt = c.Now().UTC()
		if err := ss.UpdateSession(c.Ctx, &x); err != nil {
			return err
		}
		out.Session = x
		return nil
	})
	return out, err
}

func orNone(list []string) string {
	if len(list) == 0 {
		return "none"
	}
	return strings.Join(list, ", ")
}

// replacement is the exercise a swap puts in: the one given, else the
// catalogue's first alternative of from.
func replacement(c *lane.Call, ss store.StudioStore, from string, given *string) (domain.Exercise, error) {
	if given != nil {
		ex, fe := catalog.Exercise(c, ss, "replacementId", *given)
		if fe != nil {
			return ex, lane.ValidationError([]lane.FieldError{*fe})
		}
		return ex, nil
	}
	alts := exercises.Alternatives(from)
	if len(alts) == 0 {
		return domain.Exercise{}, lane.InvalidField("replacementId", fmt.Sprintf("The catalogue lists no alternative for %s; give replacementId, the exercise to put in its place.", from))
	}
	return alts[0], nil
}

func (a *Area) updateSession(c *lane.Call, in *updateSessionInput) (domain.Session, error) {
	if e := checkClock("startTime", in.StartTime); e != nil {
		return domain.Session{}, e
	}
	var x domain.Session
	err := c.InTx(func(ss store.StudioStore) error {
		var err error
		if x, err = lane.Lookup(c.Ctx, ids.Session, c.ID(), ss.GetSession); err != nil {
			return err
		}
		if in.Status != nil && x.Status == domain.SessionCompleted && *in.Status != domain.SessionCompleted {
			return lane.Conflict(fmt.Sprintf("Session %s is completed with its sets; its status stays completed.", x.ID))
		}
		if in.Status != nil {
			x.Status = *in.Status
		}
		if in.Title != nil {
			x.Title = strings.TrimSpace(*in.Title)
		}
		if c.Has("startTime") {
			x.StartTime = in.StartTime
		}
		if c.Has("rpe") {
			x.RPE = in.RPE
		}
		if c.Has("notes") {
			x.Notes = in.Notes
		}
		if c.Has("feedback") {
			x.Feedback = in.Feedback
		}
		x.UpdatedAt = c.Now().UTC()
		return ss.UpdateSession(c.Ctx, &x)
	})
	return x, err
}
