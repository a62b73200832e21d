package jobs_test

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/jobs"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/store/storetest"
	"github.com/otherwise/perform/internal/testkit"
)

// greetArgs names a trainee inserted in the same transaction as the job.
type greetArgs struct {
	StudioID  string `json:"studioId"`
	TraineeID string `json:"traineeId"`
}

func (greetArgs) Kind() string { return "test_greet" }

// greetWorker reads the trainee the job names and reports its first name.
type greetWorker struct {
	river.WorkerDefaults[greetArgs]
	st   store.Store
	seen chan string
}

func (w *greetWorker) Work(ctx context.Context, job *river.Job[greetArgs]) error {
	t, err := w.st.Studio(job.Args.StudioID).GetTrainee(ctx, job.Args.TraineeID)
	if err != nil {
		return err
	}
	w.seen <- t.FirstName
	return nil
}

func TestJobInsertedWithItsDataRuns(t *testing.T) {
	for name, open := range storetest.Engines(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			st := open(t)
			studio := domain.Studio{Name: "Jobs", Slug: "jobs"}
			if err := st.CreateStudio(ctx, &studio); err != nil {
				t.Fatal(err)
			}
			worker := &greetWorker{st: st, seen: make(chan string, 1)}
			workers := river.NewWorkers()
			river.AddWorker(workers, worker)
			client, err := jobs.NewClient(st, jobs.Config{Workers: workers})
			if err != nil {
				t.Fatal(err)
			}
			if err := client.Start(ctx); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				stopCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				if err := client.Stop(stopCtx); err != nil {
					t.Errorf("stop: %v", err)
				}
			})

			// A rolled-back transaction takes its job with it.
			errRollback := errors.New("roll back")
			err = st.InTx(ctx, func(tx store.Store) error {
				tr := domain.Trainee{FirstName: "Ghost", LastName: "Rollback", Phone: "+972501111111"}
				if err := tx.Studio(studio.ID).CreateTrainee(ctx, &tr); err != nil {
					return err
				}
				if _, err := client.InsertTx(ctx, tx.SQLTx(), greetArgs{StudioID: studio.ID, TraineeID: tr.ID}, nil); err != nil {
					return err
				}
				return errRollback
			})
			if !errors.Is(err, errRollback) {
				t.Fatalf("InTx = %v, want the rollback error", err)
			}

			err = st.InTx(ctx, func(tx store.Store) error {
				tr := domain.Trainee{FirstName: "Noa", LastName: "Levi", Phone: "+972502222222"}
				if err := tx.Studio(studio.ID).CreateTrainee(ctx, &tr); err != nil {
					return err
				}
				_, err := client.InsertTx(ctx, tx.SQLTx(), greetArgs{StudioID: studio.ID, TraineeID: tr.ID}, nil)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			select {
			case got := <-worker.seen:
				if got != "Noa" {
					t.Fatalf("worker saw %q, want Noa (the rolled-back job must never run)", got)
				}
			case <-time.After(15 * time.Second):
				t.Fatal("the committed job did not run within 15s")
			}
			select {
			case got := <-worker.seen:
				t.Fatalf("a second job ran for %q; the rolled-back job must not exist", got)
			case <-time.After(300 * time.Millisecond):
			}
		})
	}
}

// onceArgs is a unique job keyed by its Key.
type onceArgs struct {
	Key string `json:"key"`
}

func (onceArgs) Kind() string { return "test_once" }

func (onceArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{UniqueOpts: jobs.UniqueOpts()}
}

type onceWorker struct {
	river.WorkerDefaults[onceArgs]
	done chan int64
}

func (w *onceWorker) Work(ctx context.Context, job *river.Job[onceArgs]) error {
	w.done <- job.ID
	return nil
}

