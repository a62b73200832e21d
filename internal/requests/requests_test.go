package requests_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/areas"
	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/auth/credentials"
	"github.com/otherwise/perform/internal/demo/demotest"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/laneclient"
	"github.com/otherwise/perform/internal/oauth"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/tools"
	"github.com/otherwise/perform/internal/tools/executor"
)

// Budget of one request: the calls a model makes and the tokens it reads.
const (
	maxCalls        = 2
	maxAnswerTokens = 2500
)

// now is Thursday 3 December 2026, 10:00 UTC (noon in the studio): this
// week runs from Monday 30 November.
var now = time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)

// world is the demo studio seen from outside the lane: the store for the
// facts, and the two people who ask.
type world struct {
	t                        *testing.T
	ctx                      context.Context
	ss                       store.StudioStore
	zone                     *time.Location
	today                    string
	weekStart                string // the first day of this week: the demo studio's weeks start on Sunday
	coach                    domain.Coach
	mine                     []domain.Trainee // the coach's active trainees
	trainee                  domain.Trainee   // the trainee who asks
	coachEx, traineeEx       executor.Executor
	coachToken, traineeToken string
	// authn and lane are the lane's authenticator and its client, for
	// the hosted MCP endpoint the listing's prompts go through.
	authn auth.Authenticator
	lane  *laneclient.Client
}

// step is one tool call; its arguments may read the answers before it.
type step struct {
	tool string
	args func(w *world, prev []string) map[string]any
}

func call(tool string, args map[string]any) step {
	return step{tool: tool, args: func(*world, []string) map[string]any { return args }}
}

// request is one thing a person asks, the calls a model makes for it, and
// what the answers must hold (facts read from the store).
type request struct {
	trainee bool // asked by the trainee, else by the coach
	ask     string
	steps   []step
	check   func(w *world, answers []string) error
}

func TestRequests(t *testing.T) {
	w := newWorld(t)
	all := slices.Concat(coachRequests(w), wordsRequests(w), traineeRequests(w))
	within := 0
	coachN, traineeN := 0, 0
	for _, r := range all {
		if r.trainee {
			traineeN++
		} else {
			coachN++
		}
		ex, token, who := w.coachEx, w.coachToken, "coach"
		if r.trainee {
			ex, token, who = w.traineeEx, w.traineeToken, "trainee"
		}
		var answers []string
		tokens, failed := 0, ""
		for _, s := range r.steps {
			args, _ := json.Marshal(s.args(w, answers))
			res := ex.Run(w.ctx, executor.Call{Tool: s.tool, Args: args, APIKey: token})
			text := res.Text()
			tokens += len(text) / 4
			answers = append(answers, text)
			if res.Failed() {
				failed = fmt.Sprintf("%s %s: %s", s.tool, args, text)
				break
			}
		}
		verdict := "ok"
		switch {
		case failed != "":
			verdict = "FAILED " + failed
		case r.check != nil:
			if err := r.check(w, answers); err != nil {
				verdict = "WRONG " + err.Error()
			}
		}
		inBudget := len(r.steps) <= maxCalls && tokens <= maxAnswerTokens
		if verdict == "ok" && inBudget {
			within++
		} else if verdict == "ok" {
			verdict = "over budget"
		}
		t.Logf("%-7s %d calls %5d tokens  %-60s %s", who, len(r.steps), tokens, r.ask, verdict)
		if verdict != "ok" && verdict != "over budget" {
			t.Errorf("%s %q: %s", who, r.ask, verdict)
		}
	}
	t.Logf("requests: %d of %d answered within budget (%d coach, %d trainee)", within, len(all), coachN, traineeN)
	if coachN < 40 || traineeN < 25 {
		t.Errorf("%d coach and %d trainee requests; the benchmark asks at least 40 and 25", coachN, traineeN)
	}
	if within != len(all) {
		t.Errorf("%d of %d within budget; want every one", within, len(all))
	}
}

