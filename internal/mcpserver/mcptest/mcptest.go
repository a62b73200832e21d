// Package mcptest starts a real Perform server for the MCP tests and
// benchmarks: the lane and the hosted /mcp on 127.0.0.1 over a fresh SQLite
// store, with two studios seeded through the lane's own endpoints.
package mcptest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/riverqueue/river"

	"github.com/otherwise/perform/internal/areas"
	"github.com/otherwise/perform/internal/areas/public"
	"github.com/otherwise/perform/internal/audit"
	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/auth/credentials"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/jobs"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/laneclient"
	"github.com/otherwise/perform/internal/mcpserver"
	"github.com/otherwise/perform/internal/oauth"
	"github.com/otherwise/perform/internal/ratelimit"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/store/storetest"
	"github.com/otherwise/perform/internal/tools"
)

// Studio is one seeded studio: its key and an id of every kind the tools use.
type Studio struct {
	Name, Slug, Key                          string
	TraineeID, OtherTraineeID, Phone         string
	ProductID, OpenProductID                 string
	TemplateID, FormID, CoachID, TaskID, Tag string
	TraineeLastName                          string
}

// Fixture is the running server.
type Fixture struct {
	// URL is the server's root: the lane is under URL/v1/automation, the
	// hosted endpoint at URL/mcp (lane in process) and at URL/mcp-tcp (the
	// same endpoint calling the lane over TCP loopback, for comparison), and
	// behind the gate, as the server mounts it, at URL+GatedPath; the
	// authorization server's routes at the root.
	URL   string
	Store store.Store
	Lane  *lane.Lane
	// Areas are the lane's areas; CloseWait waits for their background work.
	Areas *areas.Set
	Audit *audit.Writer // the lane's audit, batched; Flush before reading it
	A, B  Studio
	// App calls the lane over the network, as the studio's own apps do.
	App *laneclient.Client
}

// Quiet is a logger that drops everything.
func Quiet() *slog.Logger { return slog.New(slog.DiscardHandler) }

// New starts the server for t on a fresh SQLite store and seeds studios A and B.
func New(t testing.TB) *Fixture {
	t.Helper()
	return NewOn(t, storetest.OpenSQLite(t))
}

// NewOn is New on a given (fresh, migrated) store, e.g. one of storetest.Engines.
func NewOn(t testing.TB, st store.Store) *Fixture {
	t.Helper()
	return NewWith(t, st, Options{})
}

// Options vary the fixture's server.
type Options struct {
	// Codes sends the lane's verification codes (an agent platform's end
	// users); nil writes them to a discarded log.
	Codes public.CodeGateway
	// Broker configures the auth-context callback (a fake agent platform
	// on 127.0.0.1 needs AllowLoopback).
	Broker public.BrokerOptions
	// CodeSends counts the verification codes (nil: in memory), and
	// CodeSendsDown says it cannot count now (public.Options).
	CodeSends     ratelimit.Limiter
	CodeSendsDown func() bool
	// SecretKey seals the codes' jobs; nil: a fixed test key, so codes go
	// out as River jobs as in a server with PERFORM_SECRET_KEY.
	SecretKey []byte
	// Now is the lane's clock; nil: time.Now.
	Now func() time.Time
	// Logger is the lane's and the gated endpoint's logger; nil: Quiet.
	Logger *slog.Logger
}

