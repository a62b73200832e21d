package health

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/training"
)

// enumOf is the enum a lane tag of field of T lists.
func enumOf[T any](t *testing.T, field string) []string {
	t.Helper()
	f, ok := reflect.TypeFor[T]().FieldByName(field)
	if !ok {
		t.Fatalf("no field %s", field)
	}
	for part := range strings.SplitSeq(f.Tag.Get("lane"), ",") {
		if v, ok := strings.CutPrefix(part, "enum="); ok {
			return strings.Split(v, "|")
		}
	}
	t.Fatalf("%s has no enum", field)
	return nil
}

// The enums written in tags are the domain's lists: a new body area or
// metric cannot be forgotten in one of them.
func TestHealthEnumsAreTheDomainLists(t *testing.T) {
	var metrics []string
	for _, m := range training.BodyMetrics {
		metrics = append(metrics, m.Name)
	}
	for what, c := range map[string]struct{ got, want []string }{
		"check-in soreAreas": {enumOf[checkInInput](t, "SoreAreas"), domain.BodyAreas},
		"injury area":        {enumOf[injuryInput](t, "Area"), domain.BodyAreas},
		"injury side":        {enumOf[injuryInput](t, "Side"), domain.InjurySides},
		"goal measure":       {enumOf[goalInput](t, "Measure"), metrics},
		"injury kind":        {enumOf[injuryInput](t, "Kind"), domain.InjuryKinds},
		"injury kind change": {enumOf[updateInjuryInput](t, "Kind"), domain.InjuryKinds},
		"profile sport":      {enumOf[trainingProfileInput](t, "Sport"), domain.Sports},
		"profile goal":       {enumOf[trainingProfileInput](t, "Goal"), domain.TrainingGoals},
		"profile conditions": {enumOf[trainingProfileInput](t, "Conditions"), domain.HealthConditions},
	} {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("%s: the tag lists %v, the domain %v", what, c.got, c.want)
		}
	}
}
