package weekplans

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/modelbudget"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/weekplan"
)

// The model off the request path: a draft is the rules' week at once, and
// when a model is configured a River job (refineArgs) asks it for the
// week's layout and notes and puts them on the draft while it is still
// pending. The draft says where this stands (Refinement): pending, done,
// failed (the model's week broke the rules, or the call failed: the rules'
// week stands), skipped (no model, no job queue, the budget spent, or the
// draft applied or outdated before the job ran). A refinement that lands
// after the draft was applied is recorded and dropped.

// refineArgs are a refinement's job: the draft and what it was asked with.
type refineArgs struct {
	params
	DraftID string `json:"draftId"`
}

// Kind names the job.
func (refineArgs) Kind() string { return "weekplan_refine" }

// refineTimeout bounds a refinement (two model calls at most); it stays
// below River's rescue of stuck jobs (internal/jobs).
const refineTimeout = 18 * time.Second

// Purpose is what perform agent cost and the model budget name a weekly
// plan's model calls by.
const Purpose = "weekly_plan"

// Register adds the refinement's worker; SetJobs gives the client its jobs
// are inserted with. Without both, drafts stay the rules' week (skipped).
func (a *Area) Register(workers *river.Workers) { river.AddWorker(workers, &refiner{a: a}) }

// SetJobs gives the area the River client.
func (a *Area) SetJobs(c *river.Client[*sql.Tx]) { a.jobs.Store(c) }

// refinementOf is where a new draft's refinement starts, and why not
// pending when it is not; planned says the week is already on her
// calendar (her program's), which the rules adjust in place and no model
// lays out.
func (a *Area) refinementOf(c *lane.Call, traineeID, lang string, planned bool) (string, *string) {
	note := func(en, he string) (string, *string) {
		if lang == "en" {
			return domain.RefineSkipped, &en
		}
		return domain.RefineSkipped, &he
	}
	switch {
	case planned:
		return note("The week is already planned (her program's): the rules adjust it in place, and no model lays it out.", "השבוע כבר מתוכנן (של התוכנית שלה): הכללים מתאימים אותו במקומו, ואין מודל שמסדר אותו מחדש.")
	case a.o.Model == nil:
		return note("No model is configured: the week is the rules' own.", "לא הוגדר מודל: השבוע הוא של הכללים.")
	case c.DryRun():
		return note("A dry run asks no model.", "הרצת ניסיון לא פונה למודל.")
	case a.jobs.Load() == nil || a.o.Store == nil:
		return note("This server runs no job queue: the week is the rules' own.", "השרת הזה לא מריץ תור משימות: השבוע הוא של הכללים.")
	}
	if a.o.Budget != nil {
		var spent *modelbudget.Spent
		if err := a.o.Budget.Check(c.Ctx, c.P.StudioID, traineeID); errors.As(err, &spent) {
			s := spent.Sentence
			return domain.RefineSkipped, &s
		} else if err != nil {
			c.Logger().Warn("weekplans: the model budget could not be read; refining all the same", "error", err)
		}
	}
	return domain.RefinePending, nil
}

// enqueue inserts the refinement's job in the draft's transaction.
func (a *Area) enqueue(ctx context.Context, tx store.Store, args refineArgs) error {
	client := a.jobs.Load()
	opts := &river.InsertOpts{MaxAttempts: 2}
	var err error
	if sqlTx := tx.SQLTx(); sqlTx != nil {
		_, err = client.InsertTx(ctx, sqlTx, args, opts)
	} else {
		_, err = client.Insert(ctx, args, opts)
	}
	if err != nil {
		return fmt.Errorf("queueing the draft's refinement: %w", err)
	}
	return nil
}

type refiner struct {
	river.WorkerDefaults[refineArgs]
	a *Area
}

func (w *refiner) Timeout(*river.Job[refineArgs]) time.Duration { return refineTimeout }

func (w *refiner) Work(ctx context.Context, job *river.Job[refineArgs]) error {
	err := w.a.Refine(ctx, job.Args.DraftID, job.Args.params)
	if err != nil && job.Attempt >= job.MaxAttempts {
		// The last try failed: the draft says so and stays the rules' week.
		note := "The model's refinement failed: " + err.Error()
		_, rerr := w.a.o.Store.Studio(job.Args.StudioID).RefinePlanDraft(context.WithoutCancel(ctx), job.Args.DraftID, nil, nil, domain.RefineFailed, &note)
		return errors.Join(err, rerr)
	}
	return err
}

