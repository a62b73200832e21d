package modelbudget_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/modelbudget"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/store/storetest"
	"github.com/otherwise/perform/internal/testkit"
)

// A person's day and a studio's hour are counted apart, in the database:
// a call is admitted while both are under their limits, refused with a
// sentence in the studio's language once one is spent, and admitted again
// when its window turns. A studio's own setting holds only below the
// operator's ceiling.
func TestTheBudgetCountsPersonDaysAndStudioHours(t *testing.T) {
	for name, open := range storetest.Engines(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			st := open(t)
			studio := domain.Studio{Name: "Budget", Slug: "budget-" + name}
			if err := st.CreateStudio(ctx, &studio); err != nil {
				t.Fatal(err)
			}
			// 09:30 in Jerusalem.
			clock := testkit.NewClock(time.Date(2026, 3, 2, 7, 30, 0, 0, time.UTC))
			b := modelbudget.New(st, modelbudget.Ceilings{PersonDayTokens: 1000, StudioHourTokens: 2500}, clock.Now)
			charge := func(person string, n int64) {
				t.Helper()
				if err := b.Check(ctx, studio.ID, person); err != nil {
					t.Fatalf("%s refused before %d tokens: %v", person, n, err)
				}
				if err := b.Charge(ctx, studio.ID, person, n); err != nil {
					t.Fatal(err)
				}
			}
			charge("trn_a", 600)
			charge("trn_a", 600) // admitted under the limit; the call's cost takes it over
			var spent *modelbudget.Spent
			if err := b.Check(ctx, studio.ID, "trn_a"); !errors.As(err, &spent) || !strings.Contains(spent.Sentence, "1000") || !strings.Contains(spent.Sentence, "היום") {
				t.Fatalf("a spent day: %v; want a Hebrew sentence naming the limit", err)
			}
			charge("trn_b", 900)
			charge("coach_c", 900)
			err := b.Check(ctx, studio.ID, "trn_d")
			if !errors.As(err, &spent) || !strings.Contains(spent.Sentence, "10:00") {
				t.Fatalf("a spent hour: %v; want when it opens (10:00 in the studio's zone)", err)
			}
			clock.Advance(time.Hour)
			if err := b.Check(ctx, studio.ID, "trn_d"); err != nil {
				t.Fatalf("the next hour: %v", err)
			}
			if err := b.Check(ctx, studio.ID, "trn_a"); err == nil {
				t.Fatal("trn_a's day is still spent an hour later")
			}
			clock.Advance(16 * time.Hour) // past midnight in Jerusalem
			if err := b.Check(ctx, studio.ID, "trn_a"); err != nil {
				t.Fatalf("the next day: %v", err)
			}

			// The studio's own limit holds below the ceiling, never above.
			set := func(settings string) {
				t.Helper()
				if _, err := store.PatchStudioSettings(ctx, st, studio.ID, map[string]any{}); err != nil {
					t.Fatal(err)
				}
				if err := st.UpdateStudioSettings(ctx, studio.ID, []byte(settings)); err != nil {
					t.Fatal(err)
				}
			}
			set(`{"language":"en","modelTokensPerPersonDay":100,"modelTokensPerStudioHour":999999999}`)
			charge("trn_e", 150)
			if err := b.Check(ctx, studio.ID, "trn_e"); !errors.As(err, &spent) || !strings.Contains(spent.Sentence, "(100 tokens)") {
				t.Fatalf("the studio's lower limit: %v", err)
			}
			studio, _ = st.StudioByID(ctx, studio.ID)
			if lim := b.Ceilings().Limits(studio); lim.StudioHourTokens != 2500 || lim.PersonDayTokens != 100 {
				t.Fatalf("limits %+v: the studio may only lower the ceilings", lim)
			}
		})
	}
}
