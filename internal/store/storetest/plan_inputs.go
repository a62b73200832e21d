package storetest

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
)

// What the weekly plan reads is kept: an injury's kind, the training
// profile's sport, goal and health conditions; a draft keeps its
// fingerprint, is superseded with a reason, takes a refinement only while
// pending, and names the week's coach tasks.
func testPlanInputs(t *testing.T, st store.Store) {
	ss, tr, other, _ := healthPair(t, st)
	inj := domain.Injury{TraineeID: tr.ID, Area: "knee", Side: "left", Severity: 2, Kind: "tendinopathy", OnsetOn: "2026-03-01", AffectedExercises: []string{}}
	must(t, "CreateInjury", ss.CreateInjury(ctx, &inj))
	got, err := ss.GetInjury(ctx, inj.ID)
	if err != nil || got.Kind != "tendinopathy" {
		t.Fatalf("injury %+v, %v; want kind tendinopathy", got, err)
	}
	got.Kind = "sprain"
	must(t, "UpdateInjury", ss.UpdateInjury(ctx, &got))
	if list, err := ss.ListInjuries(ctx, tr.ID, ""); err != nil || len(list) != 1 || list[0].Kind != "sprain" {
		t.Fatalf("injuries %+v, %v; want one sprain", list, err)
	}

	p := domain.TrainingProfile{TraineeID: tr.ID, Sport: "running", Goal: "endurance", Conditions: []string{"hypertension", "osteoporosis"}}
	must(t, "PutTrainingProfile", ss.PutTrainingProfile(ctx, &p))
	prof, err := ss.GetTrainingProfile(ctx, tr.ID)
	if err != nil || prof.Sport != "running" || prof.Goal != "endurance" || !slices.Equal(prof.Conditions, []string{"hypertension", "osteoporosis"}) {
		t.Fatalf("profile %+v, %v", prof, err)
	}
	prof.Conditions = nil
	must(t, "PutTrainingProfile", ss.PutTrainingProfile(ctx, &prof))
	if prof, err = ss.GetTrainingProfile(ctx, tr.ID); err != nil || prof.Conditions == nil || len(prof.Conditions) != 0 {
		t.Fatalf("conditions cleared: %+v, %v; want []", prof.Conditions, err)
	}

	now := time.Date(2026, 3, 2, 8, 0, 0, 0, time.UTC)
	draft := func(fp string) domain.PlanDraft {
		d := domain.PlanDraft{TraineeID: tr.ID, WeekStart: "2026-03-09", RequestedBy: "trainee", Plan: json.RawMessage(`{"v":1}`),
			Report: json.RawMessage(`{}`), CreatedAt: now, ExpiresAt: now.Add(72 * time.Hour), Fingerprint: fp, Refinement: domain.RefinePending}
		must(t, "CreatePlanDraft", ss.CreatePlanDraft(ctx, &d))
		return d
	}
	first := draft("fp1")
	if d, err := ss.PendingPlanDraft(ctx, tr.ID, "2026-03-09", now); err != nil || d.Fingerprint != "fp1" || d.Refinement != domain.RefinePending || d.TaskIDs != nil {
		t.Fatalf("pending %+v, %v", d, err)
	}
	if ids, err := ss.WeekTaskIDs(ctx, tr.ID, "2026-03-09"); err != nil || ids != nil {
		t.Fatalf("week tasks before any: %v, %v", ids, err)
	}
	must(t, "SetPlanDraftTasks", ss.SetPlanDraftTasks(ctx, first.ID, []string{"tsk_a", "tsk_b"}))
	second := draft("fp2")
	must(t, "SupersedePlanDrafts", ss.SupersedePlanDrafts(ctx, tr.ID, "2026-03-09", second.ID, "a new injury"))
	old, err := ss.GetPlanDraft(ctx, first.ID)
	if err != nil || old.Status != domain.DraftSuperseded || old.SupersededReason == nil || *old.SupersededReason != "a new injury" {
		t.Fatalf("superseded %+v, %v", old, err)
	}
	if ids, err := ss.WeekTaskIDs(ctx, tr.ID, "2026-03-09"); err != nil || !slices.Equal(ids, []string{"tsk_a", "tsk_b"}) {
		t.Fatalf("week tasks %v, %v", ids, err)
	}
	// A refinement of a pending draft replaces its plan; of a draft no
	// longer pending it is only recorded.
	if taken, err := other.RefinePlanDraft(ctx, second.ID, []byte(`{"v":2}`), []byte(`{}`), domain.RefineDone, nil); taken || err == nil {
		t.Fatalf("another studio refined the draft: %v, %v", taken, err)
	}
	if taken, err := ss.RefinePlanDraft(ctx, second.ID, []byte(`{"v":2}`), []byte(`{"model":"m"}`), domain.RefineDone, nil); err != nil || !taken {
		t.Fatalf("refine a pending draft: %v, %v", taken, err)
	}
	if d, _ := ss.GetPlanDraft(ctx, second.ID); string(d.Plan) != `{"v":2}` || d.Refinement != domain.RefineDone {
		t.Fatalf("refined %s %s", d.Plan, d.Refinement)
	}
	third := draft("fp3")
	must(t, "ApplyPlanDraft", ss.ApplyPlanDraft(ctx, third.ID, nil, []string{"ses_x"}, now))
	if taken, err := ss.RefinePlanDraft(ctx, third.ID, []byte(`{"v":9}`), []byte(`{}`), domain.RefineDone, nil); err != nil || taken {
		t.Fatalf("refine an applied draft: %v, %v", taken, err)
	}
	// Not taken, nothing is written: no reader sees the refinement done
	// before the caller says why.
	if d, _ := ss.GetPlanDraft(ctx, third.ID); string(d.Plan) != `{"v":1}` || d.Refinement != domain.RefinePending {
		t.Fatalf("a refinement not taken wrote %s %s", d.Plan, d.Refinement)
	}
	note := "landed after the draft was applied: dropped"
	must(t, "RefinePlanDraft", func() error {
		_, err := ss.RefinePlanDraft(ctx, third.ID, nil, nil, domain.RefineDone, &note)
		return err
	}())
	if d, _ := ss.GetPlanDraft(ctx, third.ID); string(d.Plan) != `{"v":1}` || d.RefinementNote == nil || *d.RefinementNote != note {
		t.Fatalf("applied draft after a late refinement: %s %v", d.Plan, d.RefinementNote)
	}
}