// newWorld seeds the demo studio at now, serves the lane on 127.0.0.1
// and signs in a coach (her OAuth grant) and a trainee (theirs).
func newWorld(t *testing.T) *world {
	ctx := context.Background()
	st, studio := demotest.OpenAt(t, now)
	authn := credentials.New(credentials.Options{Keys: st, Grants: oauth.New(oauth.Options{Store: st}), Now: func() time.Time { return now }})
	srv := httptest.NewServer(areas.Lane(lane.Options{Store: st, Authenticator: authn, Now: func() time.Time { return now }}))
	t.Cleanup(srv.Close)
	client := laneclient.New(srv.URL, nil, "mcp")
	w := &world{t: t, ctx: ctx, ss: st.Studio(studio.ID), zone: studio.TimeZone(), authn: authn, lane: client}
	w.today = now.In(w.zone).Format(time.DateOnly)
	w.weekStart = "2026-11-29"
	w.coachEx, w.traineeEx = *executor.New(client, tools.All()), *executor.New(client, tools.Trainee())

	// The coach with the most active trainees; the trainee of hers with
	// the most sessions.
	coaches, err := w.ss.ListCoaches(ctx, store.Page{Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range coaches.Items {
		mine := w.trainees(store.TraineeFilter{Status: domain.TraineeActive, CoachID: c.ID})
		if len(mine) > len(w.mine) {
			w.coach, w.mine = c, mine
		}
	}
	most := -1
	for _, tr := range w.mine {
		l, _ := w.ss.ListSessions(ctx, store.SessionFilter{TraineeID: tr.ID, Status: domain.SessionCompleted, Page: store.Page{Limit: 1}})
		if l.Total > most {
			w.trainee, most = tr, l.Total
		}
	}
	w.coachToken = grant(t, st, studio.ID, w.coach.ID, auth.ScopeStudioRead, auth.ScopeStudioWrite, auth.ScopeBilling)
	w.traineeToken = grant(t, st, studio.ID, w.trainee.ID, auth.TraineeScopes...)
	return w
}

// grant mints an OAuth access token of subject, as the authorization
// server would after consent.
func grant(t *testing.T, st store.Store, studioID, subject string, scopes ...string) string {
	ctx := context.Background()
	c, _, err := oauth.AddClient(ctx, st, now, store.ClientFromCLI, "Requests", []string{"http://127.0.0.1/cb"}, "none")
	if err != nil {
		t.Fatal(err)
	}
	g := &store.OAuthGrant{ID: ids.New(ids.OAuthGrant), StudioID: studioID, Subject: subject, ClientID: c.ID, Scopes: scopes, Resource: "http://127.0.0.1/mcp"}
	token := auth.AccessTokenPrefix + strings.TrimPrefix(ids.New(ids.Request), "req_") + strings.TrimPrefix(ids.New(ids.Request), "req_")
	h := sha256.Sum256([]byte(token))
	exp := time.Now().Add(time.Hour)
	if err := st.OAuth().CreateOAuthGrant(ctx, g, nil, []store.OAuthToken{{Hash: h[:], GrantID: g.ID, Kind: store.TokenAccess, CreatedAt: time.Now(), ExpiresAt: &exp}}); err != nil {
		t.Fatal(err)
	}
	return token
}

// The facts, read from the store.

func (w *world) trainees(f store.TraineeFilter) []domain.Trainee {
	f.Page = store.Page{Limit: 200}
	l, err := w.ss.SearchTrainees(w.ctx, f)
	if err != nil {
		w.t.Fatal(err)
	}
	return l.Items
}

func (w *world) sessions(traineeID, from, to, status string) []domain.Session {
	l, err := w.ss.ListSessions(w.ctx, store.SessionFilter{TraineeID: traineeID, From: from, To: to, Status: status, Page: store.Page{Limit: 200}})
	if err != nil {
		w.t.Fatal(err)
	}
	return l.Items
}

func name(tr domain.Trainee) string { return tr.FirstName + " " + tr.LastName }

// mineWhere are the names of the coach's active trainees for which keep holds.
func (w *world) mineWhere(keep func(domain.Trainee) bool) []string {
	var out []string
	for _, tr := range w.mine {
		if keep(tr) {
			out = append(out, name(tr))
		}
	}
	return out
}

// studioWhere are the names of the studio's active trainees for which keep holds.
func (w *world) studioWhere(keep func(domain.Trainee) bool) []string {
	var out []string
	for _, tr := range w.trainees(store.TraineeFilter{Status: domain.TraineeActive}) {
		if keep(tr) {
			out = append(out, name(tr))
		}
	}
	return out
}

// The checks.

// names checks that the answer names exactly want among the coach's
// trainees (by "name" fields) and says its total.
func names(answer string, want []string) error {
	var a struct {
		Total int `json:"total"`
		Items []struct {
			Name      string `json:"name"`
			FirstName string `json:"firstName"`
			LastName  string `json:"lastName"`
		} `json:"items"`
	}
	if err := decode(answer, &a); err != nil {
		return fmt.Errorf("not a list: %v", err)
	}
	var got []string
	for _, it := range a.Items {
		n := it.Name
		if n == "" {
			n = it.FirstName + " " + it.LastName
		}
		if !slices.Contains(got, n) {
			got = append(got, n)
		}
	}
	slices.Sort(got)
	want = slices.Clone(want)
	slices.Sort(want)
	if len(want) == 0 && len(got) == 0 {
		return nil
	}
	if !slices.Equal(got, want) {
		return fmt.Errorf("names %v, want %v", got, want)
	}
	return nil
}

// someNames is names where the demo must hold at least one.
func someNames(answer string, want []string) error {
	if len(want) == 0 {
		return fmt.Errorf("the demo holds no trainee to name")
	}
	return names(answer, want)
}

// contains checks that the answer holds each string.
func contains(answer string, want ...string) error {
	for _, s := range want {
		if !strings.Contains(answer, s) {
			return fmt.Errorf("the answer lacks %q", s)
		}
	}
	return nil
}

// firstID is the first item's id of a list answer (search_trainees).
func firstID(answer string) string {
	var a struct {
		Items []struct {
			ID string `json:"id"`
		} `json:"items"`
	}
	_ = json.Unmarshal([]byte(answer), &a)
	if len(a.Items) == 0 {
		return ""
	}
	return a.Items[0].ID
}

// find is the search a model makes to turn a name into a traineeId.
func find(tr domain.Trainee) step {
	return call("search_trainees", map[string]any{"q": name(tr)})
}

// then is a call on the trainee the previous search found.
func then(tool string, args map[string]any) step {
	return step{tool: tool, args: func(_ *world, prev []string) map[string]any {
		out := map[string]any{"traineeId": firstID(prev[len(prev)-1])}
		for k, v := range args {
			out[k] = v
		}
		return out
	}}
}

// day is the instant a local day begins in the studio.
func day(w *world, d string) time.Time {
	t, _ := time.ParseInLocation(time.DateOnly, d, w.zone)
	return t
}

func addDays(d string, n int) string {
	t, _ := time.Parse(time.DateOnly, d)
	return t.AddDate(0, 0, n).Format(time.DateOnly)
}
