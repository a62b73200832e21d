package roster_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/lane/lanetest"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/store/storetest"
)

func TestOpenAPIServedWithoutAuth(t *testing.T) {
	st := storetest.OpenSQLite(t)
	e := lanetest.New(t, st)
	resp, err := http.Get(e.Srv.URL + lane.Prefix + "/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var doc struct {
		OpenAPI string                               `json:"openapi"`
		Paths   map[string]map[string]map[string]any `json:"paths"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil || resp.StatusCode != 200 {
		t.Fatalf("status %d err %v", resp.StatusCode, err)
	}
	if doc.OpenAPI != "3.1.0" {
		t.Errorf("openapi = %q", doc.OpenAPI)
	}
	search := doc.Paths["/trainees/search"]["get"]
	if search == nil || search["x-perform-tool"] != "search_trainees" {
		t.Fatalf("search operation: %v", search)
	}
	params, _ := json.Marshal(search["parameters"])
	if !strings.Contains(string(params), `"maximum":200`) {
		t.Errorf("limit's bounds are missing from the parameters: %s", params)
	}
	body, _ := json.Marshal(doc.Paths["/trainees"]["post"]["requestBody"])
	for _, want := range []string{`"firstName"`, `"required":["firstName","lastName","phone"]`, `"minimum":100`} {
		if !strings.Contains(string(body), want) {
			t.Errorf("create_trainee body schema lacks %s: %s", want, body)
		}
	}
	if doc.Paths["/trainees/{id}"]["delete"]["x-perform-app-only"] != true {
		t.Error("DELETE /trainees/{id} is not marked app-only")
	}
}

func TestTrainees(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		e := lanetest.New(t, st)
		f := e.Seed("trn")
		k := f.Key

		if f.Trainee.Phone != "+972501234567" || !slices.Equal(f.Trainee.CoachIDs, []string{f.Coach.ID}) || !slices.Equal(f.Trainee.Tags, []string{f.Tag.Name}) {
			t.Fatalf("created trainee: %+v", f.Trainee)
		}

		// Reads.
		var got domain.Trainee
		e.OK(200, e.Call(k, "GET", "/trainees/"+f.Trainee.ID, nil)).Into(t, &got)
		if got.ID != f.Trainee.ID || got.LastName != "Levi-trn" {
			t.Errorf("get: %+v", got)
		}
		for _, typed := range []string{"050-123-4567", "+972 50 123 4567", "972501234567"} {
			var byPhone domain.Trainee
			e.OK(200, e.Call(k, "GET", "/trainees/by-phone/"+url.PathEscape(typed), nil)).Into(t, &byPhone)
			if byPhone.ID != f.Trainee.ID {
				t.Errorf("by-phone %q found %s", typed, byPhone.ID)
			}
		}
		a := e.Fails(404, "NOT_FOUND", e.Call(k, "GET", "/trainees/by-phone/0529999999", nil))
		if !strings.Contains(a.Message(), "+972529999999") {
			t.Errorf("by-phone not found: %q", a.Message())
		}
		e.Fails(422, "VALIDATION", e.Call(k, "GET", "/trainees/by-phone/abc", nil))

		a = e.Fails(404, "NOT_FOUND", e.Call(k, "GET", "/trainees/trn_00000000000000000000000000", nil))
		if a.Message() != "No trainee with id trn_00000000000000000000000000 exists in this studio. Use search_trainees to get a valid id." {
			t.Errorf("not found sentence: %q", a.Message())
		}
		a = e.Fails(404, "NOT_FOUND", e.Call(k, "GET", "/trainees/"+f.Product.ID, nil))
		if a.Message() != f.Product.ID+" is a plan id; this needs a trainee id (from search_trainees)." {
			t.Errorf("wrong-kind sentence: %q", a.Message())
		}

		// Search.
		for i := range 3 {
			e.OK(201, e.Call(k, "POST", "/trainees", map[string]any{"firstName": "Noa", "lastName": fmt.Sprintf("Cohen%d", i), "phone": fmt.Sprintf("054-000-000%d", i), "status": "paused"}))
		}
		var res kit.List[domain.Trainee]
		e.OK(200, e.Call(k, "GET", "/trainees/search?q=noa&limit=2", nil)).Into(t, &res)
		if res.Total != 3 || len(res.Items) != 2 || res.NextOffset == nil || *res.NextOffset != 2 {
			t.Errorf("search page 1: total %d items %d next %v", res.Total, len(res.Items), res.NextOffset)
		}
		e.OK(200, e.Call(k, "GET", "/trainees/search?q=noa&limit=2&offset=2", nil)).Into(t, &res)
		if len(res.Items) != 1 || res.NextOffset != nil {
			t.Errorf("search page 2: items %d next %v", len(res.Items), res.NextOffset)
		}
		e.OK(200, e.Call(k, "GET", "/trainees/search?status=active&coachId="+f.Coach.ID+"&tag="+url.QueryEscape(f.Tag.Name), nil)).Into(t, &res)
		if res.Total != 1 || res.Items[0].ID != f.Trainee.ID {
			t.Errorf("filtered search: %+v", res)
		}
		for _, limit := range []string{"0", "201", "-5", "ten"} {
			a := e.Fails(422, "VALIDATION", e.Call(k, "GET", "/trainees/search?limit="+limit, nil))
			if !slices.Equal(a.Fields(), []string{"limit"}) || !strings.Contains(a.Message(), "limit must be a whole number from 1 to 200") {
				t.Errorf("limit=%s: %s", limit, a.Raw)
			}
		}
		e.OK(200, e.Call(k, "GET", "/trainees/search?limit=200", nil))

		// Create: every bad field named at once.
		a = e.Fails(422, "VALIDATION", e.Call(k, "POST", "/trainees", map[string]any{"firstName": "", "weightKg": 600, "heightCm": -1, "email": "x", "stepsGoal": 1.5, "surname": "x"}))
		for _, f := range []string{"firstName", "lastName", "phone", "email", "heightCm", "weightKg", "stepsGoal", "surname"} {
			if !slices.Contains(a.Fields(), f) {
				t.Errorf("422 does not name %s: %s", f, a.Raw)
			}
		}
		a = e.Fails(422, "VALIDATION", e.Call(k, "POST", "/trainees", map[string]any{"firstName": "A", "lastName": "B", "phone": "12"}))
		if !slices.Equal(a.Fields(), []string{"phone"}) {
			t.Errorf("bad phone: %s", a.Raw)
		}
		a = e.Fails(409, "CONFLICT", e.Call(k, "POST", "/trainees", map[string]any{"firstName": "A", "lastName": "B", "phone": "+972501234567"}))
		if !strings.Contains(a.Message(), f.Trainee.ID) {
			t.Errorf("conflict names the existing trainee: %q", a.Message())
		}
		e.Fails(404, "NOT_FOUND", e.Call(k, "POST", "/trainees", map[string]any{"firstName": "A", "lastName": "B", "phone": "0547777777", "coachIds": []string{"coa_00000000000000000000000000"}}))
		a = e.Fails(404, "NOT_FOUND", e.Call(k, "POST", "/trainees", map[string]any{"firstName": "A", "lastName": "B", "phone": "0547777777", "productId": f.Template.ID}))
		if !strings.Contains(a.Message(), "program template id; this needs a plan id (from list_plans)") {
			t.Errorf("wrong-kind product: %q", a.Message())
		}
		// Nothing was written by the refused creates.
		e.OK(200, e.Call(k, "GET", "/trainees/search?q=0547777777", nil)).Into(t, &res)
		if res.Total != 0 {
			t.Errorf("a refused create left a trainee behind")
		}

		// Create with a plan: same transaction.
		var withPlan struct {
			domain.Trainee
			Subscription *domain.Subscription `json:"subscription"`
		}
		e.OK(201, e.Call(k, "POST", "/trainees", map[string]any{"firstName": "Yoav", "lastName": "Bar", "phone": "0541112222", "productId": f.Product.ID, "startedOn": "2026-01-01"})).Into(t, &withPlan)
		if withPlan.Subscription == nil || withPlan.Subscription.StartedOn != "2026-01-01" || *withPlan.Subscription.EndsOn != "2026-01-30" || withPlan.StartedOn == nil {
			t.Errorf("create with plan: %+v", withPlan)
		}

		// Update.
		var upd domain.Trainee
		e.OK(200, e.Call(k, "PATCH", "/trainees/"+f.Trainee.ID, map[string]any{"goal": "Run 10k", "tags": []string{"a", "b"}, "coachIds": []string{}, "email": nil})).Into(t, &upd)
		if upd.Goal == nil || *upd.Goal != "Run 10k" || !slices.Equal(upd.Tags, []string{"a", "b"}) || len(upd.CoachIDs) != 0 || upd.Email != nil || upd.FirstName != "Dana" {
			t.Errorf("update: %+v", upd)
		}
		a = e.Fails(422, "VALIDATION", e.Call(k, "PATCH", "/trainees/"+f.Trainee.ID, map[string]any{"firstName": nil, "status": "gone", "weightKg": 0}))
		if !slices.Equal(a.Fields(), []string{"firstName", "status", "weightKg"}) {
			t.Errorf("update 422: %s", a.Raw)
		}
		e.Fails(404, "NOT_FOUND", e.Call(k, "PATCH", "/trainees/trn_00000000000000000000000000", map[string]any{"goal": "x"}))

		// Delete (studio app).
		e.OK(200, e.Call(k, "DELETE", "/trainees/"+withPlan.ID, nil))
		e.Fails(404, "NOT_FOUND", e.Call(k, "GET", "/trainees/"+withPlan.ID, nil))
		e.Fails(404, "NOT_FOUND", e.Call(k, "DELETE", "/trainees/"+withPlan.ID, nil))
	})
}

func TestPlanLimitOnActiveTrainees(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		e := lanetest.New(t, st)
		s, k, _ := e.Studio("small", "free")
		limit := domain.Tiers["free"].MaxActiveTrainees
		ctx := context.Background()
		for i := range limit {
			tr := domain.Trainee{FirstName: "T", LastName: fmt.Sprint(i), Phone: fmt.Sprintf("+97250100%04d", i), Status: domain.TraineeActive}
			if err := st.Studio(s.ID).CreateTrainee(ctx, &tr); err != nil {
				t.Fatal(err)
			}
		}
		a := e.Fails(402, "PLAN_LIMIT", e.Call(k, "POST", "/trainees", map[string]any{"firstName": "One", "lastName": "More", "phone": "0529876543"}))
		if !strings.Contains(a.Message(), fmt.Sprint(limit)) {
			t.Errorf("plan limit sentence: %q", a.Message())
		}
		// Paused trainees do not count, but reactivating one does.
		var paused domain.Trainee
		e.OK(201, e.Call(k, "POST", "/trainees", map[string]any{"firstName": "One", "lastName": "More", "phone": "0529876543", "status": "paused"})).Into(t, &paused)
		e.Fails(402, "PLAN_LIMIT", e.Call(k, "PATCH", "/trainees/"+paused.ID, map[string]any{"status": "active"}))
		e.OK(200, e.Call(k, "PATCH", "/trainees/"+paused.ID, map[string]any{"goal": "still paused"}))

		// The API key limit: the studio has one key; the lane mints the rest.
		for range domain.Tiers["free"].MaxAPIKeys - 1 {
			e.OK(201, e.Call(k, "POST", "/keys", map[string]any{"name": "more"}))
		}
		a = e.Fails(402, "PLAN_LIMIT", e.Call(k, "POST", "/keys", map[string]any{"name": "one too many"}))
		if !strings.Contains(a.Message(), "3 live API keys") {
			t.Errorf("key limit sentence: %q", a.Message())
		}
	})
}

func TestSubscriptions(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		e := lanetest.New(t, st)
		f := e.Seed("sub")
		k, tp := f.Key, "/trainees/"+f.Trainee.ID

		// The seeded plan started today (no earlier plan) and runs 30 days.
		if f.Subscription.StartedOn != kit.Today() || *f.Subscription.EndsOn != kit.AddDays(kit.Today(), 29) || f.Subscription.Status != "live" || f.Subscription.Price.Decimal() != "300" || f.Subscription.Currency != "ILS" {
			t.Fatalf("first plan: %+v", f.Subscription)
		}
		// Omitted startedOn: the day after the last live plan ends.
		var next domain.Subscription
		e.OK(201, e.Call(k, "POST", tp+"/subscription", map[string]any{"productId": f.Product.ID, "price": 250, "durationDays": 10})).Into(t, &next)
		if next.StartedOn != kit.AddDays(kit.Today(), 30) || *next.EndsOn != kit.AddDays(kit.Today(), 39) || next.Price.Decimal() != "250" || next.Status != "scheduled" {
			t.Errorf("follow-on plan: %+v", next)
		}
		// A product priced per trainee needs the price: refused without
		// one, naming it; and a trainee cannot be created onto it.
		a := e.Fails(422, "VALIDATION", e.Call(k, "POST", tp+"/subscription", map[string]any{"productId": f.OpenProduct.ID, "startedOn": "2025-01-01"}))
		if !slices.Equal(a.Fields(), []string{"price"}) || !strings.Contains(a.Raw, "price") || !strings.Contains(a.Raw, "per trainee") {
			t.Errorf("an unpriced plan without a price: %s", a.Raw)
		}
		a = e.Fails(422, "VALIDATION", e.Call(k, "POST", "/trainees", map[string]any{"firstName": "Una", "lastName": "Priced", "phone": "0541119999", "productId": f.OpenProduct.ID}))
		if !slices.Equal(a.Fields(), []string{"productId"}) || !strings.Contains(a.Raw, "assign_plan") {
			t.Errorf("create_trainee onto an unpriced plan: %s", a.Raw)
		}
		// Unpriced, open-ended product with its price: no end.
		var open domain.Subscription
		e.OK(201, e.Call(k, "POST", tp+"/subscription", map[string]any{"productId": f.OpenProduct.ID, "startedOn": "2025-01-01", "price": 90})).Into(t, &open)
		if open.Price == nil || open.Price.Decimal() != "90" || open.EndsOn != nil || open.Status != "live" {
			t.Errorf("open plan: %+v", open)
		}
		var subs kit.List[domain.Subscription]
		e.OK(200, e.Call(k, "GET", tp+"/subscriptions", nil)).Into(t, &subs)
		if subs.Total != 3 {
			t.Errorf("subscriptions: %+v", subs)
		}
		e.Fails(404, "NOT_FOUND", e.Call(k, "POST", tp+"/subscription", map[string]any{"productId": "prd_00000000000000000000000000"}))
		a = e.Fails(422, "VALIDATION", e.Call(k, "POST", tp+"/subscription", map[string]any{"startedOn": "tomorrow", "price": -1, "durationDays": 0}))
		if !slices.Equal(a.Fields(), []string{"productId", "startedOn", "price", "durationDays"}) {
			t.Errorf("plan 422: %s", a.Raw)
		}

		// Freeze (tells the trainee) and cancel.
		before := len(e.Notifications(f.Studio.ID))
		var frozen domain.Subscription
		e.OK(200, e.Call(k, "POST", "/subscriptions/"+f.Subscription.ID+"/freeze", nil)).Into(t, &frozen)
		if frozen.Status != "frozen" {
			t.Errorf("freeze: %+v", frozen)
		}
		ns := e.Notifications(f.Studio.ID)
		if len(ns) != before+1 || ns[0].Kind != domain.NotifyFreeze {
			t.Errorf("freeze notification: %+v", ns)
		}
		e.Fails(409, "CONFLICT", e.Call(k, "POST", "/subscriptions/"+f.Subscription.ID+"/freeze", nil))
		e.OK(200, e.Call(k, "POST", "/subscriptions/"+f.Subscription.ID+"/cancel", nil))
		e.Fails(409, "CONFLICT", e.Call(k, "POST", "/subscriptions/"+f.Subscription.ID+"/cancel", nil))
		e.Fails(404, "NOT_FOUND", e.Call(k, "POST", "/subscriptions/sub_00000000000000000000000000/cancel", nil))
	})
}

func TestProgramsFormsWeights(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		e := lanetest.New(t, st)
		f := e.Seed("rec")
		k, tp := f.Key, "/trainees/"+f.Trainee.ID

		// replaceExisting false keeps the current program.
		e.OK(201, e.Call(k, "POST", tp+"/programs/assign", map[string]any{"templateId": f.Template.ID, "startsOn": "2026-02-01"}))
		var progs kit.List[domain.Program]
		e.OK(200, e.Call(k, "GET", tp+"/programs", nil)).Into(t, &progs)
		active := 0
		for _, p := range progs.Items {
			if p.Status == domain.ProgramActive {
				active++
			}
		}
		if progs.Total != 2 || active != 2 {
			t.Errorf("programs after keep: %+v", progs)
		}
		e.OK(201, e.Call(k, "POST", tp+"/programs/assign", map[string]any{"templateId": f.Template.ID, "replaceExisting": true}))
		e.OK(200, e.Call(k, "GET", tp+"/programs", nil)).Into(t, &progs)
		active = 0
		for _, p := range progs.Items {
			if p.Status == domain.ProgramActive {
				active++
			}
		}
		if progs.Total != 3 || active != 1 {
			t.Errorf("programs after replace: %+v", progs)
		}
		e.Fails(404, "NOT_FOUND", e.Call(k, "POST", tp+"/programs/assign", map[string]any{"templateId": f.Form.ID}))

		// Forms.
		a := e.Fails(422, "VALIDATION", e.Call(k, "POST", tp+"/forms/assign", map[string]any{"formTemplateId": f.Form.ID, "prompt": strings.Repeat("x", 501), "dueAt": "soon"}))
		if !slices.Equal(a.Fields(), []string{"dueAt", "prompt"}) || !strings.Contains(a.Message(), "at most 500 characters") {
			t.Errorf("form 422: %s", a.Raw)
		}
		a = e.Fails(422, "VALIDATION", e.Call(k, "POST", tp+"/forms/assign", map[string]any{"formTemplateId": f.Form.ID, "fieldValues": map[string]any{"shoe": 42}}))
		if !strings.Contains(a.Message(), "fieldValues.shoe is not a field of form") {
			t.Errorf("fieldValues: %s", a.Raw)
		}
		var asg domain.FormAssignment
		e.OK(201, e.Call(k, "POST", tp+"/forms/assign", map[string]any{"formTemplateId": f.Form.ID, "prompt": strings.Repeat("x", 500), "fieldValues": map[string]any{"notes": "hi"}})).Into(t, &asg)
		if asg.Notify != nil || asg.FormName != f.Form.Name {
			t.Errorf("assignment: %+v", asg)
		}
		var responses kit.List[domain.FormResponse]
		e.OK(200, e.Call(k, "GET", tp+"/form-responses", nil)).Into(t, &responses)
		if responses.Total != 1 || responses.Items[0].ID != f.Response.ID {
			t.Errorf("responses: %+v", responses)
		}
		e.Fails(422, "VALIDATION", e.Call(k, "POST", tp+"/form-responses", map[string]any{"answers": map[string]any{"sleep": 3}}))

		// Weights.
		for _, bad := range []float64{0, -3, 350.5} {
			a := e.Fails(422, "VALIDATION", e.Call(k, "POST", tp+"/weights", map[string]any{"weightKg": bad}))
			if a.Fields()[0] != "weightKg" || !strings.Contains(a.Message(), "from 20 to 350") {
				t.Errorf("weight %v: %s", bad, a.Raw)
			}
		}
		e.OK(201, e.Call(k, "POST", tp+"/weights", map[string]any{"weightKg": 350, "recordedAt": "2025-06-01T08:00:00Z"}))
		var ws kit.List[domain.Weight]
		e.OK(200, e.Call(k, "GET", tp+"/weights?limit=1", nil)).Into(t, &ws)
		if ws.Total != 2 || len(ws.Items) != 1 || ws.Items[0].WeightKg != 71.5 || ws.NextOffset == nil {
			t.Errorf("weights newest first: %+v", ws)
		}
	})
}

func TestUpdateToTakenPhoneNamesTheTrainee(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		e := lanetest.New(t, st)
		f := e.Seed("phones")
		var other domain.Trainee
		e.OK(201, e.Call(f.Key, "POST", "/trainees", map[string]any{"firstName": "O", "lastName": "Ther", "phone": "0545550000"})).Into(t, &other)
		a := e.Fails(409, "CONFLICT", e.Call(f.Key, "PATCH", "/trainees/"+other.ID, map[string]any{"phone": "+972 50 123 4567"}))
		if !strings.Contains(a.Message(), f.Trainee.ID) {
			t.Errorf("conflict: %q", a.Message())
		}
	})
}
