package lane_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/ratelimit"
	"github.com/otherwise/perform/internal/store"
)

type list[T any] struct {
	Items      []T  `json:"items"`
	Total      int  `json:"total"`
	NextOffset *int `json:"nextOffset"`
}

func TestAuth(t *testing.T) {
	onSQLite(t, func(t *testing.T, st store.Store) {
		e := newEnv(t, st)
		s, key, keyID := e.studio("auth", "free")

		a := e.fails(401, "UNAUTHORIZED", e.call("", "GET", "/validate", nil))
		if !strings.Contains(a.message(), "Authorization: Bearer") {
			t.Errorf("missing key message: %q", a.message())
		}
		a = e.fails(401, "UNAUTHORIZED", e.call("pf_live_"+strings.Repeat("x", 43), "GET", "/validate", nil))
		// The seed's words first, then what to do about it.
		if !strings.HasPrefix(a.message(), "invalid partner api key: ") || !strings.Contains(a.message(), "perform key create") {
			t.Errorf("unknown key message: %q", a.message())
		}
		e.fails(401, "UNAUTHORIZED", e.call("not-a-key", "GET", "/validate", nil))

		e.ok(200, e.call("", "GET", "/validate", nil, "Authorization", "bearer "+key)) // the scheme is case-insensitive
		e.fails(401, "UNAUTHORIZED", e.call("", "GET", "/validate", nil, "Authorization", "Basic "+key))

		var info struct{ Name, Slug, ID string }
		e.ok(200, e.call(key, "GET", "/validate", nil)).into(t, &info)
		if info.Name != s.Name || info.Slug != "auth" || info.ID != s.ID {
			t.Errorf("validate answered %+v", info)
		}

		// lastUsedAt is written on use.
		k, err := st.FindAPIKey(context.Background(), s.ID, keyID)
		if err != nil || k.LastUsedAt == nil {
			t.Errorf("lastUsedAt not recorded: %+v %v", k, err)
		}

		// Revoked from "another process" (the store directly): the very next request fails.
		if err := st.RevokeAPIKey(context.Background(), keyID, time.Now()); err != nil {
			t.Fatal(err)
		}
		a = e.fails(401, "UNAUTHORIZED", e.call(key, "GET", "/validate", nil))
		if !strings.Contains(a.message(), "revoked") {
			t.Errorf("revoked message: %q", a.message())
		}
	})
}

// The lane keeps a key's principal in memory only while the database's
// credentials epoch is unchanged: a change to the studio made by "another
// process" (the store directly) shows on the very next request.
func TestKeptPrincipalFollowsChangesFromAnotherProcess(t *testing.T) {
	eachEngine(t, func(t *testing.T, st store.Store) {
		e := newEnv(t, st)
		s, key, _ := e.studio("kept", "pro")
		zone := func() string {
			var info struct{ TimeZone string }
			e.ok(200, e.call(key, "GET", "/validate", nil)).into(t, &info)
			return info.TimeZone
		}
		if got := zone(); got != domain.DefaultTimeZone {
			t.Fatalf("a new studio's zone is %q, want %q", got, domain.DefaultTimeZone)
		}
		zone() // answered from the kept principal
		if err := st.UpdateStudioSettings(context.Background(), s.ID, json.RawMessage(`{"timeZone":"Europe/London"}`)); err != nil {
			t.Fatal(err)
		}
		if got := zone(); got != "Europe/London" {
			t.Fatalf("after the studio's zone changed, /validate answers %q; want Europe/London on the very next request", got)
		}
	})
}

