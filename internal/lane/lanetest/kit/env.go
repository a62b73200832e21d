// Package kit is the core of the lane's test harness: a lane on a real
// store behind a real HTTP server on 127.0.0.1, the credentials of each
// kind a caller holds (a studio key, a key with chosen scopes, a coach's
// or trainee's OAuth grant, an agent platform's key), a seeded studio
// (Fixture), and the checks of the answer envelope (Answer, OK, Fails). It links no area: the kernel's own
// tests run it on a toy area of theirs; lanetest builds it with every area.
// It is for tests only.
package kit

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/audit"
	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/laneclient"
	"github.com/otherwise/perform/internal/money"
	"github.com/otherwise/perform/internal/ratelimit"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/store/storetest"
	"github.com/otherwise/perform/internal/training"
)

// Env is a lane on a real store behind a real HTTP server on 127.0.0.1.
type Env struct {
	T     testing.TB
	St    store.Store
	Lane  *lane.Lane
	Srv   *httptest.Server
	Audit *audit.Writer
}

// Options configure the lane of New.
type Options struct {
	Limiter ratelimit.Limiter
	Now     func() time.Time // the lane's clock; nil: time.Now
	// Authenticator, when set, takes the credentials (nil: studio keys);
	// TraineeReads and TraineeWrites are the person limits of trainees.
	Authenticator               auth.Authenticator
	TraineeReads, TraineeWrites ratelimit.Limiter
	// Areas are the lane's route packages; New needs them (lanetest.New
	// gives every area).
	Areas []lane.Area
	// Limits count the areas' declared limits (lane.Options.Limits).
	Limits map[string]ratelimit.Limiter
}

// New is a lane of o.Areas on st behind a server on 127.0.0.1.
func New(t *testing.T, st store.Store, opts ...Options) *Env {
	t.Helper()
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	if o.Areas == nil {
		t.Fatal("kit.New: no areas (lanetest.New serves every area)")
	}
	aw := audit.NewWriter(st, audit.Options{})
	l := lane.New(lane.Options{Store: st, Audit: aw, Limiter: o.Limiter, Now: o.Now, Areas: o.Areas,
		Authenticator: o.Authenticator, TraineeReads: o.TraineeReads, TraineeWrites: o.TraineeWrites, Limits: o.Limits})
	srv := httptest.NewServer(l)
	t.Cleanup(func() {
		srv.Close()
		aw.Close()
	})
	return &Env{T: t, St: st, Lane: l, Srv: srv, Audit: aw}
}

// EachEngine runs fn on SQLite and, when configured, on Postgres, the two
// side by side: each run owns its store (a storetest copy or schema), so
// fn must share nothing else between them.
func EachEngine(t *testing.T, fn func(t *testing.T, st store.Store)) {
	t.Parallel() // each run owns its store: the test runs beside the package's others
	for name, open := range storetest.Engines(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fn(t, open(t))
		})
	}
}

// OnSQLite runs fn on SQLite only, in a subtest named for it: the test of
// a route's own logic (validation, policy, answers), whose store calls the
// storetest contract holds to the same answers on both engines. A test
// whose subject is the engine's (concurrency, transactions, River,
// triggers, time zones, SQL reached by bad input, search, the roster's
// queries, tenancy) runs on both, with EachEngine.
func OnSQLite(t *testing.T, fn func(t *testing.T, st store.Store)) {
	t.Parallel()
	t.Run(store.EngineSQLite, func(t *testing.T) { fn(t, storetest.OpenSQLite(t)) })
}

// SweepEngines are the engines of a heavy route sweep, a test of the
// routes rather than of the engine or of concurrency: both, and none under
// -race (t is skipped there: the sweeps took a third of the lane's -race
// run, and the race detector finds a handler's races in the tests that
// call it concurrently; go test without -race runs them).
func SweepEngines(t *testing.T) map[string]func(*testing.T) store.Store {
	if RaceOn {
		t.Skip("-race: this route sweep runs in go test without -race")
	}
	return storetest.Engines(t)
}

// ConcurrentEngines are the engines of a sweep that also runs many clients
// at once: both, except under -race, where it runs on SQLite only (the
// PostgreSQL run without -race covers that engine; the race detector
// finds the same races on either).
func ConcurrentEngines(t *testing.T) map[string]func(*testing.T) store.Store {
	all := storetest.Engines(t)
	if RaceOn {
		t.Log("-race: this sweep runs on SQLite only; go test without -race runs it on PostgreSQL too")
		return map[string]func(*testing.T) store.Store{store.EngineSQLite: all[store.EngineSQLite]}
	}
	return all
}