// NewWith is NewOn with options.
func NewWith(t testing.TB, st store.Store, o Options) *Fixture {
	t.Helper()
	aw := audit.NewWriter(st, audit.Options{Logger: Quiet()})
	t.Cleanup(func() { aw.Close() })
	// The authorization server signs people in through a stand-in browser
	// (see TraineeToken); its access tokens are accepted by the lane and by
	// the gated endpoint, as in the server.
	as := oauth.New(oauth.Options{Store: st, Browser: testBrowser{}, Logger: Quiet()})
	authn := credentials.New(credentials.Options{Keys: st, Conversations: public.Conversations(st), Grants: as})
	laneLogger := o.Logger
	if laneLogger == nil {
		laneLogger = Quiet()
	}
	if o.SecretKey == nil {
		o.SecretKey = bytes.Repeat([]byte{7}, 32)
	}
	set := areas.New(areas.Options{Public: public.Options{Store: st, Codes: o.Codes, CodeSends: o.CodeSends, CodeSendsDown: o.CodeSendsDown,
		SecretKey: o.SecretKey, Broker: o.Broker, Audit: aw, Logger: laneLogger}})
	// The public area's callbacks and codes are River jobs, worked here
	// as in the server.
	workers := river.NewWorkers()
	set.Register(workers)
	jc, err := jobs.NewClient(st, jobs.Config{Workers: workers, Logger: Quiet(), FetchPollInterval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	set.SetJobs(jc)
	if err := jc.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // before the audit writer closes: callbacks are audited
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = jc.Stop(ctx)
		_ = set.CloseWait()
	})
	ln := lane.New(lane.Options{Store: st, Audit: aw, Logger: laneLogger, Authenticator: authn, Now: o.Now, Areas: set.Areas()})
	mux := http.NewServeMux()
	mux.Handle(lane.Prefix+"/", ln)
	as.Register(mux)
	mux.Handle("/mcp", mcpserver.New(mcpserver.Options{
		Client: laneclient.New("http://perform.internal", laneclient.HandlerTransport(ln), "mcp"),
		Logger: Quiet(),
	}))
	gate := mcpserver.Gate{Authenticator: authn, Logger: laneLogger, ResourceMetadata: as.ResourceMetadataURL}
	mux.Handle(GatedPath, gate.Wrap(mcpserver.New(mcpserver.Options{
		Client: laneclient.New("http://perform.internal", laneclient.HandlerTransport(ln), "mcp"),
		Logger: Quiet(),
	})))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	mux.Handle("/mcp-tcp", mcpserver.New(mcpserver.Options{
		Client: laneclient.New(srv.URL, &http.Transport{MaxIdleConnsPerHost: 256}, "mcp"),
		Logger: Quiet(),
	}))
	f := &Fixture{URL: srv.URL, Store: st, Lane: ln, Areas: set, Audit: aw, App: laneclient.New(srv.URL, nil, "api")}
	f.A = f.SeedStudio(t, "Studio Aleph", "aleph", "+972501000001")
	f.B = f.SeedStudio(t, "Studio Bet", "bet", "+972502000002")
	return f
}

// NewKey creates a studio and returns a fresh API key of it.
func NewKey(t testing.TB, st store.Store, name, slug string) string {
	t.Helper()
	ctx := context.Background()
	s := domain.Studio{Name: name, Slug: slug, Tier: "business"}
	if err := st.CreateStudio(ctx, &s); err != nil {
		t.Fatalf("create studio %s: %v", slug, err)
	}
	key := auth.NewKey()
	if err := st.CreateAPIKey(ctx, &domain.APIKey{StudioID: s.ID, Name: "test", Prefix: auth.Display(key), Hash: auth.Hash(key)}); err != nil {
		t.Fatalf("create key: %v", err)
	}
	return key
}

// NewKeyFor returns another fresh API key of the studio with slug.
func NewKeyFor(t testing.TB, st store.Store, slug string) string {
	t.Helper()
	ctx := context.Background()
	s, err := st.StudioBySlug(ctx, slug)
	if err != nil {
		t.Fatalf("studio %s: %v", slug, err)
	}
	key := auth.NewKey()
	if err := st.CreateAPIKey(ctx, &domain.APIKey{StudioID: s.ID, Name: "test 2", Prefix: auth.Display(key), Hash: auth.Hash(key)}); err != nil {
		t.Fatalf("create key: %v", err)
	}
	return key
}

