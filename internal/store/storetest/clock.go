package storetest

import (
	"testing"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/testkit"
)

// StepClock is a clock for tests: never behind the wall clock, and each
// reading at least a millisecond after the one before (testkit.StepClock).
func StepClock() func() time.Time { return testkit.StepClock() }

// FixedClock reads a time until Set or Advance moves it (testkit.Clock);
// pass its Now as the clock of a store, a lane or an agent.
type FixedClock = testkit.Clock

// NewFixedClock returns a FixedClock reading t.
func NewFixedClock(t time.Time) *FixedClock { return testkit.NewClock(t) }

// testClock: a store opened with a clock stamps that clock's time on the
// rows it times itself, and keeps the times the caller gives.
func testClock(t *testing.T, open Opener) {
	t0 := time.Date(2031, 3, 4, 5, 6, 7, 891_000_000, time.UTC)
	clk := NewFixedClock(t0)
	st := open(t, store.WithClock(clk.Now))

	studio := domain.Studio{Name: "Clock", Slug: "clock-" + randomHex(4)}
	must(t, "CreateStudio", st.CreateStudio(ctx, &studio))
	if got, _ := st.StudioByID(ctx, studio.ID); !sameTime(got.CreatedAt, t0) {
		t.Fatalf("studio createdAt = %v, want the store's clock %v", got.CreatedAt, t0)
	}
	_, key := newKey(t, st, studio.ID, "clock")
	if !sameTime(key.CreatedAt, t0) {
		t.Fatalf("key createdAt = %v, want %v", key.CreatedAt, t0)
	}
	must(t, "InsertAudit", st.InsertAudit(ctx, []domain.AuditEvent{{StudioID: studio.ID, Method: "POST", Route: "/v1/clock", Status: 200}}))
	if ev, _ := st.ListAudit(ctx, studio.ID, page(5, 0)); len(ev.Items) != 1 || !sameTime(ev.Items[0].At, t0) {
		t.Fatalf("audit = %+v, want one event at %v", ev.Items, t0)
	}

	ss := st.Studio(studio.ID)
	w := seedWorld(t, ss)
	for what, at := range map[string]time.Time{
		"coach": w.coach.CreatedAt, "tag": w.tag.CreatedAt, "trainee": w.trainee.CreatedAt,
		"trainee updatedAt": w.trainee.UpdatedAt, "product": w.product.CreatedAt, "subscription": w.sub.CreatedAt,
		"program template": w.template.CreatedAt, "program": w.program.CreatedAt, "form template": w.form.CreatedAt,
		"form assignment": w.assignment.CreatedAt, "form response submittedAt": w.response.SubmittedAt,
		"weight": w.weight.CreatedAt, "task": w.task.CreatedAt, "task updatedAt": w.task.UpdatedAt, "notification": w.note.CreatedAt,
	} {
		if !sameTime(at, t0) {
			t.Fatalf("%s = %v, want the store's clock %v", what, at, t0)
		}
	}
	tr, err := ss.GetTrainee(ctx, w.trainee.ID)
	must(t, "GetTrainee", err)
	if !sameTime(tr.CreatedAt, t0) || !sameTime(tr.UpdatedAt, t0) {
		t.Fatalf("stored trainee times = %v / %v, want %v", tr.CreatedAt, tr.UpdatedAt, t0)
	}
	task := w.task

	// Updates: a zero UpdatedAt is the store's clock, a set one is kept.
	t1 := t0.Add(time.Hour)
	clk.Advance(time.Hour)
	tr.UpdatedAt = time.Time{}
	tr.LastName = "Later"
	must(t, "UpdateTrainee", ss.UpdateTrainee(ctx, &tr))
	task.UpdatedAt = time.Time{}
	must(t, "UpdateTask", ss.UpdateTask(ctx, &task))
	gotTr, _ := ss.GetTrainee(ctx, tr.ID)
	gotTask, _ := ss.GetTask(ctx, task.ID)
	if !sameTime(gotTr.UpdatedAt, t1) || !sameTime(gotTr.CreatedAt, t0) || !sameTime(gotTask.UpdatedAt, t1) {
		t.Fatalf("after update: trainee %v/%v task %v, want updatedAt %v", gotTr.CreatedAt, gotTr.UpdatedAt, gotTask.UpdatedAt, t1)
	}
	mine := t0.Add(-time.Hour)
	gotTr.UpdatedAt = mine
	must(t, "UpdateTrainee with a time", ss.UpdateTrainee(ctx, &gotTr))
	explicit := domain.Task{Title: "Mine", CreatedAt: mine}
	must(t, "CreateTask with a time", ss.CreateTask(ctx, &explicit))
	gotTr, _ = ss.GetTrainee(ctx, tr.ID)
	gotTask, _ = ss.GetTask(ctx, explicit.ID)
	if !sameTime(gotTr.UpdatedAt, mine) || !sameTime(gotTask.CreatedAt, mine) {
		t.Fatalf("the caller's times were not kept: trainee updatedAt %v, task createdAt %v, want %v", gotTr.UpdatedAt, gotTask.CreatedAt, mine)
	}
}
