package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/agent/fakes"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
)

// A trainee's receipt names each exercise as she reads it: the catalogue's
// Hebrew name, built-in or her studio's own; an exercise the studio added
// without a Hebrew name keeps its own name.
func TestTraineeReceiptNamesExercisesInHebrew(t *testing.T) {
	forEngine(t, func(t *testing.T, st store.Store) {
		e := newTraineeEnv(t, st)
		ss := st.Studio(e.studio.ID)
		sled := domain.Exercise{Name: "Sled sprint", NameHe: "ספרינט עם מזחלת", Category: domain.CategoryConditioning, Measure: domain.MeasureReps}
		plain := domain.Exercise{Name: "Yoke carry", Category: domain.CategoryStrength, Measure: domain.MeasureReps}
		for _, x := range []*domain.Exercise{&sled, &plain} {
			if err := ss.CreateExercise(context.Background(), x); err != nil {
				t.Fatal(err)
			}
		}
		workout := map[string]any{"sport": "strength", "exercises": []map[string]any{
			{"exerciseId": "back-squat", "sets": []map[string]any{{"reps": 5, "loadKg": 90}}},
			{"exerciseId": sled.ID, "sets": []map[string]any{{"reps": 3}}},
			{"exerciseId": plain.ID, "sets": []map[string]any{{"reps": 2}}},
		}}
		e.setScript(func(_ int, req fakes.MessagesRequest) fakes.Reply {
			if len(req.ToolResults()) > 0 {
				return fakes.Text("רשמתי")
			}
			return fakes.CallTool("log_workout", workout)
		})
		e.turnOn(true)
		e.say(danaPhone, "היי")
		e.say(danaPhone, "כן")
		got := joined(e.say(danaPhone, "סקוואט 1x5 ב-90, מזחלת 3, יוק 2"))
		for _, want := range []string{"סקוואט עם מוט על הגב 1×5 ב-90 ק\"ג", "ספרינט עם מזחלת 1×3", "Yoke carry 1×2"} {
			if !strings.Contains(got, want) {
				t.Errorf("the receipt lacks %q: %q", want, got)
			}
		}
		if strings.Contains(got, "Back squat") || strings.Contains(got, "Sled sprint") {
			t.Errorf("the receipt names an exercise in English though it has a Hebrew name: %q", got)
		}
	})
}
