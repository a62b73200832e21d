package otc_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"github.com/otherwise/perform/internal/jobs"
	"github.com/otherwise/perform/internal/otc"
	"github.com/otherwise/perform/internal/otc/otctest"
	"github.com/otherwise/perform/internal/secret"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/store/storetest"
	"github.com/otherwise/perform/internal/testkit"
)

// courierWorld is a door whose codes go through a Courier on a running
// River client of the store.
type courierWorld struct {
	st     store.Store
	codes  *otc.Codes
	sender *otctest.Sender
	logs   *testkit.Logs
}

func newCourierWorld(t *testing.T, st store.Store, key []byte) courierWorld {
	t.Helper()
	logs := testkit.NewLogs()
	courier, err := otc.NewCourier(key, logs.Logger())
	if err != nil {
		t.Fatal(err)
	}
	w := courierWorld{st: st, sender: otctest.NewSender(), logs: logs}
	w.codes = otc.New(otc.Options{Purpose: "test", Store: st.Codes(), Sender: w.sender, Courier: courier})
	workers := river.NewWorkers()
	courier.Register(workers)
	client, err := jobs.NewClient(st, jobs.Config{Workers: workers, ProcessQueue: courier.Queue()})
	if err != nil {
		t.Fatal(err)
	}
	courier.SetJobs(client)
	ctx := context.Background()
	if err := client.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stop, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := client.Stop(stop); err != nil {
			t.Errorf("stop: %v", err)
		}
	})
	return w
}

// jobArgs is every code job's payload as stored.
func (w courierWorld) jobArgs(t *testing.T) []string {
	t.Helper()
	query := `SELECT args::text FROM river_job WHERE kind = ?`
	if w.st.Engine() == store.EngineSQLite {
		query = `SELECT json(args) FROM river_job WHERE kind = ?` // River keeps JSONB there
	}
	rows, err := w.st.DB().QueryContext(context.Background(), w.st.Rebind(query), otc.CodeJobKind)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var args []byte
		if err := rows.Scan(&args); err != nil {
			t.Fatal(err)
		}
		out = append(out, string(args))
	}
	return out
}

// A code goes out as a job inserted in the transaction that writes it: a
// rolled-back request leaves no code and sends nothing, a committed one
// sends its code from the job; the job holds neither the code nor the
// phone in plain text; a code to nobody is queued alike and sent to no
// one; and a code is never queued outside a transaction.
func TestCodesGoThroughRiverInTheCallersTransaction(t *testing.T) {
	for name, open := range storetest.Engines(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			w := newCourierWorld(t, open(t), secret.NewKey())
			errRollBack := errors.New("roll back")
			err := w.st.InTx(ctx, func(tx store.Store) error {
				if _, err := w.codes.WithTx(tx).Issue(ctx, otc.Request{Subject: "rolled", Person: "p1", To: "+972501110001"}); err != nil {
					return err
				}
				return errRollBack
			})
			if !errors.Is(err, errRollBack) {
				t.Fatal(err)
			}
			if args := w.jobArgs(t); len(args) != 0 {
				t.Fatalf("a rolled-back request left %d code jobs", len(args))
			}
			if _, err := w.codes.WithStore(w.st.Codes()).Verify(ctx, "rolled", "000000"); !errors.Is(err, otc.ErrNoCode) {
				t.Fatalf("a rolled-back request left a code: %v", err)
			}

			for _, r := range []otc.Request{{Subject: "sent", Person: "p2", To: "+972501110002"}, {Subject: "nobody", Person: "p3"}} {
				if err := w.st.InTx(ctx, func(tx store.Store) error { _, err := w.codes.WithTx(tx).Issue(ctx, r); return err }); err != nil {
					t.Fatal(err)
				}
			}
			code := w.sender.Code(t, "+972501110002", 1)
			if res, err := w.codes.Verify(ctx, "sent", code); err != nil || res.Tries != 1 {
				t.Fatalf("the code the job sent: %v %+v", err, res)
			}
			args := w.jobArgs(t)
			if len(args) != 2 {
				t.Fatalf("%d code jobs; want one for the phone on a record and one for nobody", len(args))
			}
			for _, a := range args {
				var job map[string]string
				if err := json.Unmarshal([]byte(a), &job); err != nil || len(job) != 2 || job["purpose"] != "test" || !strings.HasPrefix(job["sealed"], "v1:") ||
					strings.Contains(a, "501110002") || strings.Contains(a, `"`+code+`"`) {
					t.Fatalf("a code job holds more than its door and the sealed message (%v): %s", err, a)
				}
			}
			time.Sleep(300 * time.Millisecond) // the job for nobody has run by now
			if sent := w.sender.Sent(""); len(sent) != 1 {
				t.Fatalf("%d codes were sent; want the one to the phone on a record", len(sent))
			}
			if _, err := w.codes.Issue(ctx, otc.Request{Subject: "outside", Person: "p4", To: "+972501110004"}); err == nil || !strings.Contains(err.Error(), "transaction") {
				t.Fatalf("a code queued outside a transaction: %v", err)
			}
		})
	}
}

// A code sealed under a key no process has any more (its process ended
// before sending it, with no PERFORM_SECRET_KEY) is dropped, never sent.
func TestACodeThatCannotBeOpenedIsDropped(t *testing.T) {
	ctx := context.Background()
	st := storetest.OpenSQLite(t)
	w := newCourierWorld(t, st, secret.NewKey())
	gone, err := otc.NewCourier(nil, nil) // another process's own key, and its queue
	if err != nil {
		t.Fatal(err)
	}
	if gone.Queue() == "" {
		t.Fatal("a courier with no shared key has no queue of its own")
	}
	// Its job, moved to a queue this process works, as if it were the same one.
	client, err := jobs.NewClient(st, jobs.Config{InsertOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	gone.SetJobs(client)
	other := otc.New(otc.Options{Purpose: "test", Store: st.Codes(), Sender: otctest.NewSender(), Courier: gone})
	if err := st.InTx(ctx, func(tx store.Store) error {
		_, err := other.WithTx(tx).Issue(ctx, otc.Request{Subject: "stranded", Person: "p", To: "+972501110009"})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.DB().ExecContext(ctx, `UPDATE river_job SET queue = 'default' WHERE kind = ?`, otc.CodeJobKind); err != nil {
		t.Fatal(err)
	}
	w.logs.WaitFor(t, 10*time.Second, "the dropped code's warning", func(r testkit.Record) bool { return strings.Contains(r.Message, "cannot be opened") })
	if sent := w.sender.Sent(""); len(sent) != 0 {
		t.Fatalf("a code sealed under a lost key was sent: %+v", sent)
	}
}
