package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/store/storetest"
	"github.com/otherwise/perform/internal/testkit"
)

// Each roster question (GET /roster) over a studio of 5,000 active
// trainees with 90 days of data each (seedRosterData), with its default
// window and a first page of 50, as the route asks it: the page, then the
// roster's size.
//
//	go test -run '^$' -bench RosterReads -benchtime 20x ./internal/store/
func BenchmarkRosterReads(b *testing.B) {
	openers := map[string]func(testing.TB) store.Store{
		"sqlite":   func(tb testing.TB) store.Store { return storetest.OpenSQLite(tb) },
		"postgres": func(tb testing.TB) store.Store { return storetest.OpenPostgres(tb) },
	}
	windows := map[string][2]string{ // the route's defaults on benchToday, a Wednesday
		domain.RosterPlansEnding:   {benchToday, "2027-01-01"},
		domain.RosterPlansStarting: {benchToday, "2027-01-01"},
		domain.RosterNewTrainees:   {"2026-11-03", benchToday},
		domain.RosterGoalsReached:  {"2026-11-03", benchToday},
		domain.RosterFeedback:      {"2026-11-03", benchToday},
	}
	n := testkit.Size(5_000, 500)
	for _, engine := range []string{"sqlite", "postgres"} {
		b.Run(fmt.Sprintf("%s/%d", engine, n), func(b *testing.B) {
			st := openers[engine](b)
			ctx := context.Background()
			studio := seedTrainees(b, st, n)
			seedRosterData(b, st, studio.ID)
			ss := st.Studio(studio.ID)
			for _, question := range domain.RosterQuestions {
				w, ok := windows[question]
				if !ok {
					w = [2]string{"2026-11-30", benchToday}
				}
				since, _ := time.Parse(time.DateOnly, w[0])
				until, _ := time.Parse(time.DateOnly, w[1])
				q := store.RosterRead{Question: question, From: w[0], To: w[1], Since: since, Until: until.AddDate(0, 0, 1),
					Zone: time.UTC, Page: store.Page{Limit: 50}}
				b.Run(question, func(b *testing.B) {
					first, err := ss.ReadRoster(ctx, q)
					if err != nil {
						b.Fatal(err)
					}
					b.Logf("%s: %d rows", question, first.Total)
					b.ReportAllocs()
					lap, done := reportP50(b)
					defer done()
					for b.Loop() {
						lap()
						got, err := ss.ReadRoster(ctx, q)
						if err != nil || got.Total != first.Total {
							b.Fatalf("ReadRoster: %d, %v; want %d", got.Total, err, first.Total)
						}
						if _, err := ss.RosterSize(ctx, "", ""); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}