// SeedStudio creates a studio with a coach, a tag, two plans (one priced and
// timed, one open), a program template, a form, two trainees, a task, a
// weight and a form response.
func (f *Fixture) SeedStudio(t testing.TB, name, slug, phone string) Studio {
	t.Helper()
	s := Studio{Name: name, Slug: slug, Key: NewKey(t, f.Store, name, slug), Phone: phone, Tag: "vip", TraineeLastName: "Levi-" + slug}
	s.CoachID = f.Create(t, s.Key, "/coaches", map[string]any{"name": "Noa " + slug, "phone": "+97254" + phone[len(phone)-7:]})
	f.Create(t, s.Key, "/tags", map[string]any{"name": s.Tag})
	s.ProductID = f.Create(t, s.Key, "/products", map[string]any{"name": "Gold", "price": 300, "durationDays": 30})
	s.OpenProductID = f.Create(t, s.Key, "/products", map[string]any{"name": "Open-ended"})
	s.TemplateID = f.Create(t, s.Key, "/program-templates", map[string]any{"name": "Strength 101", "weeks": 8})
	s.FormID = f.Create(t, s.Key, "/forms", map[string]any{"name": "Weekly check-in",
		"fields": []map[string]any{{"key": "sleep", "label": "Hours of sleep", "type": "number"}}})
	s.TraineeID = f.Create(t, s.Key, "/trainees", map[string]any{"firstName": "Dana", "lastName": s.TraineeLastName, "phone": phone,
		"tags": []string{s.Tag}, "coachIds": []string{s.CoachID}})
	s.OtherTraineeID = f.Create(t, s.Key, "/trainees", map[string]any{"firstName": "Yoav", "lastName": "Cohen-" + slug, "phone": phone[:len(phone)-1] + "9"})
	s.TaskID = f.Create(t, s.Key, "/tasks", map[string]any{"title": "Call Dana", "clientId": s.TraineeID})
	f.Create(t, s.Key, "/trainees/"+s.TraineeID+"/weights", map[string]any{"weightKg": 81.5})
	f.Create(t, s.Key, "/trainees/"+s.TraineeID+"/form-responses", map[string]any{"formTemplateId": s.FormID, "answers": map[string]any{"sleep": 7}})
	return s
}

// Create POSTs through the lane like a studio app and returns the new id.
func (f *Fixture) Create(t testing.TB, key, path string, body any) string {
	t.Helper()
	data, err := f.App.Do(context.Background(), key, tools.Request{Method: http.MethodPost, Path: path, Body: body})
	if err != nil {
		t.Fatalf("seed POST %s: %v", path, err)
	}
	var v struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("seed POST %s: %v", path, err)
	}
	return v.ID
}

// Notifications is the studio's outbox, read through the app-only endpoint.
func (f *Fixture) Notifications(t testing.TB, key string) []domain.Notification {
	t.Helper()
	data, err := f.App.Do(context.Background(), key, tools.Request{Method: http.MethodGet, Path: "/notifications", Query: map[string][]string{"limit": {"200"}}})
	if err != nil {
		t.Fatalf("GET /notifications: %v", err)
	}
	var list struct {
		Items []domain.Notification `json:"items"`
	}
	if err := json.Unmarshal(data, &list); err != nil {
		t.Fatal(err)
	}
	return list.Items
}

// Bearer adds a fixed Authorization header to every request.
type Bearer struct {
	Token string
	Next  http.RoundTripper
}

func (b Bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.Token)
	next := b.Next
	if next == nil {
		next = http.DefaultTransport
	}
	return next.RoundTrip(r)
}

// Connect opens a session with the SDK's own client over Streamable HTTP
// to endpoint (a full URL such as f.URL+"/mcp").
func Connect(t testing.TB, endpoint, key string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "perform-test", Version: "1"}, nil)
	transport := &mcp.StreamableClientTransport{
		Endpoint:   endpoint,
		HTTPClient: &http.Client{Transport: Bearer{Token: key}},
	}
	cs, err := client.Connect(context.Background(), transport, nil)
	if err != nil {
		t.Fatalf("connect to %s: %v", endpoint, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// Call calls a tool and fails t on a protocol error (a tool error is a result).
func Call(t testing.TB, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error: %v", name, err)
	}
	return res
}

// Text is the first content block's text.
func Text(res *mcp.CallToolResult) string {
	if len(res.Content) == 0 {
		return ""
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); ok {
		return tc.Text
	}
	return fmt.Sprintf("%T", res.Content[0])
}