// The model budget's counters add up per person per day and per studio
// per hour, each studio apart; the calls outside turns are summed by
// UsageByStudio under their purpose.
func testModelBudget(t *testing.T, st store.Store) {
	a, b := newStudio(t, st), newStudio(t, st)
	bs := st.Budget()
	day := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
	hour := day.Add(9 * time.Hour)
	must(t, "ChargeModel", bs.ChargeModel(ctx, a.ID, "trn_1", day, hour, 1000))
	must(t, "ChargeModel", bs.ChargeModel(ctx, a.ID, "trn_1", day, hour, 500))
	must(t, "ChargeModel", bs.ChargeModel(ctx, a.ID, "trn_2", day, hour.Add(time.Hour), 300))
	must(t, "ChargeModel", bs.ChargeModel(ctx, b.ID, "trn_1", day, hour, 7))
	for _, c := range []struct {
		studio, person string
		hour           time.Time
		pd, sh         int64
	}{{a.ID, "trn_1", hour, 1500, 1500}, {a.ID, "trn_2", hour.Add(time.Hour), 300, 300}, {a.ID, "trn_3", hour, 0, 1500}, {b.ID, "trn_1", hour, 7, 7}} {
		pd, sh, err := bs.ModelSpent(ctx, c.studio, c.person, day, c.hour)
		if err != nil || pd != c.pd || sh != c.sh {
			t.Errorf("%s %s: spent %d/day, %d/hour, %v; want %d, %d", c.studio, c.person, pd, sh, err, c.pd, c.sh)
		}
	}
	at := time.Now().Add(-time.Minute)
	for _, c := range []struct {
		ref   string
		calls int64
	}{{"pld_1", 2}, {"pld_1", 0}, {"pld_2", 1}} {
		must(t, "RecordModelCall", bs.RecordModelCall(ctx, store.ModelCall{StudioID: a.ID, Purpose: "weekly_plan", Ref: c.ref, Model: "m", Calls: c.calls, Input: 10, Output: 5, At: at}))
	}
	rows, err := st.Agent().UsageByStudio(ctx, at.Add(-time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(rows, func(r store.AgentStudioUsage) bool { return r.StudioID == a.ID && r.Role == "weekly_plan" })
	if i < 0 || rows[i].Turns != 2 || rows[i].Steps != 4 || rows[i].Input != 30 || rows[i].Output != 15 || rows[i].StudioName != a.Name {
		t.Fatalf("usage rows %+v; want the weekly plans' 2 drafts, 4 calls", rows)
	}
}
