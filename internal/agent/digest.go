package agent

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/riverqueue/river"

	"github.com/otherwise/perform/internal/answers"
	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/jobs"
	"github.com/otherwise/perform/internal/laneclient"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/tools"
)

// The coach's morning digest. A coach who opted in (PUT
// /v1/automation/coaches/{id}/digest) gets, at her hour of the studio's
// day, the roster triage (needs_attention, through the lane as her) on
// WhatsApp, each trainee with a drafted message she can forward herself.
// Perform never messages a trainee.
//
// Once per coach per day, across instances: a periodic scan (every
// digestScanEvery, unique, scheduled by River's leader) finds the coaches
// who are due and, per coach, inserts the (coach, local day) row of
// agent_digests (primary key: a second insert does nothing) and the
// coach's digest job in one transaction (a day skipped because she had not
// written in 24 hours is claimed again the same way when she writes while
// it is still due). The row is only ever claimed
// together with a durable job that will finish it, so a crash after the
// claim loses nothing: River runs the job again.
//
// The job moves the row claimed → sending (a compare-and-set, so two runs
// of one job never both send), keeping what it will send, and records
// each message right after the gateway takes it, then the outcome. A
// gateway refusal or outage moves the row back to claimed: the retry
// sends the kept messages not yet taken. A job that finds the row still
// sending knows an earlier run died while the gateway had a message, which
// may have arrived: it sends nothing more and records the digest as
// failed (and logs it). So a digest never arrives twice, and one cut
// short by a crash is recorded, never silent.
const (
	digestScanEvery   = 2 * time.Minute
	digestLate        = 3 * time.Hour  // a digest not out within this of her hour waits for tomorrow (so does one skipped for the window when she writes later)
	digestWindow      = 24 * time.Hour // WhatsApp's customer service window
	digestKeep        = 60 * 24 * time.Hour
	digestMaxAttempts = 6
)

// errDigestJobRunning rolls back a claim whose job River would not queue.
var errDigestJobRunning = errors.New("the day's digest job has not finished yet")

type digestScanArgs struct{}

func (digestScanArgs) Kind() string { return "agent_digest_scan" }

// digestArgs is one coach's digest of one local day.
type digestArgs struct {
	CoachID string `json:"coachId"`
	Day     string `json:"day"`
}

func (digestArgs) Kind() string { return "agent_digest" }

type digestScanWorker struct {
	river.WorkerDefaults[digestScanArgs]
	a *Agent
}

func (w *digestScanWorker) Work(ctx context.Context, _ *river.Job[digestScanArgs]) error {
	return w.a.scanDigests(ctx)
}

// digestWorker runs with River's default timeout (jobs.DefaultJobTimeout),
// below the time after which River takes a running job for a crashed one,
// so two runs of one digest never overlap.
type digestWorker struct {
	river.WorkerDefaults[digestArgs]
	a *Agent
}

func (w *digestWorker) Work(ctx context.Context, job *river.Job[digestArgs]) error {
	return w.a.runDigest(ctx, job.Args.CoachID, job.Args.Day, job.Attempt >= job.MaxAttempts)
}

// registerDigest adds the digest's workers.
func (a *Agent) registerDigest(workers *river.Workers) {
	river.AddWorker(workers, &digestScanWorker{a: a})
	river.AddWorker(workers, &digestWorker{a: a})
}

// digestScanJob is the periodic scan SetJobs adds to the River client.
func digestScanJob() *river.PeriodicJob {
	return river.NewPeriodicJob(river.PeriodicInterval(digestScanEvery), func() (river.JobArgs, *river.InsertOpts) {
		return digestScanArgs{}, &river.InsertOpts{MaxAttempts: 1, UniqueOpts: jobs.UniqueOpts()}
	}, &river.PeriodicJobOpts{ID: "agent_digest_scan", RunOnStart: true})
}

