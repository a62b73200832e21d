package login_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"github.com/otherwise/perform/internal/jobs"
	"github.com/otherwise/perform/internal/otc"
	"github.com/otherwise/perform/internal/secret"
	"github.com/otherwise/perform/internal/store"
)

// With a Courier (as the server runs it), a sign-in code goes out as a
// River job written with the code and the sign-in, carrying the code
// sealed; the code it sends signs in. A phone on no record costs a job too,
// sent to nobody.
func TestSignInCodesGoThroughRiver(t *testing.T) {
	engines(t, func(t *testing.T, st store.Store) {
		courier, err := otc.NewCourier(secret.NewKey(), nil)
		must(t, err)
		workers := river.NewWorkers()
		courier.Register(workers)
		client, err := jobs.NewClient(st, jobs.Config{Workers: workers})
		must(t, err)
		courier.SetJobs(client)
		must(t, client.Start(context.Background()))
		t.Cleanup(func() {
			stop, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_ = client.Stop(stop)
		})
		e := newEnv(t, st, envOpts{recorder: true, courier: courier})
		w := e.newWorld()
		b := e.browser()
		if a, _ := b.startSignIn(*w.coach.Phone, ""); a.status != http.StatusSeeOther {
			t.Fatalf("POST /login = %d: %s", a.status, a.body)
		}
		code := e.sent.Code(t, *w.coach.Phone, 1)
		csrf := csrfIn(t, b.get("/login/code"))
		if a := b.submitCode(csrf, code); a.status != http.StatusSeeOther {
			t.Fatalf("the code the job sent: %d %s", a.status, a.body)
		}
		if a, _ := e.browser().startSignIn(newPhone(), ""); a.status != http.StatusSeeOther {
			t.Fatalf("POST /login for a phone on no record = %d: %s", a.status, a.body)
		}
		query := `SELECT args::text FROM river_job WHERE kind = ?`
		if st.Engine() == store.EngineSQLite {
			query = `SELECT json(args) FROM river_job WHERE kind = ?`
		}
		rows, err := st.DB().QueryContext(context.Background(), st.Rebind(query), otc.CodeJobKind)
		must(t, err)
		defer rows.Close()
		n := 0
		for rows.Next() {
			var args string
			must(t, rows.Scan(&args))
			if !strings.Contains(args, `"login"`) || strings.Contains(args, `"`+code+`"`) || strings.Contains(args, strings.TrimPrefix(*w.coach.Phone, "+")) {
				t.Errorf("a sign-in code's job: %s", args)
			}
			n++
		}
		if n != 2 {
			t.Fatalf("%d code jobs; want 2 (a phone on a record, one on none)", n)
		}
		if sent := e.sent.Sent(""); len(sent) != 1 {
			t.Fatalf("%d codes sent; want 1", len(sent))
		}
	})
}
