package sessions_test

import (
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/areas"
	"github.com/otherwise/perform/internal/audit"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/store/storetest"
	"github.com/otherwise/perform/internal/testkit"
)

// The lane's whole chain in process (request id, audit, auth lookup,
// validation, store, envelope), without a TCP hop. Compare with the store's
// own BenchmarkSearchTrainees for what the lane adds.
//
//	go test -run '^$' -bench Lane -benchmem ./internal/areas/sessions/
func BenchmarkLane(b *testing.B) {
	for _, engine := range []string{"sqlite", "postgres"} {
		for _, n := range testkit.Sizes(1_000, 10_000) {
			b.Run(fmt.Sprintf("%s/%dk", engine, n/1000), func(b *testing.B) {
				var st store.Store
				if engine == "sqlite" {
					st = storetest.OpenSQLite(b)
				} else {
					st = storetest.OpenPostgres(b)
				}
				aw := audit.NewWriter(st, audit.Options{})
				defer aw.Close()
				l := areas.Lane(lane.Options{Store: st, Audit: aw})
				key, someID := seedMany(b, st, n)

				// idemKey, when not nil, gives each request's Idempotency-Key.
				runWith := func(name, method, path, body string, want int, idemKey func(i int) string) {
					b.Run(name, func(b *testing.B) {
						b.ReportAllocs()
						for i := 0; b.Loop(); i++ {
							var rd io.Reader
							if body != "" {
								rd = strings.NewReader(body)
							}
							req := httptest.NewRequest(method, lane.Prefix+path, rd)
							req.Header.Set("Authorization", "Bearer "+key)
							if idemKey != nil {
								req.Header.Set(lane.IdempotencyHeader, idemKey(i))
							}
							rec := httptest.NewRecorder()
							l.ServeHTTP(rec, req)
							if rec.Code != want {
								b.Fatalf("%s %s: %d %s", method, path, rec.Code, rec.Body)
							}
						}
					})
				}
				run := func(name, method, path, body string, want int) { runWith(name, method, path, body, want, nil) }
				run("validate", "GET", "/validate", "", 200)
				run("get-trainee", "GET", "/trainees/"+someID, "", 200)
				run("search-name", "GET", "/trainees/search?q=levi77&limit=50", "", 200)
				run("by-phone", "GET", "/trainees/by-phone/050-100-0007", "", 200)
				run("create-task", "POST", "/tasks", `{"title":"Call back","clientId":"`+someID+`","priority":2}`, 201)
				// A new key each time (claim, write, store the answer), and one
				// key replayed.
				task := `{"title":"Call back","clientId":"` + someID + `","priority":2}`
				runWith("create-task-new-key", "POST", "/tasks", task, 201, func(i int) string { return fmt.Sprintf("bench-%s-%d-%d", engine, n, i) })
				runWith("create-task-replayed", "POST", "/tasks", task, 201, func(int) string { return "bench-replayed" })
				run("validation-422", "POST", "/tasks", `{"title":"","priority":9,"detail":7}`, 422)
			})
		}
	}
}

// seedMany writes n trainees in one transaction; about 1 in 100 has a last
// name containing "levi7", so the name search is selective.
func seedMany(b *testing.B, st store.Store, n int) (key, someID string) {
	b.Helper()
	e := &kit.Env{T: b, St: st}
	ctx := context.Background()
	s := domain.Studio{Name: "Bench", Slug: "bench", Tier: "business"}
	if err := st.CreateStudio(ctx, &s); err != nil {
		b.Fatal(err)
	}
	key, _ = e.NewKey(s.ID, "bench")
	err := st.InTx(ctx, func(tx store.Store) error {
		ss := tx.Studio(s.ID)
		for i := range n {
			t := domain.Trainee{FirstName: "T", LastName: fmt.Sprintf("Levi%d", i%100), Phone: fmt.Sprintf("+97250100%04d", i), Status: domain.TraineeActive}
			if err := ss.CreateTrainee(ctx, &t); err != nil {
				return err
			}
			if i == 7 {
				someID = t.ID
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return key, someID
}
