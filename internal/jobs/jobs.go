// Package jobs sets up River on the store's own database: riversqlite on
// SQLite, riverdatabasesql (pgx stdlib) on Postgres, so both engines give one
// river.Client[*sql.Tx] and a job is inserted in the same transaction as the
// data it concerns (store.InTx, then client.InsertTx(ctx, tx.SQLTx(), …)).
package jobs

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivertype"

	"github.com/otherwise/perform/internal/config"
	"github.com/otherwise/perform/internal/store"
)

// Timing defaults, chosen so a job whose worker crashed runs again within
// about a minute at worst:
//
//   - JobTimeout 15s: every job Perform runs is short (announce a form, one
//     agent turn of a few model calls); a worker that needs longer declares
//     its own Timeout(job), which must stay below RescueStuckJobsAfter.
//   - RescueStuckJobsAfter 20s: a job still "running" 20s after it started
//     (its process died, since a live one would have hit JobTimeout at 15s)
//     is scheduled for retry. River's rescuer checks every 30s (fixed in
//     River v0.51), so a crashed job is retried 20–50s after it started.
//   - FetchPollInterval 100ms: there is no LISTEN/NOTIFY on either path
//     (riversqlite emulates it by polling a notification table every 50ms;
//     riverdatabasesql without a pgx listener pool runs poll-only), so
//     producers also poll for new jobs; 100ms keeps latency low for a
//     cheap indexed query.
const (
	DefaultJobTimeout           = 15 * time.Second
	DefaultRescueStuckJobsAfter = 20 * time.Second
	DefaultFetchPollInterval    = 100 * time.Millisecond
	DefaultMaxWorkers           = 10
)

// QueueHolding is the queue of jobs that mostly wait: a WhatsApp reply is
// held by its worker until its burst's debounce ends, so it leaves within
// a poll of that moment rather than of River's scheduler (which promotes
// scheduled jobs every 5 s). A held job costs a goroutine, not a
// connection, so the queue has many workers. A client works it only when
// its Config says Holding: an idle queue still polls the database.
const (
	QueueHolding      = "holding"
	HoldingMaxWorkers = 200
)

// processQueueWorkers work Config.ProcessQueue: short sends, few at once.
const processQueueWorkers = 4

// Config configures the client. Zero values take the defaults above.
type Config struct {
	Workers      *river.Workers
	PeriodicJobs []*river.PeriodicJob
	Logger       *slog.Logger
	// Queues defaults to the default queue with DefaultMaxWorkers workers,
	// and QueueHolding with HoldingMaxWorkers when Holding.
	Queues  map[string]river.QueueConfig
	Holding bool
	// ProcessQueue, when set, is a queue this client works besides the
	// others: the jobs only this process can do (one-time codes sealed
	// under a key of its own, otc.Courier.Queue).
	ProcessQueue string

	JobTimeout           time.Duration
	RescueStuckJobsAfter time.Duration
	FetchPollInterval    time.Duration
	// InsertOnly builds a client that only inserts (no Queues, never
	// started), e.g. for a CLI process while the server works the jobs.
	InsertOnly bool
}

