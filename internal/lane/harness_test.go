package lane_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/areas"
	"github.com/otherwise/perform/internal/audit"
	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/laneclient"
	"github.com/otherwise/perform/internal/ratelimit"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/store/storetest"
	"github.com/otherwise/perform/internal/training"
)

// env is a lane on a real store behind a real HTTP server on 127.0.0.1.
type env struct {
	t     testing.TB
	st    store.Store
	lane  *lane.Lane
	srv   *httptest.Server
	audit *audit.Writer
}

type envOptions struct {
	limiter ratelimit.Limiter
	now     func() time.Time // the lane's clock; nil: time.Now
}

func newEnv(t *testing.T, st store.Store, opts ...envOptions) *env {
	t.Helper()
	var o envOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	aw := audit.NewWriter(st, audit.Options{})
	l := areas.Lane(lane.Options{Store: st, Audit: aw, Limiter: o.limiter, Now: o.now})
	srv := httptest.NewServer(l)
	t.Cleanup(func() {
		srv.Close()
		aw.Close()
	})
	return &env{t: t, st: st, lane: l, srv: srv, audit: aw}
}

// eachEngine runs fn on SQLite and, when configured, on Postgres, the two
// side by side: each run owns its store (a storetest copy or schema), so
// fn must share nothing else between them.
func eachEngine(t *testing.T, fn func(t *testing.T, st store.Store)) {
	t.Parallel() // each run owns its store: the test runs beside the package's others
	for name, open := range storetest.Engines(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fn(t, open(t))
		})
	}
}

// onSQLite runs fn on SQLite only, in a subtest named for it: the test of
// a route's own logic (validation, policy, answers), whose store calls the
// storetest contract holds to the same answers on both engines. A test
// whose subject is the engine's (concurrency, transactions, River,
// triggers, time zones, SQL reached by bad input, search, the roster's
// queries, tenancy) runs on both, with eachEngine.
func onSQLite(t *testing.T, fn func(t *testing.T, st store.Store)) {
	t.Parallel()
	t.Run(store.EngineSQLite, func(t *testing.T) { fn(t, storetest.OpenSQLite(t)) })
}

// sweepEngines are the engines of a heavy route sweep, a test of the
// routes rather than of the engine or of concurrency: both, and none under
// -race (t is skipped there: the sweeps took a third of the lane's -race
// run, and the race detector finds a handler's races in the tests that
// call it concurrently; go test without -race runs them).
func sweepEngines(t *testing.T) map[string]func(*testing.T) store.Store {
	if raceOn {
		t.Skip("-race: this route sweep runs in go test without -race")
	}
	return storetest.Engines(t)
}

// concurrentEngines are the engines of a sweep that also runs many clients
// at once: both, except under -race, where it runs on SQLite only (the
// PostgreSQL run without -race covers that engine; the race detector
// finds the same races on either).
func concurrentEngines(t *testing.T) map[string]func(*testing.T) store.Store {
	all := storetest.Engines(t)
	if raceOn {
		t.Log("-race: this sweep runs on SQLite only; go test without -race runs it on PostgreSQL too")
		return map[string]func(*testing.T) store.Store{store.EngineSQLite: all[store.EngineSQLite]}
	}
	return all
}

// eachSweepEngine is eachEngine over engines (sweepEngines or
// concurrentEngines).
func eachSweepEngine(t *testing.T, engines func(*testing.T) map[string]func(*testing.T) store.Store, fn func(t *testing.T, st store.Store)) {
	for name, open := range engines(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fn(t, open(t))
		})
	}
}

// studio creates a studio and a key for it.
func (e *env) studio(slug, tier string) (domain.Studio, string, string) {
	e.t.Helper()
	ctx := context.Background()
	s := domain.Studio{Name: "Studio " + slug, Slug: slug, Tier: tier}
	if err := e.st.CreateStudio(ctx, &s); err != nil {
		e.t.Fatalf("create studio: %v", err)
	}
	key, keyID := e.newKey(s.ID, "test")
	return s, key, keyID
}

func (e *env) newKey(studioID, name string) (string, string) {
	e.t.Helper()
	key := auth.NewKey()
	k := domain.APIKey{ID: ids.New(ids.APIKey), StudioID: studioID, Name: name, Prefix: auth.Display(key), Hash: auth.Hash(key)}
	if err := e.st.CreateAPIKey(context.Background(), &k); err != nil {
		e.t.Fatalf("create key: %v", err)
	}
	return key, k.ID
}

// answer is a decoded envelope.
type answer struct {
	Status    int
	Header    http.Header
	Raw       string
	OK        bool            `json:"ok"`
	Data      json.RawMessage `json:"data"`
	RequestID string          `json:"requestId"`
	Matched   []string        `json:"matched"`
	Error     *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
		Fields  []struct {
			Field   string `json:"field"`
			Message string `json:"message"`
		} `json:"fields"`
	} `json:"error"`
}

