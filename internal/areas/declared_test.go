package areas_test

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"github.com/otherwise/perform/internal/areas"
	"github.com/otherwise/perform/internal/audit"
	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/auth/credentials"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/jobs"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/oauth"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/store/storetest"
	"github.com/otherwise/perform/internal/training"
)

// nudges is a small area made from its routes and its declaration alone:
// a noun (a form sent to a trainee, named by the form, hers), a limit, a
// River worker, a reason the roster's needs-attention shows and a line of
// a trainee's overview. Id kinds are a closed list of words people read
// (ids), so the toy holds a kind no area declares, the form assignment,
// in the table that already keeps it: a real area would add its kind and
// its store files beside it.
type nudges struct {
	jobs atomic.Pointer[river.Client[*sql.Tx]]
	ran  chan string // the ids the worker nudged

	mu     sync.Mutex
	nudged map[string]bool // trainee ids
}

const nudgeLimit = "toy nudges"

type nudgeArgs struct{ ID string }

func (nudgeArgs) Kind() string { return "toy_nudge" }

type nudgeWorker struct {
	river.WorkerDefaults[nudgeArgs]
	n *nudges
}

func (w *nudgeWorker) Work(_ context.Context, j *river.Job[nudgeArgs]) error {
	w.n.ran <- j.Args.ID
	return nil
}

type nudgeView struct {
	ID        string `json:"id"`
	TraineeID string `json:"traineeId"`
	Form      string `json:"form"`
	Status    string `json:"status"`
}

func (n *nudges) get(c *lane.Call) (nudgeView, error) {
	a, err := lane.Lookup(c.Ctx, ids.FormAssignment, c.ID(), c.Studio().GetFormAssignment)
	return nudgeView{ID: a.ID, TraineeID: a.TraineeID, Form: a.FormName, Status: a.Status}, err
}

func (n *nudges) Routes(rs *lane.Routes) {
	lane.Add(rs, "GET", "/nudges/{id}", "One nudge.", func(c *lane.Call, _ *lane.NoInput) (nudgeView, error) { return n.get(c) },
		lane.Trainee(auth.ScopeTrainingRead), lane.Allow("form", "status"))
	lane.Add(rs, "POST", "/nudges/{id}/send", "Nudge the trainee about the form.", func(c *lane.Call, _ *lane.NoInput) (nudgeView, error) {
		v, err := n.get(c)
		if err != nil || c.DryRun() {
			return v, err
		}
		if _, err := n.jobs.Load().Insert(c.Ctx, nudgeArgs{ID: v.ID}, nil); err != nil {
			return v, err
		}
		n.mu.Lock()
		n.nudged[v.TraineeID] = true
		n.mu.Unlock()
		return v, nil
	}, lane.Created(), lane.Limited(nudgeLimit))
}

func (n *nudges) Declare(d *lane.Declaration) {
	d.Nouns = append(d.Nouns, lane.Noun{Kind: ids.FormAssignment, Collections: []string{"nudges"},
		Owner: func(ctx context.Context, ss store.StudioStore, id string) (string, error) {
			a, err := ss.GetFormAssignment(ctx, id)
			return a.TraineeID, err
		},
		Name: func(ctx context.Context, ss store.StudioStore, id string) (string, error) {
			a, err := ss.GetFormAssignment(ctx, id)
			return a.FormName, err
		}})
	d.Limits = append(d.Limits, lane.Limit{Name: nudgeLimit, Max: 1, Window: time.Hour})
	d.Workers = func(w *river.Workers) { river.AddWorker(w, &nudgeWorker{n: n}) }
	d.Jobs = func(c *river.Client[*sql.Tx]) { n.jobs.Store(c) }
	d.Adds.Codes = []lane.ReasonCode{{Code: "nudged", Means: "nudged about a form"}}
	d.Adds.Reasons = func(c *lane.Call, trainees []string) (map[string][]training.Reason, error) {
		n.mu.Lock()
		defer n.mu.Unlock()
		out := map[string][]training.Reason{}
		for _, id := range trainees {
			if n.nudged[id] {
				out[id] = []training.Reason{{Code: "nudged", Severity: 5, Message: "Nudged about a form."}}
			}
		}
		return out, nil
	}
	d.Adds.Overview = func(c *lane.Call, trainee string) ([]string, error) {
		n.mu.Lock()
		defer n.mu.Unlock()
		if n.nudged[trainee] {
			return []string{"Nudged about a form."}, nil
		}
		return nil, nil
	}
}