// NewClient returns a River client on the store's database. Call Start to
// work jobs and Stop on shutdown.
//
// Unique jobs: River's default UniqueOpts.ByState counts completed jobs, so a
// job that already ran once would block a new one with the same args until
// the cleaner removes it. Perform's jobs use UniqueOpts() below, whose
// ByState leaves out completed (and cancelled, discarded): "unique while
// waiting or running", never "unique forever".
func NewClient(st store.Store, cfg Config) (*river.Client[*sql.Tx], error) {
	if st == nil {
		return nil, errors.New("jobs: a store is required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	rc := &river.Config{
		// River reports routine work (job counts every few seconds while
		// jobs run, client start and stop) at info: keep that at debug.
		Logger:               config.Demote(cfg.Logger, slog.LevelDebug),
		Workers:              cfg.Workers,
		PeriodicJobs:         cfg.PeriodicJobs,
		JobTimeout:           orDefault(cfg.JobTimeout, DefaultJobTimeout),
		RescueStuckJobsAfter: orDefault(cfg.RescueStuckJobsAfter, DefaultRescueStuckJobsAfter),
		FetchPollInterval:    orDefault(cfg.FetchPollInterval, DefaultFetchPollInterval),
		// River's cooldown must not exceed the poll interval.
		FetchCooldown: min(orDefault(cfg.FetchPollInterval, DefaultFetchPollInterval), river.FetchCooldownDefault),
	}
	if !cfg.InsertOnly {
		rc.Queues = cfg.Queues
		if len(rc.Queues) == 0 {
			rc.Queues = map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: DefaultMaxWorkers}}
			if cfg.Holding {
				rc.Queues[QueueHolding] = river.QueueConfig{MaxWorkers: HoldingMaxWorkers}
			}
		}
		if cfg.ProcessQueue != "" {
			rc.Queues = maps.Clone(rc.Queues)
			rc.Queues[cfg.ProcessQueue] = river.QueueConfig{MaxWorkers: processQueueWorkers}
		}
		if rc.Workers == nil {
			rc.Workers = river.NewWorkers()
		}
		// The store's daily upkeep rides along with every working client;
		// an error only means the caller registered it already.
		_ = river.AddWorkerSafely(rc.Workers, &maintainWorker{st: st})
		rc.PeriodicJobs = append(slices.Clone(cfg.PeriodicJobs), MaintainPeriodicJob())
	}
	db, err := store.Pool(st)
	if err != nil {
		return nil, fmt.Errorf("jobs: %w", err)
	}
	var client *river.Client[*sql.Tx]
	switch st.Engine() {
	case store.EngineSQLite:
		client, err = river.NewClient(riversqlite.New(db), rc)
	case store.EnginePostgres:
		rc.PollOnly = true
		client, err = river.NewClient(riverdatabasesql.New(db), rc)
	default:
		return nil, fmt.Errorf("jobs: unknown store engine %q", st.Engine())
	}
	if err != nil {
		return nil, fmt.Errorf("jobs: %w", err)
	}
	return client, nil
}

// MaintainArgs is the store's daily upkeep (store.Optimize).
type MaintainArgs struct{}

func (MaintainArgs) Kind() string { return "store_maintain" }

// MaintainPeriodicJob enqueues MaintainArgs once a day, once across all
// instances (the leader schedules it; UniqueOpts drops a duplicate).
func MaintainPeriodicJob() *river.PeriodicJob {
	return river.NewPeriodicJob(river.PeriodicInterval(24*time.Hour),
		func() (river.JobArgs, *river.InsertOpts) {
			return MaintainArgs{}, &river.InsertOpts{UniqueOpts: UniqueOpts()}
		}, nil)
}

type maintainWorker struct {
	river.WorkerDefaults[MaintainArgs]
	st store.Store
}

func (w *maintainWorker) Work(ctx context.Context, _ *river.Job[MaintainArgs]) error {
	return store.Optimize(ctx, w.st)
}

// UniqueOpts makes a job unique by its args among jobs not yet finished:
// available, pending, retryable, running or scheduled. A completed job does
// not block the next one.
func UniqueOpts() river.UniqueOpts {
	return river.UniqueOpts{ByArgs: true, ByState: UnfinishedStates()}
}

// UnfinishedStates are the states of a job that has not completed, been
// cancelled or been discarded.
func UnfinishedStates() []rivertype.JobState {
	return []rivertype.JobState{
		rivertype.JobStateAvailable,
		rivertype.JobStatePending,
		rivertype.JobStateRetryable,
		rivertype.JobStateRunning,
		rivertype.JobStateScheduled,
	}
}

func orDefault(v, def time.Duration) time.Duration {
	if v > 0 {
		return v
	}
	return def
}