func (a *Agent) addDigestJob(c *river.Client[*sql.Tx]) {
	if pj := c.PeriodicJobs(); pj != nil {
		if _, err := pj.AddSafely(digestScanJob()); err != nil {
			a.log.Warn("agent: the morning digest's job could not be added; no digest goes out", "err", err)
		}
	}
}

// digestDue is the coach's local day at now and whether her digest is due:
// from her hour of that day until digestLate after it (never past midnight).
func digestDue(now time.Time, zone *time.Location, hour int) (string, bool) {
	local := now.In(zone)
	y, m, d := local.Date()
	start := time.Date(y, m, d, hour, 0, 0, 0, zone)
	return local.Format(time.DateOnly), !local.Before(start) && local.Before(start.Add(digestLate))
}

// scanDigests claims the digest of every coach who is due and has none
// today, each with its job, and forgets old digests.
func (a *Agent) scanDigests(ctx context.Context) error {
	if !a.enabled {
		return nil
	}
	client := a.jobs.Load()
	if client == nil {
		return errors.New("agent: no River client to queue digests on")
	}
	ds := a.st.Digests()
	now := a.now()
	cands, err := ds.DigestCandidates(ctx)
	if err != nil {
		return err
	}
	for _, c := range cands {
		if !a.inPilot(c.PhoneKey) {
			continue // the assistant is silent to this number
		}
		zone := studioZone(c.StudioSettings)
		day, due := digestDue(now, zone, c.Hour)
		if !due {
			continue
		}
		// claim takes the day's row (a new one, or today's skipped one
		// back) and queues its job, or neither.
		claim := func(tx store.Store) (bool, error) {
			return tx.Digests().ClaimDigest(ctx, c.Coach.Coach.ID, c.Coach.StudioID, day, now)
		}
		switch {
		case c.LastDay < day:
		case c.LastDay == day && c.LastState == store.DigestSkippedWindow:
			// Skipped because she had not written in 24 hours: if she has
			// written since, the window is open and the digest is still
			// due, so it goes out now (within a scan of her message).
			_, wrote, err := ds.LastInbound(ctx, c.PhoneKey)
			if err != nil || c.LastFinished == nil || !wrote.After(*c.LastFinished) {
				continue
			}
			claim = func(tx store.Store) (bool, error) {
				return tx.Digests().MoveDigest(ctx, c.Coach.Coach.ID, day, store.DigestSkippedWindow, store.DigestClaimed, "", now)
			}
		default:
			continue
		}
		err := a.st.InTx(ctx, func(tx store.Store) error {
			won, err := claim(tx)
			if err != nil || !won {
				return err
			}
			res, err := client.InsertTx(ctx, tx.SQLTx(), digestArgs{CoachID: c.Coach.Coach.ID, Day: day},
				&river.InsertOpts{MaxAttempts: digestMaxAttempts, UniqueOpts: jobs.UniqueOpts()})
			if err == nil && res.UniqueSkippedAsDuplicate {
				// The day's first job has not finished yet: claiming the row
				// without a job of its own would leave it claimed for good.
				return errDigestJobRunning
			}
			return err
		})
		if err != nil {
			a.log.WarnContext(ctx, "agent: claiming a morning digest failed; the next scan tries again", "coach", c.Coach.Coach.ID, "err", err)
		}
	}
	return ds.SweepDigests(ctx, now.Add(-digestKeep))
}

// digestPlan is what a digest does: skip (with the state and why), or
// send texts into the coach's conversation, or send the template. What it
// sends is kept with the day's row (JSON) when it first goes out, so a
// retry sends the very same messages.
type digestPlan struct {
	skip, detail string
	Conversation string    `json:"conversation,omitempty"`
	Phone        string    `json:"phone,omitempty"`
	Texts        []string  `json:"texts,omitempty"`
	Template     *Template `json:"template,omitempty"`
}

