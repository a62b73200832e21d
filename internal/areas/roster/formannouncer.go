package roster

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/riverqueue/river"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/jobs"
	"github.com/otherwise/perform/internal/store"
)

// A form sent with notify omitted is announced by this periodic job: every
// FormAnnounceEvery it writes one form_assigned outbox row (source "job") for
// each assignment not yet announced, so the trainee hears once, well within
// the hour. notify true was announced by the request; false never is.

// FormAnnounceEvery is how often the announcer runs.
const FormAnnounceEvery = 5 * time.Minute

// formAnnounceBatch is how many assignments one query takes.
const formAnnounceBatch = 200

// FormAnnounceArgs is the announcer's River job.
type FormAnnounceArgs struct{}

// Kind names the job in River's tables.
func (FormAnnounceArgs) Kind() string { return "perform_form_announce" }

// InsertOpts keeps at most one announcer job waiting or running.
func (FormAnnounceArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{
		MaxAttempts: 5,
		// Unique while waiting or running; a completed run never blocks the next.
		UniqueOpts: jobs.UniqueOpts(),
	}
}

// FormAnnouncer is the River worker of FormAnnounceArgs.
type FormAnnouncer struct {
	river.WorkerDefaults[FormAnnounceArgs]
	Store  store.Store
	Now    func() time.Time // nil: time.Now
	Logger *slog.Logger
}

// Work announces every due form.
func (w *FormAnnouncer) Work(ctx context.Context, _ *river.Job[FormAnnounceArgs]) error {
	now := time.Now
	if w.Now != nil {
		now = w.Now
	}
	n, err := AnnounceDueForms(ctx, w.Store, now().UTC())
	if w.Logger != nil && n > 0 {
		w.Logger.Info("forms announced", "count", n)
	}
	return err
}

// FormAnnouncerPeriodicJob schedules the announcer every FormAnnounceEvery
// (and once at start).
func FormAnnouncerPeriodicJob() *river.PeriodicJob {
	return river.NewPeriodicJob(
		river.PeriodicInterval(FormAnnounceEvery),
		func() (river.JobArgs, *river.InsertOpts) { return FormAnnounceArgs{}, nil },
		&river.PeriodicJobOpts{ID: "perform_form_announce", RunOnStart: true},
	)
}

// AnnounceDueForms writes the form_assigned row of every assignment created
// at or before now with notify unset and not yet announced. Marking and
// writing happen in one transaction per form, and the mark is conditional,
// so two workers never announce a form twice. It returns how many it announced.
func AnnounceDueForms(ctx context.Context, st store.Store, now time.Time) (int, error) {
	announced := 0
	for {
		due, err := st.DueForms(ctx, now, formAnnounceBatch)
		if err != nil {
			return announced, fmt.Errorf("listing forms to announce: %w", err)
		}
		for _, d := range due {
			err := st.InTx(ctx, func(tx store.Store) error {
				won, err := tx.MarkFormAnnounced(ctx, d.Assignment.ID, now)
				if err != nil || !won {
					return err
				}
				payload, _ := json.Marshal(map[string]string{"assignmentId": d.Assignment.ID, "formTemplateId": d.Assignment.FormTemplateID})
				announced++
				return tx.Studio(d.StudioID).AddNotification(ctx, &domain.Notification{
					ID:        ids.New(ids.Notification),
					TraineeID: d.Assignment.TraineeID,
					Kind:      domain.NotifyFormAssigned,
					Source:    domain.SourceJob,
					Payload:   payload,
					CreatedAt: now,
				})
			})
			if err != nil {
				return announced, fmt.Errorf("announcing form assignment %s: %w", d.Assignment.ID, err)
			}
		}
		if len(due) < formAnnounceBatch {
			return announced, nil
		}
	}
}