func TestRevokeThroughKeysEndpoint(t *testing.T) {
	onSQLite(t, func(t *testing.T, st store.Store) {
		e := newEnv(t, st)
		s, key, _ := e.studio("keys", "pro")
		other, otherID := e.newKey(s.ID, "agent")
		var keys list[domain.APIKey]
		e.ok(200, e.call(key, "GET", "/keys", nil)).into(t, &keys)
		if keys.Total != 2 || len(keys.Items) != 2 {
			t.Fatalf("keys: %+v", keys)
		}
		if strings.Contains(e.call(key, "GET", "/keys", nil).Raw, "hash") {
			t.Error("the key list must not carry hashes")
		}
		e.ok(200, e.call(other, "GET", "/validate", nil))
		e.ok(200, e.call(key, "DELETE", "/keys/"+otherID, nil))
		e.fails(401, "UNAUTHORIZED", e.call(other, "GET", "/validate", nil))
		e.fails(404, "NOT_FOUND", e.call(key, "DELETE", "/keys/key_00000000000000000000000000", nil))
	})
}

func TestRoutingErrors(t *testing.T) {
	onSQLite(t, func(t *testing.T, st store.Store) {
		e := newEnv(t, st)
		_, key, _ := e.studio("routing", "free")
		a := e.fails(405, "METHOD_NOT_ALLOWED", e.call(key, "PUT", "/trainees/trn_x", nil))
		if allow := a.Header.Get("Allow"); !strings.Contains(allow, "GET") || !strings.Contains(allow, "PATCH") || !strings.Contains(allow, "DELETE") {
			t.Errorf("Allow = %q", allow)
		}
		e.fails(404, "NOT_FOUND", e.call(key, "GET", "/nothing-here", nil))
		e.fails(400, "BAD_REQUEST", e.call(key, "POST", "/tasks", `{"title":`))
		e.fails(400, "BAD_REQUEST", e.call(key, "POST", "/tasks", `["title"]`))
	})
}