// EachSweepEngine is EachEngine over engines (SweepEngines or
// ConcurrentEngines).
func EachSweepEngine(t *testing.T, engines func(*testing.T) map[string]func(*testing.T) store.Store, fn func(t *testing.T, st store.Store)) {
	for name, open := range engines(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fn(t, open(t))
		})
	}
}

// Studio creates a studio and a key for it.
func (e *Env) Studio(slug, tier string) (domain.Studio, string, string) {
	e.T.Helper()
	ctx := context.Background()
	s := domain.Studio{Name: "Studio " + slug, Slug: slug, Tier: tier}
	if err := e.St.CreateStudio(ctx, &s); err != nil {
		e.T.Fatalf("create studio: %v", err)
	}
	key, keyID := e.NewKey(s.ID, "test")
	return s, key, keyID
}

// NewKey mints a studio key named name for studioID with the default
// scopes; it answers the key and its id.
func (e *Env) NewKey(studioID, name string) (string, string) {
	e.T.Helper()
	key := auth.NewKey()
	k := domain.APIKey{ID: ids.New(ids.APIKey), StudioID: studioID, Name: name, Prefix: auth.Display(key), Hash: auth.Hash(key)}
	if err := e.St.CreateAPIKey(context.Background(), &k); err != nil {
		e.T.Fatalf("create key: %v", err)
	}
	return key, k.ID
}