func (a answer) code() string {
	if a.Error == nil {
		return ""
	}
	return a.Error.Code
}

func (a answer) message() string {
	if a.Error == nil {
		return ""
	}
	return a.Error.Message
}

func (a answer) fields() []string {
	if a.Error == nil {
		return nil
	}
	var out []string
	for _, f := range a.Error.Fields {
		out = append(out, f.Field)
	}
	return out
}

// into decodes the data.
func (a answer) into(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(a.Data, v); err != nil {
		t.Fatalf("decoding data %s: %v", a.Data, err)
	}
}

// call makes one request with key (none when ""), body marshalled unless a string.
func (e *env) call(key, method, path string, body any, headers ...string) answer {
	e.t.Helper()
	a, err := e.try(key, method, path, body, headers...)
	if err != nil {
		e.t.Fatal(err)
	}
	return a
}

// callAs makes the call as one of Perform's own surfaces does: through the
// in-process transport, with the surface named in the X-Perform-Source header.
func (e *env) callAs(source, key, method, path string, body any) answer {
	e.t.Helper()
	a, err := e.roundTrip(laneclient.HandlerTransport(e.lane), key, method, path, body, auth.SourceHeader, source)
	if err != nil {
		e.t.Fatal(err)
	}
	return a
}

func (e *env) try(key, method, path string, body any, headers ...string) (answer, error) {
	return e.roundTrip(e.srv.Client().Transport, key, method, path, body, headers...)
}

func (e *env) roundTrip(rt http.RoundTripper, key, method, path string, body any, headers ...string) (answer, error) {
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		buf, err := json.Marshal(b)
		if err != nil {
			return answer{}, err
		}
		rd = bytes.NewReader(buf)
	}
	req, err := http.NewRequest(method, e.srv.URL+lane.Prefix+path, rd)
	if err != nil {
		return answer{}, err
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := rt.RoundTrip(req)
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	a := answer{Status: resp.StatusCode, Header: resp.Header, Raw: string(raw)}
	if err := json.Unmarshal(raw, &a); err != nil {
		return a, fmt.Errorf("%s %s: answer is not JSON: %s", method, path, raw)
	}
	if a.RequestID == "" || !ids.Is(a.RequestID, ids.Request) || resp.Header.Get("X-Request-Id") != a.RequestID {
		return a, fmt.Errorf("%s %s: request id %q, header %q", method, path, a.RequestID, resp.Header.Get("X-Request-Id"))
	}
	return a, nil
}

// ok asserts a success answer with status and returns it.
func (e *env) ok(status int, a answer) answer {
	e.t.Helper()
	if a.Status != status || !a.OK {
		e.t.Fatalf("want %d ok, got %d: %s", status, a.Status, a.Raw)
	}
	return a
}

// fails asserts an error answer with status and code and returns it.
func (e *env) fails(status int, code string, a answer) answer {
	e.t.Helper()
	if a.Status != status || a.OK || a.code() != code {
		e.t.Fatalf("want %d %s, got %d: %s", status, code, a.Status, a.Raw)
	}
	return a
}

// fixture is one studio's seeded data, created through the studio-app endpoints.
type fixture struct {
	studio       domain.Studio
	key, keyID   string
	otherKeyID   string // a second key, set by the tests that revoke one
	coach        domain.Coach
	tag          domain.Tag
	product      domain.Product // priced, 30 days
	openProduct  domain.Product // unpriced, open-ended
	template     domain.ProgramTemplate
	form         domain.FormTemplate
	trainee      domain.Trainee
	subscription domain.Subscription
	program      domain.Program
	assignment   domain.FormAssignment
	response     domain.FormResponse
	weight       domain.Weight
	task         domain.Task
	exercise     domain.Exercise  // the studio's own
	session      domain.Session   // planned, with one exercise
	benchmark    domain.Benchmark // "Max pull-ups", one value
	injury       domain.Injury
	goal         domain.Goal
	draft        domain.PlanDraft // pending: one session next Monday
}