func TestOpenAPIServedWithoutAuth(t *testing.T) {
	st := openSQLite(t)
	e := newEnv(t, st)
	resp, err := http.Get(e.srv.URL + lane.Prefix + "/openapi.json")
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

func TestRateLimit(t *testing.T) {
	st := openSQLite(t)
	e := newEnv(t, st, envOptions{limiter: ratelimit.NewMemory(3, time.Minute)})
	_, key, _ := e.studio("limited", "free")
	for range 3 {
		e.ok(200, e.call(key, "GET", "/validate", nil))
	}
	a := e.fails(429, "RATE_LIMITED", e.call(key, "GET", "/validate", nil))
	if ra := a.Header.Get("Retry-After"); ra == "" || ra == "0" {
		t.Errorf("Retry-After = %q", ra)
	}
	// Another key has its own window.
	_, key2, _ := e.studio("limited2", "free")
	e.ok(200, e.call(key2, "GET", "/validate", nil))
}

func TestTrainees(t *testing.T) {
	eachEngine(t, func(t *testing.T, st store.Store) {
		e := newEnv(t, st)
		f := e.seed("trn")
		k := f.key

		if f.trainee.Phone != "+972501234567" || !slices.Equal(f.trainee.CoachIDs, []string{f.coach.ID}) || !slices.Equal(f.trainee.Tags, []string{f.tag.Name}) {
			t.Fatalf("created trainee: %+v", f.trainee)
		}

		// Reads.
		var got domain.Trainee
		e.ok(200, e.call(k, "GET", "/trainees/"+f.trainee.ID, nil)).into(t, &got)
		if got.ID != f.trainee.ID || got.LastName != "Levi-trn" {
			t.Errorf("get: %+v", got)
		}
		for _, typed := range []string{"050-123-4567", "+972 50 123 4567", "972501234567"} {
			var byPhone domain.Trainee
			e.ok(200, e.call(k, "GET", "/trainees/by-phone/"+url.PathEscape(typed), nil)).into(t, &byPhone)
			if byPhone.ID != f.trainee.ID {
				t.Errorf("by-phone %q found %s", typed, byPhone.ID)
			}
		}
		a := e.fails(404, "NOT_FOUND", e.call(k, "GET", "/trainees/by-phone/0529999999", nil))
		if !strings.Contains(a.message(), "+972529999999") {
			t.Errorf("by-phone not found: %q", a.message())
		}
		e.fails(422, "VALIDATION", e.call(k, "GET", "/trainees/by-phone/abc", nil))

		a = e.fails(404, "NOT_FOUND", e.call(k, "GET", "/trainees/trn_00000000000000000000000000", nil))
		if a.message() != "No trainee with id trn_00000000000000000000000000 exists in this studio. Use search_trainees to get a valid id." {
			t.Errorf("not found sentence: %q", a.message())
		}
		a = e.fails(404, "NOT_FOUND", e.call(k, "GET", "/trainees/"+f.product.ID, nil))
		if a.message() != f.product.ID+" is a plan id; this needs a trainee id (from search_trainees)." {
			t.Errorf("wrong-kind sentence: %q", a.message())
		}

		// Search.
		for i := range 3 {
			e.ok(201, e.call(k, "POST", "/trainees", map[string]any{"firstName": "Noa", "lastName": fmt.Sprintf("Cohen%d", i), "phone": fmt.Sprintf("054-000-000%d", i), "status": "paused"}))
		}
		var res list[domain.Trainee]
		e.ok(200, e.call(k, "GET", "/trainees/search?q=noa&limit=2", nil)).into(t, &res)
		if res.Total != 3 || len(res.Items) != 2 || res.NextOffset == nil || *res.NextOffset != 2 {
			t.Errorf("search page 1: total %d items %d next %v", res.Total, len(res.Items), res.NextOffset)
		}
		e.ok(200, e.call(k, "GET", "/trainees/search?q=noa&limit=2&offset=2", nil)).into(t, &res)
		if len(res.Items) != 1 || res.NextOffset != nil {
			t.Errorf("search page 2: items %d next %v", len(res.Items), res.NextOffset)
		}
		e.ok(200, e.call(k, "GET", "/trainees/search?status=active&coachId="+f.coach.ID+"&tag="+url.QueryEscape(f.tag.Name), nil)).into(t, &res)
		if res.Total != 1 || res.Items[0].ID != f.trainee.ID {
			t.Errorf("filtered search: %+v", res)
		}
		for _, limit := range []string{"0", "201", "-5", "ten"} {
			a := e.fails(422, "VALIDATION", e.call(k, "GET", "/trainees/search?limit="+limit, nil))
			if !slices.Equal(a.fields(), []string{"limit"}) || !strings.Contains(a.message(), "limit must be a whole number from 1 to 200") {
				t.Errorf("limit=%s: %s", limit, a.Raw)
			}
		}
		e.ok(200, e.call(k, "GET", "/trainees/search?limit=200", nil))

		// Create: every bad field named at once.
		a = e.fails(422, "VALIDATION", e.call(k, "POST", "/trainees", map[string]any{"firstName": "", "weightKg": 600, "heightCm": -1, "email": "x", "stepsGoal": 1.5, "surname": "x"}))
		for _, f := range []string{"firstName", "lastName", "phone", "email", "heightCm", "weightKg", "stepsGoal", "surname"} {
			if !slices.Contains(a.fields(), f) {
				t.Errorf("422 does not name %s: %s", f, a.Raw)
			}
		}
		a = e.fails(422, "VALIDATION", e.call(k, "POST", "/trainees", map[string]any{"firstName": "A", "lastName": "B", "phone": "12"}))
		if !slices.Equal(a.fields(), []string{"phone"}) {
			t.Errorf("bad phone: %s", a.Raw)
		}
		a = e.fails(409, "CONFLICT", e.call(k, "POST", "/trainees", map[string]any{"firstName": "A", "lastName": "B", "phone": "+972501234567"}))
		if !strings.Contains(a.message(), f.trainee.ID) {
			t.Errorf("conflict names the existing trainee: %q", a.message())
		}
		e.fails(404, "NOT_FOUND", e.call(k, "POST", "/trainees", map[string]any{"firstName": "A", "lastName": "B", "phone": "0547777777", "coachIds": []string{"coa_00000000000000000000000000"}}))
		a = e.fails(404, "NOT_FOUND", e.call(k, "POST", "/trainees", map[string]any{"firstName": "A", "lastName": "B", "phone": "0547777777", "productId": f.template.ID}))
		if !strings.Contains(a.message(), "program template id; this needs a plan id (from list_plans)") {
			t.Errorf("wrong-kind product: %q", a.message())
		}
		// Nothing was written by the refused creates.
		e.ok(200, e.call(k, "GET", "/trainees/search?q=0547777777", nil)).into(t, &res)
		if res.Total != 0 {
			t.Errorf("a refused create left a trainee behind")
		}

		// Create with a plan: same transaction.
		var withPlan struct {
			domain.Trainee
			Subscription *domain.Subscription `json:"subscription"`
		}
		e.ok(201, e.call(k, "POST", "/trainees", map[string]any{"firstName": "Yoav", "lastName": "Bar", "phone": "0541112222", "productId": f.product.ID, "startedOn": "2026-01-01"})).into(t, &withPlan)
		if withPlan.Subscription == nil || withPlan.Subscription.StartedOn != "2026-01-01" || *withPlan.Subscription.EndsOn != "2026-01-30" || withPlan.StartedOn == nil {
			t.Errorf("create with plan: %+v", withPlan)
		}

		// Update.
		var upd domain.Trainee
		e.ok(200, e.call(k, "PATCH", "/trainees/"+f.trainee.ID, map[string]any{"goal": "Run 10k", "tags": []string{"a", "b"}, "coachIds": []string{}, "email": nil})).into(t, &upd)
		if upd.Goal == nil || *upd.Goal != "Run 10k" || !slices.Equal(upd.Tags, []string{"a", "b"}) || len(upd.CoachIDs) != 0 || upd.Email != nil || upd.FirstName != "Dana" {
			t.Errorf("update: %+v", upd)
		}
		a = e.fails(422, "VALIDATION", e.call(k, "PATCH", "/trainees/"+f.trainee.ID, map[string]any{"firstName": nil, "status": "gone", "weightKg": 0}))
		if !slices.Equal(a.fields(), []string{"firstName", "status", "weightKg"}) {
			t.Errorf("update 422: %s", a.Raw)
		}
		e.fails(404, "NOT_FOUND", e.call(k, "PATCH", "/trainees/trn_00000000000000000000000000", map[string]any{"goal": "x"}))

		// Delete (studio app).
		e.ok(200, e.call(k, "DELETE", "/trainees/"+withPlan.ID, nil))
		e.fails(404, "NOT_FOUND", e.call(k, "GET", "/trainees/"+withPlan.ID, nil))
		e.fails(404, "NOT_FOUND", e.call(k, "DELETE", "/trainees/"+withPlan.ID, nil))
	})
}

func TestPlanLimitOnActiveTrainees(t *testing.T) {
	onSQLite(t, func(t *testing.T, st store.Store) {
		e := newEnv(t, st)
		s, k, _ := e.studio("small", "free")
		limit := domain.Tiers["free"].MaxActiveTrainees
		ctx := context.Background()
		for i := range limit {
			tr := domain.Trainee{FirstName: "T", LastName: fmt.Sprint(i), Phone: fmt.Sprintf("+97250100%04d", i), Status: domain.TraineeActive}
			if err := st.Studio(s.ID).CreateTrainee(ctx, &tr); err != nil {
				t.Fatal(err)
			}
		}
		a := e.fails(402, "PLAN_LIMIT", e.call(k, "POST", "/trainees", map[string]any{"firstName": "One", "lastName": "More", "phone": "0529876543"}))
		if !strings.Contains(a.message(), fmt.Sprint(limit)) {
			t.Errorf("plan limit sentence: %q", a.message())
		}
		// Paused trainees do not count, but reactivating one does.
		var paused domain.Trainee
		e.ok(201, e.call(k, "POST", "/trainees", map[string]any{"firstName": "One", "lastName": "More", "phone": "0529876543", "status": "paused"})).into(t, &paused)
		e.fails(402, "PLAN_LIMIT", e.call(k, "PATCH", "/trainees/"+paused.ID, map[string]any{"status": "active"}))
		e.ok(200, e.call(k, "PATCH", "/trainees/"+paused.ID, map[string]any{"goal": "still paused"}))

		// The API key limit: the studio has one key; the lane mints the rest.
		for range domain.Tiers["free"].MaxAPIKeys - 1 {
			e.ok(201, e.call(k, "POST", "/keys", map[string]any{"name": "more"}))
		}
		a = e.fails(402, "PLAN_LIMIT", e.call(k, "POST", "/keys", map[string]any{"name": "one too many"}))
		if !strings.Contains(a.message(), "3 live API keys") {
			t.Errorf("key limit sentence: %q", a.message())
		}
	})
}

func TestSubscriptions(t *testing.T) {
	onSQLite(t, func(t *testing.T, st store.Store) {
		e := newEnv(t, st)
		f := e.seed("sub")
		k, tp := f.key, "/trainees/"+f.trainee.ID

		// The seeded plan started today (no earlier plan) and runs 30 days.
		if f.subscription.StartedOn != today() || *f.subscription.EndsOn != AddDays(today(), 29) || f.subscription.Status != "live" || *f.subscription.Price != 300 {
			t.Fatalf("first plan: %+v", f.subscription)
		}
		// Omitted startedOn: the day after the last live plan ends.
		var next domain.Subscription
		e.ok(201, e.call(k, "POST", tp+"/subscription", map[string]any{"productId": f.product.ID, "price": 250, "durationDays": 10})).into(t, &next)
		if next.StartedOn != AddDays(today(), 30) || *next.EndsOn != AddDays(today(), 39) || *next.Price != 250 || next.Status != "scheduled" {
			t.Errorf("follow-on plan: %+v", next)
		}
		// A product priced per trainee needs the price: refused without
		// one, naming it; and a trainee cannot be created onto it.
		a := e.fails(422, "VALIDATION", e.call(k, "POST", tp+"/subscription", map[string]any{"productId": f.openProduct.ID, "startedOn": "2025-01-01"}))
		if !slices.Equal(a.fields(), []string{"price"}) || !strings.Contains(a.Raw, "price") || !strings.Contains(a.Raw, "per trainee") {
			t.Errorf("an unpriced plan without a price: %s", a.Raw)
		}
		a = e.fails(422, "VALIDATION", e.call(k, "POST", "/trainees", map[string]any{"firstName": "Una", "lastName": "Priced", "phone": "0541119999", "productId": f.openProduct.ID}))
		if !slices.Equal(a.fields(), []string{"productId"}) || !strings.Contains(a.Raw, "assign_plan") {
			t.Errorf("create_trainee onto an unpriced plan: %s", a.Raw)
		}
		// Unpriced, open-ended product with its price: no end.
		var open domain.Subscription
		e.ok(201, e.call(k, "POST", tp+"/subscription", map[string]any{"productId": f.openProduct.ID, "startedOn": "2025-01-01", "price": 90})).into(t, &open)
		if open.Price == nil || *open.Price != 90 || open.EndsOn != nil || open.Status != "live" {
			t.Errorf("open plan: %+v", open)
		}
		var subs list[domain.Subscription]
		e.ok(200, e.call(k, "GET", tp+"/subscriptions", nil)).into(t, &subs)
		if subs.Total != 3 {
			t.Errorf("subscriptions: %+v", subs)
		}
		e.fails(404, "NOT_FOUND", e.call(k, "POST", tp+"/subscription", map[string]any{"productId": "prd_00000000000000000000000000"}))
		a = e.fails(422, "VALIDATION", e.call(k, "POST", tp+"/subscription", map[string]any{"startedOn": "tomorrow", "price": -1, "durationDays": 0}))
		if !slices.Equal(a.fields(), []string{"productId", "startedOn", "price", "durationDays"}) {
			t.Errorf("plan 422: %s", a.Raw)
		}

		// Freeze (tells the trainee) and cancel.
		before := len(e.notifications(f.studio.ID))
		var frozen domain.Subscription
		e.ok(200, e.call(k, "POST", "/subscriptions/"+f.subscription.ID+"/freeze", nil)).into(t, &frozen)
		if frozen.Status != "frozen" {
			t.Errorf("freeze: %+v", frozen)
		}
		ns := e.notifications(f.studio.ID)
		if len(ns) != before+1 || ns[0].Kind != domain.NotifyFreeze {
			t.Errorf("freeze notification: %+v", ns)
		}
		e.fails(409, "CONFLICT", e.call(k, "POST", "/subscriptions/"+f.subscription.ID+"/freeze", nil))
		e.ok(200, e.call(k, "POST", "/subscriptions/"+f.subscription.ID+"/cancel", nil))
		e.fails(409, "CONFLICT", e.call(k, "POST", "/subscriptions/"+f.subscription.ID+"/cancel", nil))
		e.fails(404, "NOT_FOUND", e.call(k, "POST", "/subscriptions/sub_00000000000000000000000000/cancel", nil))
	})
}

func TestProgramsFormsWeights(t *testing.T) {
	onSQLite(t, func(t *testing.T, st store.Store) {
		e := newEnv(t, st)
		f := e.seed("rec")
		k, tp := f.key, "/trainees/"+f.trainee.ID

		// replaceExisting false keeps the current program.
		e.ok(201, e.call(k, "POST", tp+"/programs/assign", map[string]any{"templateId": f.template.ID, "startsOn": "2026-02-01"}))
		var progs list[domain.Program]
		e.ok(200, e.call(k, "GET", tp+"/programs", nil)).into(t, &progs)
		active := 0
		for _, p := range progs.Items {
			if p.Status == domain.ProgramActive {
				active++
			}
		}
		if progs.Total != 2 || active != 2 {
			t.Errorf("programs after keep: %+v", progs)
		}
		e.ok(201, e.call(k, "POST", tp+"/programs/assign", map[string]any{"templateId": f.template.ID, "replaceExisting": true}))
		e.ok(200, e.call(k, "GET", tp+"/programs", nil)).into(t, &progs)
		active = 0
		for _, p := range progs.Items {
			if p.Status == domain.ProgramActive {
				active++
			}
		}
		if progs.Total != 3 || active != 1 {
			t.Errorf("programs after replace: %+v", progs)
		}
		e.fails(404, "NOT_FOUND", e.call(k, "POST", tp+"/programs/assign", map[string]any{"templateId": f.form.ID}))

		// Forms.
		a := e.fails(422, "VALIDATION", e.call(k, "POST", tp+"/forms/assign", map[string]any{"formTemplateId": f.form.ID, "prompt": strings.Repeat("x", 501), "dueAt": "soon"}))
		if !slices.Equal(a.fields(), []string{"dueAt", "prompt"}) || !strings.Contains(a.message(), "at most 500 characters") {
			t.Errorf("form 422: %s", a.Raw)
		}
		a = e.fails(422, "VALIDATION", e.call(k, "POST", tp+"/forms/assign", map[string]any{"formTemplateId": f.form.ID, "fieldValues": map[string]any{"shoe": 42}}))
		if !strings.Contains(a.message(), "fieldValues.shoe is not a field of form") {
			t.Errorf("fieldValues: %s", a.Raw)
		}
		var asg domain.FormAssignment
		e.ok(201, e.call(k, "POST", tp+"/forms/assign", map[string]any{"formTemplateId": f.form.ID, "prompt": strings.Repeat("x", 500), "fieldValues": map[string]any{"notes": "hi"}})).into(t, &asg)
		if asg.Notify != nil || asg.FormName != f.form.Name {
			t.Errorf("assignment: %+v", asg)
		}
		var responses list[domain.FormResponse]
		e.ok(200, e.call(k, "GET", tp+"/form-responses", nil)).into(t, &responses)
		if responses.Total != 1 || responses.Items[0].ID != f.response.ID {
			t.Errorf("responses: %+v", responses)
		}
		e.fails(422, "VALIDATION", e.call(k, "POST", tp+"/form-responses", map[string]any{"answers": map[string]any{"sleep": 3}}))

		// Weights.
		for _, bad := range []float64{0, -3, 350.5} {
			a := e.fails(422, "VALIDATION", e.call(k, "POST", tp+"/weights", map[string]any{"weightKg": bad}))
			if a.fields()[0] != "weightKg" || !strings.Contains(a.message(), "from 20 to 350") {
				t.Errorf("weight %v: %s", bad, a.Raw)
			}
		}
		e.ok(201, e.call(k, "POST", tp+"/weights", map[string]any{"weightKg": 350, "recordedAt": "2025-06-01T08:00:00Z"}))
		var ws list[domain.Weight]
		e.ok(200, e.call(k, "GET", tp+"/weights?limit=1", nil)).into(t, &ws)
		if ws.Total != 2 || len(ws.Items) != 1 || ws.Items[0].WeightKg != 71.5 || ws.NextOffset == nil {
			t.Errorf("weights newest first: %+v", ws)
		}
	})
}

func TestCatalogAndTasks(t *testing.T) {
	onSQLite(t, func(t *testing.T, st store.Store) {
		e := newEnv(t, st)
		f := e.seed("cat")
		k := f.key

		var products list[domain.Product]
		e.ok(200, e.call(k, "GET", "/products?search=monthly", nil)).into(t, &products)
		if products.Total != 1 || products.Items[0].ID != f.product.ID {
			t.Errorf("products: %+v", products)
		}
		var p domain.Product
		e.ok(200, e.call(k, "PATCH", "/products/"+f.product.ID, map[string]any{"price": nil, "durationDays": 60})).into(t, &p)
		if p.Price != nil || *p.DurationDays != 60 || p.Name != f.product.Name {
			t.Errorf("product update: %+v", p)
		}
		e.fails(422, "VALIDATION", e.call(k, "POST", "/products", map[string]any{"name": "", "price": -1, "currency": "shekel"}))

		var templates list[domain.ProgramTemplate]
		e.ok(200, e.call(k, "GET", "/program-templates", nil)).into(t, &templates)
		if templates.Total != 1 {
			t.Errorf("templates: %+v", templates)
		}
		var forms list[domain.FormTemplate]
		e.ok(200, e.call(k, "GET", "/forms?search=check", nil)).into(t, &forms)
		if forms.Total != 1 || len(forms.Items[0].Fields) != 2 {
			t.Errorf("forms: %+v", forms)
		}
		a := e.fails(422, "VALIDATION", e.call(k, "POST", "/forms", map[string]any{"name": "x", "fields": []map[string]any{{"key": "a", "label": "A", "type": "choice"}, {"key": "a", "label": "B", "type": "text"}}}))
		if !slices.Equal(a.fields(), []string{"fields[0].options", "fields[1].key"}) {
			t.Errorf("form template 422: %s", a.Raw)
		}

		var coaches list[domain.Coach]
		e.ok(200, e.call(k, "GET", "/rpc/coaches", nil)).into(t, &coaches)
		if coaches.Total != 1 || *coaches.Items[0].Phone != "+972520000001" {
			t.Errorf("coaches: %+v", coaches)
		}
		var co domain.Coach
		e.ok(200, e.call(k, "PATCH", "/coaches/"+f.coach.ID, map[string]any{"active": false, "phone": nil})).into(t, &co)
		if co.Active || co.Phone != nil {
			t.Errorf("coach update: %+v", co)
		}
		e.fails(422, "VALIDATION", e.call(k, "POST", "/coaches", map[string]any{"name": "X", "phone": "nope"}))

		var tags list[domain.Tag]
		e.ok(200, e.call(k, "GET", "/rpc/tags", nil)).into(t, &tags)
		if tags.Total != 1 {
			t.Errorf("tags: %+v", tags)
		}
		e.fails(409, "CONFLICT", e.call(k, "POST", "/tags", map[string]any{"name": f.tag.Name}))
		e.ok(200, e.call(k, "DELETE", "/tags/"+f.tag.ID, nil))
		e.ok(200, e.call(k, "GET", "/rpc/tags", nil)).into(t, &tags)
		if tags.Total != 0 {
			t.Errorf("tag not deleted: %+v", tags)
		}

		// Tasks.
		if f.task.Priority != 0 || f.task.Status != "open" || f.task.Source != "api" {
			t.Errorf("task defaults: %+v", f.task)
		}
		a = e.fails(422, "VALIDATION", e.call(k, "POST", "/tasks", map[string]any{"detail": strings.Repeat("d", 2001), "priority": 6}))
		if !slices.Equal(a.fields(), []string{"title", "detail", "priority"}) {
			t.Errorf("task 422: %s", a.Raw)
		}
		e.fails(404, "NOT_FOUND", e.call(k, "POST", "/tasks", map[string]any{"title": "x", "clientId": "trn_00000000000000000000000000"}))
		a = e.fails(422, "VALIDATION", e.call(k, "PATCH", "/tasks/"+f.task.ID, map[string]any{"status": "snoozed"}))
		if !slices.Equal(a.fields(), []string{"snoozeUntil"}) {
			t.Errorf("snooze without date: %s", a.Raw)
		}
		var task domain.Task
		e.ok(200, e.call(k, "PATCH", "/tasks/"+f.task.ID, map[string]any{"snoozeUntil": "2030-01-01T09:00:00Z", "priority": 5})).into(t, &task)
		if task.Status != "snoozed" || task.SnoozeUntil == nil || task.Priority != 5 {
			t.Errorf("snoozed: %+v", task)
		}
		var tasks list[domain.Task]
		e.ok(200, e.call(k, "GET", "/tasks?status=snoozed&clientId="+f.trainee.ID, nil)).into(t, &tasks)
		if tasks.Total != 1 {
			t.Errorf("tasks filter: %+v", tasks)
		}
		e.ok(200, e.call(k, "PATCH", "/tasks/"+f.task.ID, map[string]any{"status": "done"})).into(t, &task)
		if task.Status != "done" || task.SnoozeUntil != nil {
			t.Errorf("done: %+v", task)
		}
		e.fails(404, "NOT_FOUND", e.call(k, "PATCH", "/tasks/tsk_00000000000000000000000000", map[string]any{"status": "done"}))
	})
}

func openSQLite(t *testing.T) store.Store {
	for name, open := range engines(t) {
		if name == "sqlite" {
			return open(t)
		}
	}
	t.Fatal("no sqlite engine")
	return nil
}

// A failure inside Perform answers 500 INTERNAL with a sentence and the
// request id, and nothing about the cause.
func TestInternalErrorsHideTheirCause(t *testing.T) {
	st := openSQLite(t)
	e := newEnv(t, st)
	_, key, _ := e.studio("broken", "free")
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	a := e.fails(500, "INTERNAL", e.call(key, "GET", "/validate", nil))
	for _, leak := range []string{"sql", "closed", "database"} {
		if strings.Contains(strings.ToLower(a.message()), leak) {
			t.Errorf("500 message leaks %q: %q", leak, a.message())
		}
	}
	if !strings.Contains(a.message(), "requestId") {
		t.Errorf("500 message should point at the request id: %q", a.message())
	}
}

func TestUpdateToTakenPhoneNamesTheTrainee(t *testing.T) {
	eachEngine(t, func(t *testing.T, st store.Store) {
		e := newEnv(t, st)
		f := e.seed("phones")
		var other domain.Trainee
		e.ok(201, e.call(f.key, "POST", "/trainees", map[string]any{"firstName": "O", "lastName": "Ther", "phone": "0545550000"})).into(t, &other)
		a := e.fails(409, "CONFLICT", e.call(f.key, "PATCH", "/trainees/"+other.ID, map[string]any{"phone": "+972 50 123 4567"}))
		if !strings.Contains(a.message(), f.trainee.ID) {
			t.Errorf("conflict: %q", a.message())
		}
	})
}
