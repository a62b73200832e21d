package agent

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/modelbudget"
	"github.com/otherwise/perform/internal/store"
)

// The assistant's model calls are checked against the one model budget and
// charged to it: a coach's turn is counted to the coach's day and the
// studio's hour, and once the coach's day is spent the turn answers the
// budget's sentence and calls no model.
func TestTheModelBudgetHoldsTheAssistant(t *testing.T) {
	onSQLite(t, func(t *testing.T, st store.Store) {
		b := modelbudget.New(st, modelbudget.Ceilings{PersonDayTokens: 1_000_000, StudioHourTokens: 10_000_000}, nil)
		h := newHarness(t, st, func(o *Options) { o.Budget = b })
		studio, coach := studioWithCoach(t, st, "Budget studio", "Gal", "050-999-0000", time.Now())
		seedHistory(t, h, "+972509990000")
		ctx := context.Background()

		h.send("972509990000", "c", "how are my trainees?")
		h.waitIdle()
		if n := len(h.llm.Requests()); n != 1 {
			t.Fatalf("%d model calls; want 1", n)
		}
		day := time.Now().In(studio.TimeZone())
		start := time.Date(day.Year(), day.Month(), day.Day(), 0, 0, 0, 0, studio.TimeZone())
		spent, hour, err := st.Budget().ModelSpent(ctx, studio.ID, coach.ID, start, time.Now().Truncate(time.Hour))
		if err != nil || spent == 0 || hour != spent {
			t.Fatalf("charged %d to the coach's day, %d to the studio's hour (%v); want the call's tokens in both", spent, hour, err)
		}

		if err := b.Charge(ctx, studio.ID, coach.ID, 1_000_000); err != nil {
			t.Fatal(err)
		}
		h.send("972509990000", "c", "and now?")
		h.waitIdle()
		texts := h.sms.Texts()
		if n := len(h.llm.Requests()); n != 1 || len(texts) != 2 || !strings.Contains(texts[1], "תקציב המודל") {
			t.Fatalf("over the budget: %d model calls, sent %q; want no call and the budget's sentence", n, texts)
		}
	})
}