// runDigest is one coach's digest of one day (see the comment at the top).
func (a *Agent) runDigest(ctx context.Context, coachID, day string, last bool) error {
	ds := a.st.Digests()
	rec, err := ds.Digest(ctx, coachID, day)
	if errors.Is(err, store.ErrNotFound) {
		return nil // the coach is gone, or the row was swept
	}
	if err != nil {
		return err
	}
	switch rec.State {
	case store.DigestClaimed:
	case store.DigestSending:
		a.log.ErrorContext(ctx, "agent: a morning digest was interrupted while it was being sent; it is not sent again, so it cannot arrive twice", "coach", coachID, "day", day)
		_, err := ds.MoveDigest(ctx, coachID, day, store.DigestSending, store.DigestFailed, "interrupted while sending; it may not have arrived and is not sent again", a.now())
		return err
	default:
		return nil // done already
	}
	var plan digestPlan
	if rec.Plan != "" {
		// An earlier attempt planned it and the gateway did not take it all.
		if err := json.Unmarshal([]byte(rec.Plan), &plan); err != nil {
			_, merr := ds.MoveDigest(ctx, coachID, day, store.DigestClaimed, store.DigestFailed, "the kept plan is unreadable: "+err.Error(), a.now())
			return merr
		}
	} else {
		if plan, err = a.planDigest(ctx, rec); err != nil {
			if last {
				_, merr := ds.MoveDigest(ctx, coachID, day, store.DigestClaimed, store.DigestFailed, err.Error(), a.now())
				return errors.Join(err, merr)
			}
			return err
		}
		if plan.skip != "" {
			a.log.InfoContext(ctx, "agent: morning digest skipped", "coach", coachID, "day", day, "state", plan.skip, "why", plan.detail)
			_, err := ds.MoveDigest(ctx, coachID, day, store.DigestClaimed, plan.skip, plan.detail, a.now())
			return err
		}
	}
	raw, err := json.Marshal(plan)
	if err != nil {
		return err
	}
	won, err := ds.StartDigest(ctx, coachID, day, string(raw))
	if err != nil || !won {
		return err // !won: another run of this job has it
	}
	// Recorded even if the job's context is ending: the gateway answered.
	rctx := context.WithoutCancel(ctx)
	outcome := store.DigestSent
	if plan.Template != nil {
		outcome = store.DigestTemplate
		err = a.sendTemplate(ctx, plan.Phone, *plan.Template)
	} else {
		for i := rec.Sent; i < len(plan.Texts) && err == nil; i++ {
			if err = a.gateway.Send(ctx, plan.Conversation, plan.Texts[i]); err == nil {
				err = ds.DigestProgress(rctx, coachID, day, i+1)
			}
		}
	}
	if err == nil {
		_, err = ds.MoveDigest(rctx, coachID, day, store.DigestSending, outcome, "", a.now())
		return err
	}
	var refused *SendError
	if last || errors.As(err, &refused) && refused.Permanent() {
		a.log.ErrorContext(ctx, "agent: SmartSend did not take a morning digest; giving it up", "coach", coachID, "day", day, "err", err)
		_, merr := ds.MoveDigest(rctx, coachID, day, store.DigestSending, store.DigestFailed, err.Error(), a.now())
		return merr
	}
	// Not taken: back to claimed, and River's retry sends the rest.
	if _, merr := ds.MoveDigest(rctx, coachID, day, store.DigestSending, store.DigestClaimed, err.Error(), a.now()); merr != nil {
		return errors.Join(err, merr)
	}
	return fmt.Errorf("sending the morning digest of %s: %w", coachID, err)
}

func (a *Agent) sendTemplate(ctx context.Context, phone string, t Template) error {
	ts, ok := a.gateway.(TemplateSender)
	if !ok {
		return &SendError{Status: http.StatusNotImplemented, Body: "this gateway sends no templates"}
	}
	return ts.SendTemplate(ctx, phone, t)
}