// A completed unique job does not block the next one with the same args,
// while a waiting one does.
func TestUniqueJobsIgnoreCompleted(t *testing.T) {
	for name, open := range storetest.Engines(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			st := open(t)
			worker := &onceWorker{done: make(chan int64, 4)}
			workers := river.NewWorkers()
			river.AddWorker(workers, worker)

			// Not started yet: inserts wait, so the second is a duplicate.
			client, err := jobs.NewClient(st, jobs.Config{Workers: workers})
			if err != nil {
				t.Fatal(err)
			}
			first, err := client.Insert(ctx, onceArgs{Key: "k"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			dup, err := client.Insert(ctx, onceArgs{Key: "k"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !dup.UniqueSkippedAsDuplicate || dup.Job.ID != first.Job.ID {
				t.Fatalf("second insert while the first waits: skipped=%v id=%d, want skipped as duplicate of %d", dup.UniqueSkippedAsDuplicate, dup.Job.ID, first.Job.ID)
			}

			if err := client.Start(ctx); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				stopCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				_ = client.Stop(stopCtx)
			})
			waitJob(t, worker.done, first.Job.ID)
			waitState(t, client, first.Job.ID, rivertype.JobStateCompleted)

			again, err := client.Insert(ctx, onceArgs{Key: "k"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if again.UniqueSkippedAsDuplicate {
				t.Fatal("insert after the first job completed was skipped as a duplicate")
			}
			waitJob(t, worker.done, again.Job.ID)
		})
	}
}

func waitJob(t *testing.T, done chan int64, id int64) {
	t.Helper()
	select {
	case got := <-done:
		if got != id {
			t.Fatalf("job %d ran, want %d", got, id)
		}
	case <-time.After(15 * time.Second):
		t.Fatalf("job %d did not run within 15s", id)
	}
}

func waitState(t *testing.T, client *river.Client[*sql.Tx], id int64, want rivertype.JobState) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		job, err := client.JobGet(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if job.State == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %d is %s, want %s", id, job.State, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// The store's upkeep job is registered on every working client and runs.
func TestMaintainJobRuns(t *testing.T) {
	for name, open := range storetest.Engines(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			st := open(t)
			client, err := jobs.NewClient(st, jobs.Config{})
			if err != nil {
				t.Fatal(err)
			}
			if err := client.Start(ctx); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				stopCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				_ = client.Stop(stopCtx)
			})
			res, err := client.Insert(ctx, jobs.MaintainArgs{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			waitState(t, client, res.Job.ID, rivertype.JobStateCompleted)
		})
	}
}

// wrapped is a Store that is not the one store.Open returned.
type wrapped struct{ store.Store }

// The client runs on the pool of the store store.Open returned; a store
// bound to a transaction, or another Store, is refused with the fix named.
func TestNewClientNeedsTheOpenedStore(t *testing.T) {
	st := storetest.OpenSQLite(t)
	ctx := context.Background()
	err := st.InTx(ctx, func(tx store.Store) error {
		_, err := jobs.NewClient(tx, jobs.Config{InsertOnly: true})
		return err
	})
	if err == nil || !strings.Contains(err.Error(), "pass the store store.Open returned") {
		t.Errorf("NewClient on a transaction's store: %v; want a refusal naming the fix", err)
	}
	if _, err := jobs.NewClient(wrapped{st}, jobs.Config{InsertOnly: true}); err == nil || !strings.Contains(err.Error(), "pass the store store.Open returned") {
		t.Errorf("NewClient on a wrapped store: %v; want a refusal naming the fix", err)
	}
	if _, err := jobs.NewClient(st, jobs.Config{InsertOnly: true}); err != nil {
		t.Errorf("NewClient on the opened store: %v", err)
	}
}

// River's routine reports (client started, job counts, stopped) are
// demoted to debug: a working client at the default level logs nothing.
func TestRiverRoutineLogsAreDebug(t *testing.T) {
	st := storetest.OpenSQLite(t)
	logs := testkit.NewLogs()
	client, err := jobs.NewClient(st, jobs.Config{Logger: logs.Logger()})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := client.Start(ctx); err != nil {
		t.Fatal(err)
	}
	res, err := client.Insert(ctx, jobs.MaintainArgs{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	waitState(t, client, res.Job.ID, rivertype.JobStateCompleted)
	stopCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := client.Stop(stopCtx); err != nil {
		t.Fatal(err)
	}
	logs.WaitFor(t, 5*time.Second, "from River at debug", func(r testkit.Record) bool { return r.Level == slog.LevelDebug })
	if loud := logs.Find(func(r testkit.Record) bool { return r.Level >= slog.LevelInfo }); len(loud) != 0 {
		t.Fatalf("River logged at info or above: %v", loud)
	}
}
