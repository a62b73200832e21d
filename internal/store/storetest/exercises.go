package storetest

import (
	"reflect"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/store"
)

// A studio's own exercises (store.Exercises).

func testExercises(t *testing.T, st store.Store) {
	studio, other := newStudio(t, st), newStudio(t, st)
	ss, os := st.Studio(studio.ID), st.Studio(other.ID)

	if list, err := ss.ListExercises(ctx); err != nil || len(list) != 0 {
		t.Fatalf("ListExercises of a new studio = %v, %v; want none", list, err)
	}

	sled := domain.Exercise{
		Name: "Sled sprint", NameHe: "ספרינט עם מזחלת", Aliases: []string{"prowler sprint", "ספרינט מזחלת"},
		Category: domain.CategoryConditioning, Primary: []string{"quadriceps", "glutes"}, Secondary: []string{"calves"},
		Equipment: []string{"sled"}, Unilateral: false, Measure: domain.MeasureDistance,
		Loads: []string{"knee", "hip"}, Alternatives: []string{"sled-push", "sprint"},
	}
	must(t, "CreateExercise", ss.CreateExercise(ctx, &sled))
	if !ids.Valid(sled.ID, ids.Exercise) || !sled.Custom || sled.CreatedAt == nil || sled.CreatedAt.IsZero() {
		t.Fatalf("CreateExercise left id %q, custom %v, createdAt %v", sled.ID, sled.Custom, sled.CreatedAt)
	}
	got, err := ss.GetExercise(ctx, sled.ID)
	must(t, "GetExercise", err)
	if !sameTime(*got.CreatedAt, *sled.CreatedAt) {
		t.Errorf("createdAt %v, want %v", got.CreatedAt, sled.CreatedAt)
	}
	got.CreatedAt = sled.CreatedAt
	if !reflect.DeepEqual(got, sled) {
		t.Errorf("GetExercise = %+v\nwant %+v", got, sled)
	}

	// A bare exercise reads back with empty lists, never null ones.
	bare := domain.Exercise{Name: "Arm wrestle", NameHe: "הורדת ידיים", Category: domain.CategoryStrength, Measure: domain.MeasureTime}
	must(t, "CreateExercise bare", ss.CreateExercise(ctx, &bare))
	got, err = ss.GetExercise(ctx, bare.ID)
	must(t, "GetExercise bare", err)
	if got.Aliases == nil || got.Primary == nil || got.Secondary == nil || got.Equipment == nil || got.Loads == nil || got.Alternatives == nil {
		t.Errorf("a bare exercise reads back with nil lists: %+v", got)
	}

	// The name is unique per studio whatever its case and spacing.
	dup := sled
	dup.ID, dup.CreatedAt, dup.Name = "", nil, "  sled   SPRINT "
	err = ss.CreateExercise(ctx, &dup)
	mustConflict(t, "CreateExercise of a taken name", err, sled.ID)
	if !strings.Contains(err.Error(), sled.ID) {
		t.Errorf("the conflict %q does not name %s", err, sled.ID)
	}
	// Another studio may use it.
	theirs := sled
	theirs.ID, theirs.CreatedAt = "", nil
	must(t, "CreateExercise in another studio", os.CreateExercise(ctx, &theirs))

	// Tenancy: each studio sees its own.
	mustNotFound(t, "GetExercise of another studio's", func() error { _, err := ss.GetExercise(ctx, theirs.ID); return err }())
	mustNotFound(t, "GetExercise of an unknown id", func() error { _, err := ss.GetExercise(ctx, ids.New(ids.Exercise)); return err }())

	// Listed by name.
	first := domain.Exercise{Name: "animal flow", NameHe: "זרימת חיות", Category: domain.CategoryMobility, Measure: domain.MeasureTime}
	must(t, "CreateExercise", ss.CreateExercise(ctx, &first))
	list, err := ss.ListExercises(ctx)
	must(t, "ListExercises", err)
	var names []string
	for _, e := range list {
		names = append(names, e.Name)
		if !e.Custom {
			t.Errorf("%s is listed as a built-in", e.ID)
		}
	}
	if want := []string{"animal flow", "Arm wrestle", "Sled sprint"}; !reflect.DeepEqual(names, want) {
		t.Errorf("ListExercises = %v, want %v (by name, case-insensitive)", names, want)
	}
	theirList, err := os.ListExercises(ctx)
	must(t, "ListExercises of the other studio", err)
	if len(theirList) != 1 || theirList[0].ID != theirs.ID {
		t.Errorf("the other studio lists %v, want only its own", theirList)
	}

	// Inside a transaction a conflict rolls back like any error.
	err = st.InTx(ctx, func(tx store.Store) error {
		again := first
		again.ID, again.CreatedAt = "", nil
		return tx.Studio(studio.ID).CreateExercise(ctx, &again)
	})
	mustConflict(t, "CreateExercise of a taken name in a transaction", err, first.ID)
}