// Answer is a decoded envelope.
type Answer struct {
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

// Code is the error's code, "" on success.
func (a Answer) Code() string {
	if a.Error == nil {
		return ""
	}
	return a.Error.Code
}

// Message is the error's sentence, "" on success.
func (a Answer) Message() string {
	if a.Error == nil {
		return ""
	}
	return a.Error.Message
}

// Fields are the fields the error names.
func (a Answer) Fields() []string {
	if a.Error == nil {
		return nil
	}
	var out []string
	for _, f := range a.Error.Fields {
		out = append(out, f.Field)
	}
	return out
}

// Into decodes the data.
func (a Answer) Into(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(a.Data, v); err != nil {
		t.Fatalf("decoding data %s: %v", a.Data, err)
	}
}

// Call makes one request with key (none when ""), body marshalled unless a string.
func (e *Env) Call(key, method, path string, body any, headers ...string) Answer {
	e.T.Helper()
	a, err := e.Try(key, method, path, body, headers...)
	if err != nil {
		e.T.Fatal(err)
	}
	return a
}

// CallAs makes the call as one of Perform's own surfaces does: through the
// in-process transport, with the surface named in the X-Perform-Source header.
func (e *Env) CallAs(source, key, method, path string, body any) Answer {
	e.T.Helper()
	a, err := e.RoundTrip(laneclient.HandlerTransport(e.Lane), key, method, path, body, auth.SourceHeader, source)
	if err != nil {
		e.T.Fatal(err)
	}
	return a
}

// Try is Call that hands back the failure to read the answer.
func (e *Env) Try(key, method, path string, body any, headers ...string) (Answer, error) {
	return e.RoundTrip(e.Srv.Client().Transport, key, method, path, body, headers...)
}

// RoundTrip makes the request through rt and checks the envelope: JSON,
// with a request id that the X-Request-Id header repeats.
func (e *Env) RoundTrip(rt http.RoundTripper, key, method, path string, body any, headers ...string) (Answer, error) {
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		buf, err := json.Marshal(b)
		if err != nil {
			return Answer{}, err
		}
		rd = bytes.NewReader(buf)
	}
	req, err := http.NewRequest(method, e.Srv.URL+lane.Prefix+path, rd)
	if err != nil {
		return Answer{}, err
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
		return Answer{}, err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	a := Answer{Status: resp.StatusCode, Header: resp.Header, Raw: string(raw)}
	if err := json.Unmarshal(raw, &a); err != nil {
		return a, fmt.Errorf("%s %s: answer is not JSON: %s", method, path, raw)
	}
	if a.RequestID == "" || !ids.Is(a.RequestID, ids.Request) || resp.Header.Get("X-Request-Id") != a.RequestID {
		return a, fmt.Errorf("%s %s: request id %q, header %q", method, path, a.RequestID, resp.Header.Get("X-Request-Id"))
	}
	return a, nil
}

// OK asserts a success answer with status and returns it.
func (e *Env) OK(status int, a Answer) Answer {
	e.T.Helper()
	if a.Status != status || !a.OK {
		e.T.Fatalf("want %d ok, got %d: %s", status, a.Status, a.Raw)
	}
	return a
}

// Fails asserts an error answer with status and code and returns it.
func (e *Env) Fails(status int, code string, a Answer) Answer {
	e.T.Helper()
	if a.Status != status || a.OK || a.Code() != code {
		e.T.Fatalf("want %d %s, got %d: %s", status, code, a.Status, a.Raw)
	}
	return a
}

// Fixture is one studio's seeded data, created through the studio-app endpoints.
type Fixture struct {
	Studio       domain.Studio
	Key, KeyID   string
	OtherKeyID   string // a second key, set by the tests that revoke one
	Coach        domain.Coach
	Tag          domain.Tag
	Product      domain.Product // priced, 30 days
	OpenProduct  domain.Product // unpriced, open-ended
	Template     domain.ProgramTemplate
	Form         domain.FormTemplate
	Trainee      domain.Trainee
	Subscription domain.Subscription
	Program      domain.Program
	Assignment   domain.FormAssignment
	Response     domain.FormResponse
	Weight       domain.Weight
	Task         domain.Task
	Exercise     domain.Exercise  // the studio's own
	Session      domain.Session   // planned, with one exercise
	Benchmark    domain.Benchmark // "Max pull-ups", one value
	Injury       domain.Injury
	Goal         domain.Goal
	Draft        domain.PlanDraft // pending: one session next Monday
	Payment      domain.Payment   // 100 in cash, paying nothing yet (the plan is of kind other)
}

// Seed makes a studio slug on the pro tier and seeds a Fixture in it
// through the areas' own routes, so it needs a lane of every area
// (lanetest.New); only the pending plan draft is written to the store.
func (e *Env) Seed(slug string) Fixture {
	e.T.Helper()
	var f Fixture
	f.Studio, f.Key, f.KeyID = e.Studio(slug, "pro")
	k := f.Key
	e.OK(201, e.Call(k, "POST", "/coaches", map[string]any{"name": "Coach " + slug, "phone": "052-000-0001"})).Into(e.T, &f.Coach)
	e.OK(201, e.Call(k, "POST", "/tags", map[string]any{"name": "vip-" + slug})).Into(e.T, &f.Tag)
	e.OK(201, e.Call(k, "POST", "/products", map[string]any{"name": "Monthly " + slug, "price": 300, "durationDays": 30})).Into(e.T, &f.Product)
	e.OK(201, e.Call(k, "POST", "/products", map[string]any{"name": "Open " + slug})).Into(e.T, &f.OpenProduct)
	e.OK(201, e.Call(k, "POST", "/program-templates", map[string]any{"name": "Strength " + slug, "weeks": 8})).Into(e.T, &f.Template)
	e.OK(201, e.Call(k, "POST", "/forms", map[string]any{"name": "Check-in " + slug, "fields": []map[string]any{
		{"key": "sleep", "label": "How did you sleep?", "type": "scale"},
		{"key": "notes", "label": "Anything else?", "type": "text"},
	}})).Into(e.T, &f.Form)
	e.OK(201, e.Call(k, "POST", "/trainees", map[string]any{
		"firstName": "Dana", "lastName": "Levi-" + slug, "phone": "050-123-4567", "email": "dana@" + slug + ".example",
		"tags": []string{f.Tag.Name}, "coachIds": []string{f.Coach.ID},
	})).Into(e.T, &f.Trainee)
	tp := "/trainees/" + f.Trainee.ID
	e.OK(201, e.Call(k, "POST", tp+"/subscription", map[string]any{"productId": f.Product.ID})).Into(e.T, &f.Subscription)
	e.OK(201, e.Call(k, "POST", tp+"/programs/assign", map[string]any{"templateId": f.Template.ID})).Into(e.T, &f.Program)
	e.OK(201, e.Call(k, "POST", tp+"/forms/assign", map[string]any{"formTemplateId": f.Form.ID, "notify": false})).Into(e.T, &f.Assignment)
	e.OK(201, e.Call(k, "POST", tp+"/form-responses", map[string]any{"assignmentId": f.Assignment.ID, "answers": map[string]any{"sleep": 4}})).Into(e.T, &f.Response)
	e.OK(201, e.Call(k, "POST", tp+"/weights", map[string]any{"weightKg": 71.5})).Into(e.T, &f.Weight)
	e.OK(201, e.Call(k, "POST", "/tasks", map[string]any{"title": "Call Dana", "clientId": f.Trainee.ID, "coachId": f.Coach.ID})).Into(e.T, &f.Task)
	e.OK(201, e.Call(k, "POST", "/exercises", map[string]any{"name": "Sled sprint " + slug, "category": "conditioning",
		"primaryMuscles": []string{"quadriceps"}, "equipment": []string{"sled"}, "measure": "distance", "loadsAreas": []string{"knee"}})).Into(e.T, &f.Exercise)
	e.OK(201, e.Call(k, "POST", tp+"/sessions", map[string]any{"date": Today(), "sport": "strength", "title": "Lower " + slug,
		"exercises": []map[string]any{{"exerciseId": "back-squat", "sets": 3, "reps": 5, "loadKg": 80}}})).Into(e.T, &f.Session)
	var bm struct {
		Benchmark struct{ ID string } `json:"benchmark"`
	}
	e.OK(201, e.Call(k, "POST", tp+"/benchmarks", map[string]any{"name": "Max pull-ups", "unit": "reps", "direction": "higher", "value": 8})).Into(e.T, &bm)
	f.Benchmark = domain.Benchmark{ID: bm.Benchmark.ID, TraineeID: f.Trainee.ID, Name: "Max pull-ups"}
	e.OK(201, e.Call(k, "POST", tp+"/injuries", map[string]any{"area": "knee", "side": "left", "severity": 2})).Into(e.T, &f.Injury)
	e.OK(201, e.Call(k, "POST", tp+"/goals", map[string]any{"title": "Train 3 times a week " + slug, "kind": "consistency", "targetValue": 3})).Into(e.T, &f.Goal)
	var pay struct{ ID string }
	e.OK(201, e.Call(k, "POST", tp+"/payments", map[string]any{"amount": 100, "method": "cash"})).Into(e.T, &pay)
	f.Payment = domain.Payment{ID: pay.ID, TraineeID: f.Trainee.ID, Amount: money.Money{Minor: 10000, Currency: "ILS"}, Currency: "ILS", Method: domain.PayCash}
	// A pending weekly plan draft, stored as the weekly plan area keeps one.
	monday := AddDays(training.WeekStartOn(Today(), time.Sunday), 7) // the default studio's week
	f.Draft = domain.PlanDraft{TraineeID: f.Trainee.ID, WeekStart: monday, RequestedBy: "coach", ExpiresAt: time.Now().Add(24 * time.Hour),
		Plan: json.RawMessage(`{"weekStart":"` + monday + `","rule":"linear","sessions":[{"date":"` + monday + `","weekday":1,"title":"Full body","durationMin":30,` +
			`"exercises":[{"exerciseId":"goblet-squat","name":"Goblet squat","sets":3,"reps":10,"rir":2,"restSeconds":90,"basis":"no logged load yet"}]}],"adjustments":[]}`),
		Report: json.RawMessage(`{"valid":true,"problems":[],"fallback":true,"promptVersion":"weekly-plan/1","modelCalls":0}`)}
	if err := e.St.Studio(f.Studio.ID).CreatePlanDraft(context.Background(), &f.Draft); err != nil {
		e.T.Fatal(err)
	}
	return f
}

// Notifications lists a studio's outbox straight from the store.
func (e *Env) Notifications(studioID string) []domain.Notification {
	e.T.Helper()
	l, err := e.St.Studio(studioID).ListNotifications(context.Background(), store.Page{Limit: 200})
	if err != nil {
		e.T.Fatal(err)
	}
	return l.Items
}

// Today is the UTC day, YYYY-MM-DD.
func Today() string { return time.Now().UTC().Format(time.DateOnly) }

// AddDays is the day n days after d (YYYY-MM-DD).
func AddDays(d string, n int) string {
	t, _ := time.Parse(time.DateOnly, d)
	return t.AddDate(0, 0, n).Format(time.DateOnly)
}

// List is a page of a list answer.
type List[T any] struct {
	Items      []T  `json:"items"`
	Total      int  `json:"total"`
	NextOffset *int `json:"nextOffset"`
}

// Names reports whether a refusal's fields name field (or a place inside it).
func Names(fields []string, field string) bool {
	base, _, _ := strings.Cut(field, "[")
	return slices.ContainsFunc(fields, func(f string) bool {
		return f == field || f == base || strings.HasPrefix(f, base+"[") || strings.HasPrefix(f, base+".")
	})
}

// Refused asserts a 422 that names field.
func (e *Env) Refused(field string, a Answer) {
	e.T.Helper()
	e.Fails(422, "VALIDATION", a)
	if !Names(a.Fields(), field) || a.Message() == "" {
		e.T.Fatalf("want a 422 naming %s, got fields %v: %s", field, a.Fields(), a.Raw)
	}
}