// A new area, added to the list with its declaration and nothing else, is
// served through the policy point: scoped to its studio and, for a
// trainee, to her own records; named in a dry run; held to its limit;
// audited; its worker run by River; its reason on the roster's
// needs-attention and its line on her overview.
func TestAnAreaIsServedFromItsDeclaration(t *testing.T) {
	t.Parallel()
	for name, open := range storetest.Engines(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			st := open(t)
			toy := &nudges{ran: make(chan string, 4), nudged: map[string]bool{}}
			list := append(areas.All(areas.Options{}), toy)

			workers := river.NewWorkers()
			decls := lane.Declarations(list)
			for _, d := range decls {
				if d.Workers != nil {
					d.Workers(workers)
				}
			}
			client, err := jobs.NewClient(st, jobs.Config{Workers: workers})
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range decls {
				if d.Jobs != nil {
					d.Jobs(client)
				}
			}
			ctx, cancel := context.WithCancel(context.Background())
			if err := client.Start(ctx); err != nil {
				t.Fatal(err)
			}
			aw := audit.NewWriter(st, audit.Options{})
			authn := credentials.New(credentials.Options{Keys: st, Grants: oauth.New(oauth.Options{Store: st})})
			srv := httptest.NewServer(lane.New(lane.Options{Store: st, Audit: aw, Authenticator: authn, Areas: list}))
			t.Cleanup(func() {
				srv.Close()
				aw.Close()
				stop, done := context.WithTimeout(context.Background(), 10*time.Second)
				defer done()
				_ = client.Stop(stop)
				cancel()
			})

			a, akey := studio(t, st, "nudge-a")
			_, bkey := studio(t, st, "nudge-b")
			var dana, noa struct{ ID string }
			call(t, srv, akey, "POST", "/trainees", `{"firstName":"Dana","lastName":"Levi","phone":"050-123-4567"}`).ok(t, 201, &dana)
			call(t, srv, akey, "POST", "/trainees", `{"firstName":"Noa","lastName":"Other","phone":"050-765-4321"}`).ok(t, 201, &noa)
			mine, hers := assign(t, st, a.ID, dana.ID), assign(t, st, a.ID, noa.ID)

			var v nudgeView
			call(t, srv, akey, "GET", "/nudges/"+mine, "").ok(t, 200, &v)
			if v.TraineeID != dana.ID || v.Form != "Weekly check-in" {
				t.Errorf("the studio's own nudge: %+v", v)
			}
			call(t, srv, bkey, "GET", "/nudges/"+mine, "").fails(t, 404)
			call(t, srv, akey, "GET", "/nudges/fas_nope", "").fails(t, 404)

			token := grant(t, st, a.ID, dana.ID)
			var own nudgeView
			call(t, srv, token, "GET", "/nudges/"+mine, "").ok(t, 200, &own)
			if own.Form != "Weekly check-in" || own.TraineeID != "" {
				t.Errorf("her own nudge, as her allow list keeps it: %+v", own)
			}
			call(t, srv, token, "GET", "/nudges/"+hers, "").fails(t, 404)
			call(t, srv, token, "POST", "/nudges/"+mine+"/send", "").fails(t, 403)

			var dry struct{ Names map[string]string }
			call(t, srv, akey, "POST", "/nudges/"+mine+"/send", "", "Prefer", "dry-run").ok(t, 200, &dry)
			if dry.Names[mine] != "Weekly check-in" || dry.Names[dana.ID] != "Dana Levi" {
				t.Errorf("a dry run names the nudge by its form: %v", dry.Names)
			}
			call(t, srv, akey, "POST", "/nudges/"+mine+"/send", "").ok(t, 201, &v)
			select {
			case id := <-toy.ran:
				if id != mine {
					t.Errorf("the worker nudged %s, want %s", id, mine)
				}
			case <-time.After(time.Minute):
				t.Fatal("the nudge's job never ran")
			}
			call(t, srv, akey, "POST", "/nudges/"+mine+"/send", "").fails(t, 429)

			var attention struct{ Items []training.Attention }
			call(t, srv, akey, "GET", "/trainees/needs-attention", "").ok(t, 200, &attention)
			i := slices.IndexFunc(attention.Items, func(x training.Attention) bool { return x.TraineeID == dana.ID })
			if i < 0 || !slices.ContainsFunc(attention.Items[i].Reasons, func(r training.Reason) bool { return r.Code == "nudged" }) {
				t.Errorf("the nudge's reason is not on the roster: %+v", attention.Items)
			}
			// Its reason filters the roster, as every declared reason does.
			var nudged struct{ Items []training.Attention }
			call(t, srv, akey, "GET", "/trainees/needs-attention?reason=nudged", "").ok(t, 200, &nudged)
			if len(nudged.Items) != 1 || nudged.Items[0].TraineeID != dana.ID {
				t.Errorf("needs-attention?reason=nudged: %+v; want Dana alone", nudged.Items)
			}
			var overview training.Overview
			call(t, srv, akey, "GET", "/trainees/"+dana.ID+"/overview", "").ok(t, 200, &overview)
			if !slices.Equal(overview.More, []string{"Nudged about a form."}) {
				t.Errorf("the nudge's line is not on her overview: %q", overview.More)
			}
			var other training.Overview
			call(t, srv, akey, "GET", "/trainees/"+noa.ID+"/overview", "").ok(t, 200, &other)
			if len(other.More) != 0 {
				t.Errorf("a line on the overview of a trainee never nudged: %q", other.More)
			}

			aw.Flush()
			events, err := st.ListAudit(context.Background(), a.ID, store.Page{Limit: 100})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(events.Items, func(e domain.AuditEvent) bool {
				return e.Route == "POST "+lane.Prefix+"/nudges/{id}/send" && e.ResourceID == mine && e.Status == 201
			}) {
				t.Errorf("no audit row of the nudge: %+v", events.Items)
			}
		})
	}
}