// Refine asks the model for the layout of draft id (asked with p) and
// records the outcome on the draft. An error is worth another try (the
// store or the context failed); what the model did wrong is recorded.
func (a *Area) Refine(ctx context.Context, id string, p params) error {
	ss := a.o.Store.Studio(p.StudioID)
	record := func(state, note string) error {
		var n *string
		if note != "" {
			n = &note
		}
		_, err := ss.RefinePlanDraft(context.WithoutCancel(ctx), id, nil, nil, state, n)
		return err
	}
	d, err := ss.GetPlanDraft(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil // the trainee was deleted since
	}
	if err != nil {
		return err
	}
	if d.Refinement != domain.RefinePending {
		return nil
	}
	if d.Status != domain.DraftPending {
		return record(domain.RefineSkipped, "The draft was "+d.Status+" before the refinement ran: it stands as it was.")
	}
	studio, err := a.o.Store.StudioByID(ctx, p.StudioID)
	if err != nil {
		return err
	}
	t, err := ss.GetTrainee(ctx, p.TraineeID)
	if err != nil {
		return err
	}
	pin, fp, err := gather(ctx, ss, studio, t, p)
	if err != nil {
		return err
	}
	if fp != d.Fingerprint {
		return record(domain.RefineSkipped, "Her records changed since the draft: the next ask drafts the week anew.")
	}
	if len(pin.Planned) > 0 {
		return record(domain.RefineSkipped, "The week is already planned (her program's): the rules adjust it in place, and no model lays it out.")
	}
	if a.o.Budget != nil {
		var spent *modelbudget.Spent
		if err := a.o.Budget.Check(ctx, p.StudioID, p.TraineeID); errors.As(err, &spent) {
			return record(domain.RefineSkipped, spent.Sentence)
		} else if err != nil {
			return err
		}
	}
	plan, rep, err := weekplan.Generate(ctx, pin, a.o.Model, a.o.Prices)
	if rep.ModelCalls > 0 {
		a.charge(ctx, p, id, rep)
	}
	if err != nil {
		var ie *weekplan.InputError
		if errors.As(err, &ie) {
			return record(domain.RefineFailed, ie.Message+".")
		}
		return err
	}
	if rep.Fallback {
		return record(domain.RefineFailed, "The model's week was not kept ("+rep.FallbackReason+"): the rules' week stands.")
	}
	pairPlanned(&plan, pin.Planned, p.Today)
	pb, rb, err := marshalBoth(plan, rep)
	if err != nil {
		return err
	}
	taken, err := ss.RefinePlanDraft(context.WithoutCancel(ctx), id, pb, rb, domain.RefineDone, nil)
	if err != nil || taken {
		return err
	}
	return record(domain.RefineDone, "The refinement landed after the draft was applied or replaced: recorded and dropped.")
}

// charge counts a refinement's model calls against the budget and for
// perform agent cost; neither failing undoes the refinement.
func (a *Area) charge(ctx context.Context, p params, draftID string, rep weekplan.Report) {
	ctx = context.WithoutCancel(ctx)
	log := a.o.Logger
	if a.o.Budget != nil {
		if err := a.o.Budget.Charge(ctx, p.StudioID, p.TraineeID, rep.InputTokens+rep.OutputTokens); err != nil && log != nil {
			log.Warn("weekplans: charging the model budget failed", "draft", draftID, "error", err)
		}
	}
	err := a.o.Store.Budget().RecordModelCall(ctx, store.ModelCall{StudioID: p.StudioID, Purpose: Purpose, Ref: draftID, Model: rep.Model,
		Calls: int64(rep.ModelCalls), Input: rep.InputTokens, Output: rep.OutputTokens, At: time.Now()})
	if err != nil && log != nil {
		log.Warn("weekplans: recording the model calls failed", "draft", draftID, "error", err)
	}
}

func marshalBoth(plan weekplan.Plan, rep weekplan.Report) ([]byte, []byte, error) {
	pb, err := json.Marshal(plan)
	if err != nil {
		return nil, nil, err
	}
	rb, err := json.Marshal(rep)
	return pb, rb, err
}
