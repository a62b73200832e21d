package lane

import (
	"strings"
	"testing"
)

type allowAnswer struct {
	Session struct {
		ID        string `json:"id"`
		Exercises []struct {
			Name string `json:"name"`
		} `json:"exercises"`
		Extra map[string]string `json:"extra"`
	} `json:"session"`
	Items []struct {
		WeightKg *float64 `json:"weightKg"`
	} `json:"items"`
}

// An allow list is checked against the answer's type when the route is
// added: a path the answer does not have stops the lane at start.
func TestAllowNamesFieldsOfTheAnswer(t *testing.T) {
	t.Parallel()
	add := func(allow ...string) (panicked string) {
		defer func() {
			if r := recover(); r != nil {
				panicked = r.(string)
			}
		}()
		Add(&Routes{}, "GET", "/allow-check", "A route to check.", func(*Call, *struct{}) (allowAnswer, error) { return allowAnswer{}, nil }, Allow(allow...))
		return ""
	}
	if got := add("session.id", "session.exercises.name", "session.extra.anything", "items.weightKg", "items"); got != "" {
		t.Fatalf("a valid allow list refused: %s", got)
	}
	for _, bad := range []string{"weightKg", "items.weight", "session.exercises.exerciseName", "sessions"} {
		if got := add(bad); !strings.Contains(got, `allows "`+bad+`"`) {
			t.Errorf("Allow(%q) accepted (panic %q)", bad, got)
		}
	}
}