// planDigest decides the digest by the rules: the coach still opted in and
// active, in the pilot, her studio connected; inside the 24-hour window a
// text into her conversation, outside it the studio's template or nothing.
func (a *Agent) planDigest(ctx context.Context, rec store.DigestRecord) (digestPlan, error) {
	coach, err := a.st.ActiveCoachByID(ctx, rec.CoachID)
	if errors.Is(err, store.ErrNotFound) || err == nil && coach.StudioID != rec.StudioID {
		return digestPlan{skip: store.DigestSkippedOff, detail: "the coach is no longer active in the studio"}, nil
	}
	if err != nil {
		return digestPlan{}, err
	}
	setting, err := a.st.Digests().DigestSetting(ctx, rec.StudioID, rec.CoachID)
	if err != nil {
		return digestPlan{}, err
	}
	if !setting.Enabled {
		return digestPlan{skip: store.DigestSkippedOff, detail: "the coach turned the digest off"}, nil
	}
	if coach.Coach.Phone == nil || phoneKey(*coach.Coach.Phone) == "" {
		return digestPlan{skip: store.DigestSkippedOff, detail: "the coach has no phone"}, nil
	}
	sender := phoneKey(*coach.Coach.Phone)
	if !a.inPilot(sender) {
		return digestPlan{skip: store.DigestSkippedPilot, detail: "the phone is not in AGENT_PILOT_PHONES"}, nil
	}
	studio, err := a.st.StudioByID(ctx, rec.StudioID)
	if err != nil {
		return digestPlan{}, err
	}
	template := studio.DigestTemplate()
	conv, wrote, err := a.st.Digests().LastInbound(ctx, sender)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return digestPlan{}, err
	}
	inWindow := err == nil && a.now().Sub(wrote) < digestWindow
	if !inWindow && template == "" {
		return digestPlan{skip: store.DigestSkippedWindow, detail: "the coach has not written in 24 hours and the studio has no digestTemplate"}, nil
	}
	apiKey, stop, stopped, err := a.studioKey(ctx, &turn{ID: "digest:" + rec.CoachID + ":" + rec.Day, Phone: sender}, coach.StudioID, true)
	if err != nil {
		return digestPlan{}, err
	}
	if stopped {
		return digestPlan{skip: store.DigestSkippedDisconnected, detail: "the studio's assistant is not connected (" + stop.outcome + ")"}, nil
	}
	// Through the lane, as the coach: "mine" is her trainees.
	raw, err := a.lane.Do(auth.WithCoach(ctx, coach.Coach.ID), apiKey, tools.Request{
		Method: http.MethodGet, Path: "/trainees/needs-attention", Query: url.Values{"limit": {strconv.Itoa(digestTop)}},
	})
	var le *laneclient.Error
	if errors.As(err, &le) && le.Status == http.StatusUnauthorized {
		return digestPlan{skip: store.DigestSkippedDisconnected, detail: "the studio revoked the assistant's key"}, nil
	}
	if err != nil {
		return digestPlan{}, fmt.Errorf("reading the roster triage: %w", err)
	}
	var page answers.Triage
	if err := json.Unmarshal(raw, &page); err != nil {
		return digestPlan{}, fmt.Errorf("reading the roster triage's answer: %w", err)
	}
	if inWindow {
		today, err := a.todaysAppointments(auth.WithCoach(ctx, coach.Coach.ID), apiKey, coach.Coach.ID, studioZone(studio.Settings))
		if err != nil {
			return digestPlan{}, err
		}
		return digestPlan{Conversation: conv, Texts: digestMessages(coach.Coach.Name, page, today)}, nil
	}
	if page.Total == 0 {
		return digestPlan{skip: store.DigestSkippedEmpty, detail: "no one needs the coach today, and outside the 24-hour window an all-clear is not worth a template"}, nil
	}
	t := digestTemplate(template, coach.Coach.Name, page)
	return digestPlan{Phone: sender, Template: &t}, nil
}

// studioZone is the studio's time zone from its settings.
func studioZone(settings json.RawMessage) *time.Location {
	return domain.Studio{Settings: settings}.TimeZone()
}