func (e *env) seed(slug string) fixture {
	e.t.Helper()
	var f fixture
	f.studio, f.key, f.keyID = e.studio(slug, "pro")
	k := f.key
	e.ok(201, e.call(k, "POST", "/coaches", map[string]any{"name": "Coach " + slug, "phone": "052-000-0001"})).into(e.t, &f.coach)
	e.ok(201, e.call(k, "POST", "/tags", map[string]any{"name": "vip-" + slug})).into(e.t, &f.tag)
	e.ok(201, e.call(k, "POST", "/products", map[string]any{"name": "Monthly " + slug, "price": 300, "durationDays": 30})).into(e.t, &f.product)
	e.ok(201, e.call(k, "POST", "/products", map[string]any{"name": "Open " + slug})).into(e.t, &f.openProduct)
	e.ok(201, e.call(k, "POST", "/program-templates", map[string]any{"name": "Strength " + slug, "weeks": 8})).into(e.t, &f.template)
	e.ok(201, e.call(k, "POST", "/forms", map[string]any{"name": "Check-in " + slug, "fields": []map[string]any{
		{"key": "sleep", "label": "How did you sleep?", "type": "scale"},
		{"key": "notes", "label": "Anything else?", "type": "text"},
	}})).into(e.t, &f.form)
	e.ok(201, e.call(k, "POST", "/trainees", map[string]any{
		"firstName": "Dana", "lastName": "Levi-" + slug, "phone": "050-123-4567", "email": "dana@" + slug + ".example",
		"tags": []string{f.tag.Name}, "coachIds": []string{f.coach.ID},
	})).into(e.t, &f.trainee)
	tp := "/trainees/" + f.trainee.ID
	e.ok(201, e.call(k, "POST", tp+"/subscription", map[string]any{"productId": f.product.ID})).into(e.t, &f.subscription)
	e.ok(201, e.call(k, "POST", tp+"/programs/assign", map[string]any{"templateId": f.template.ID})).into(e.t, &f.program)
	e.ok(201, e.call(k, "POST", tp+"/forms/assign", map[string]any{"formTemplateId": f.form.ID, "notify": false})).into(e.t, &f.assignment)
	e.ok(201, e.call(k, "POST", tp+"/form-responses", map[string]any{"assignmentId": f.assignment.ID, "answers": map[string]any{"sleep": 4}})).into(e.t, &f.response)
	e.ok(201, e.call(k, "POST", tp+"/weights", map[string]any{"weightKg": 71.5})).into(e.t, &f.weight)
	e.ok(201, e.call(k, "POST", "/tasks", map[string]any{"title": "Call Dana", "clientId": f.trainee.ID, "coachId": f.coach.ID})).into(e.t, &f.task)
	e.ok(201, e.call(k, "POST", "/exercises", map[string]any{"name": "Sled sprint " + slug, "category": "conditioning",
		"primaryMuscles": []string{"quadriceps"}, "equipment": []string{"sled"}, "measure": "distance", "loadsAreas": []string{"knee"}})).into(e.t, &f.exercise)
	e.ok(201, e.call(k, "POST", tp+"/sessions", map[string]any{"date": today(), "sport": "strength", "title": "Lower " + slug,
		"exercises": []map[string]any{{"exerciseId": "back-squat", "sets": 3, "reps": 5, "loadKg": 80}}})).into(e.t, &f.session)
	var bm struct {
		Benchmark struct{ ID string } `json:"benchmark"`
	}
	e.ok(201, e.call(k, "POST", tp+"/benchmarks", map[string]any{"name": "Max pull-ups", "unit": "reps", "direction": "higher", "value": 8})).into(e.t, &bm)
	f.benchmark = domain.Benchmark{ID: bm.Benchmark.ID, TraineeID: f.trainee.ID, Name: "Max pull-ups"}
	e.ok(201, e.call(k, "POST", tp+"/injuries", map[string]any{"area": "knee", "side": "left", "severity": 2})).into(e.t, &f.injury)
	e.ok(201, e.call(k, "POST", tp+"/goals", map[string]any{"title": "Train 3 times a week " + slug, "kind": "consistency", "targetValue": 3})).into(e.t, &f.goal)
	// A pending weekly plan draft, stored as the weekly plan area keeps one.
	monday := AddDays(training.WeekStartOn(today(), time.Sunday), 7) // the default studio's week
	f.draft = domain.PlanDraft{TraineeID: f.trainee.ID, WeekStart: monday, RequestedBy: "coach", ExpiresAt: time.Now().Add(24 * time.Hour),
		Plan: json.RawMessage(`{"weekStart":"` + monday + `","rule":"linear","sessions":[{"date":"` + monday + `","weekday":1,"title":"Full body","durationMin":30,` +
			`"exercises":[{"exerciseId":"goblet-squat","name":"Goblet squat","sets":3,"reps":10,"rir":2,"restSeconds":90,"basis":"no logged load yet"}]}],"adjustments":[]}`),
		Report: json.RawMessage(`{"valid":true,"problems":[],"fallback":true,"promptVersion":"weekly-plan/1","modelCalls":0}`)}
	if err := e.st.Studio(f.studio.ID).CreatePlanDraft(context.Background(), &f.draft); err != nil {
		e.t.Fatal(err)
	}
	return f
}

// notifications lists a studio's outbox straight from the store.
func (e *env) notifications(studioID string) []domain.Notification {
	e.t.Helper()
	l, err := e.st.Studio(studioID).ListNotifications(context.Background(), store.Page{Limit: 200})
	if err != nil {
		e.t.Fatal(err)
	}
	return l.Items
}

func today() string { return time.Now().UTC().Format(time.DateOnly) }

func AddDays(d string, n int) string {
	t, _ := time.Parse(time.DateOnly, d)
	return t.AddDate(0, 0, n).Format(time.DateOnly)
}

func engines(t *testing.T) map[string]func(*testing.T) store.Store { return storetest.Engines(t) }