func studio(t *testing.T, st store.Store, slug string) (domain.Studio, string) {
	t.Helper()
	s := domain.Studio{Name: "Studio " + slug, Slug: slug, Tier: "pro"}
	if err := st.CreateStudio(context.Background(), &s); err != nil {
		t.Fatal(err)
	}
	key := auth.NewKey()
	k := domain.APIKey{ID: ids.New(ids.APIKey), StudioID: s.ID, Name: "test", Prefix: auth.Display(key), Hash: auth.Hash(key), Scopes: auth.DefaultKeyScopes}
	if err := st.CreateAPIKey(context.Background(), &k); err != nil {
		t.Fatal(err)
	}
	return s, key
}

// assign sends the studio's weekly check-in form to a trainee.
func assign(t *testing.T, st store.Store, studioID, traineeID string) string {
	t.Helper()
	ss, ctx := st.Studio(studioID), context.Background()
	forms, err := ss.ListFormTemplates(ctx, "Weekly check-in", store.Page{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	form := domain.FormTemplate{ID: ids.New(ids.FormTemplate), Name: "Weekly check-in", Fields: []domain.FormField{}, CreatedAt: time.Now().UTC()}
	if len(forms.Items) > 0 {
		form = forms.Items[0]
	} else if err := ss.CreateFormTemplate(ctx, &form); err != nil {
		t.Fatal(err)
	}
	fa := domain.FormAssignment{ID: ids.New(ids.FormAssignment), TraineeID: traineeID, FormTemplateID: form.ID, FormName: form.Name, Status: "pending", CreatedAt: time.Now().UTC()}
	if err := ss.CreateFormAssignment(ctx, &fa); err != nil {
		t.Fatal(err)
	}
	return fa.ID
}

// grant is a trainee's own OAuth access token with every trainee scope.
func grant(t *testing.T, st store.Store, studioID, traineeID string) string {
	t.Helper()
	ctx, now := context.Background(), time.Now()
	c, _, err := oauth.AddClient(ctx, st, now, store.ClientFromCLI, "Test app", []string{"http://127.0.0.1/cb"}, "none")
	if err != nil {
		t.Fatal(err)
	}
	g := &store.OAuthGrant{ID: ids.New(ids.OAuthGrant), StudioID: studioID, Subject: traineeID, ClientID: c.ID, Scopes: auth.TraineeScopes, Resource: "http://127.0.0.1/mcp"}
	token := auth.AccessTokenPrefix + strings.TrimPrefix(ids.New(ids.Request), "req_") + strings.TrimPrefix(ids.New(ids.Request), "req_")
	h := sha256.Sum256([]byte(token))
	exp := now.Add(time.Hour)
	if err := st.OAuth().CreateOAuthGrant(ctx, g, nil, []store.OAuthToken{{Hash: h[:], GrantID: g.ID, Kind: store.TokenAccess, CreatedAt: now, ExpiresAt: &exp}}); err != nil {
		t.Fatal(err)
	}
	return token
}

type answer struct {
	status int
	OK     bool            `json:"ok"`
	Data   json.RawMessage `json:"data"`
	Error  *struct{ Code, Message string }
}

func (a answer) ok(t *testing.T, status int, into any) {
	t.Helper()
	if a.status != status || !a.OK {
		t.Fatalf("got %d %+v, want %d", a.status, a.Error, status)
	}
	if err := json.Unmarshal(a.Data, into); err != nil {
		t.Fatal(err)
	}
}

func (a answer) fails(t *testing.T, status int) {
	t.Helper()
	if a.status != status || a.OK {
		t.Fatalf("got %d %s, want %d", a.status, a.Data, status)
	}
}

// call makes one request with a bearer credential; header is name, value pairs.
func call(t *testing.T, srv *httptest.Server, credential, method, path, body string, header ...string) answer {
	t.Helper()
	r, err := http.NewRequest(method, srv.URL+lane.Prefix+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("Authorization", "Bearer "+credential)
	r.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	resp, err := srv.Client().Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	a := answer{status: resp.StatusCode}
	if err := json.Unmarshal(b, &a); err != nil {
		t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, b)
	}
	return a
}
