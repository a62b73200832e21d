package executor_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"testing"

	"github.com/otherwise/perform/internal/areas"
	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/demo/demotest"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/laneclient"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/tools"
	"github.com/otherwise/perform/internal/tools/executor"
)

// maxAnswerTokens bounds what any read tool answers with its default
// arguments, counted as characters / 4.
const maxAnswerTokens = 2000

// Every read tool, called with only its required arguments on the demo
// studio, answers at most maxAnswerTokens; a trainee's tools are measured on
// the trainee with the most history.
func TestDefaultAnswersFitAModel(t *testing.T) {
	ctx := context.Background()
	st, studio := demotest.Open(t)
	key := auth.NewKey()
	k := domain.APIKey{ID: ids.New(ids.APIKey), StudioID: studio.ID, Name: "size", Prefix: auth.Display(key), Hash: auth.Hash(key)}
	if err := st.CreateAPIKey(ctx, &k); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(areas.Lane(lane.Options{Store: st}))
	t.Cleanup(srv.Close)
	ex := executor.New(laneclient.New(srv.URL, nil, "mcp"), tools.All())

	// The trainee with the most weigh-ins and responses.
	ss := st.Studio(studio.ID)
	trainees, err := ss.SearchTrainees(ctx, store.TraineeFilter{Page: store.Page{Limit: 200}})
	if err != nil {
		t.Fatal(err)
	}
	var busiest domain.Trainee
	most := -1
	for _, tr := range trainees.Items {
		w, _ := ss.ListWeights(ctx, tr.ID, store.Page{Limit: 1})
		r, _ := ss.ListFormResponses(ctx, tr.ID, store.Page{Limit: 1})
		if n := w.Total + r.Total; n > most {
			busiest, most = tr, n
		}
	}
	required := map[string]any{"traineeId": busiest.ID, "phone": busiest.Phone}
	if coaches, err := ss.ListCoaches(ctx, store.Page{Limit: 1}); err == nil && len(coaches.Items) > 0 {
		required["coachId"] = coaches.Items[0].ID
	}
	// One session's detail is measured on the trainee's latest session.
	if sessions, err := ss.ListSessions(ctx, store.SessionFilter{TraineeID: busiest.ID, Page: store.Page{Limit: 1}}); err == nil && len(sessions.Items) > 0 {
		required["sessionId"] = sessions.Items[0].ID
	}

tools:
	for _, tool := range tools.All() {
		if !tool.ReadOnly {
			continue
		}
		args := map[string]any{}
		if tool.Name == "roster" {
			// Every question, each with its default window.
			for _, question := range domain.RosterQuestions {
				raw, _ := json.Marshal(map[string]any{"question": question})
				r := ex.Run(ctx, executor.Call{Tool: tool.Name, Args: raw, APIKey: key})
				if r.Failed() {
					t.Errorf("%s %s: %s", tool.Name, raw, r.Text())
					continue
				}
				tokens := len(r.Text()) / 4
				t.Logf("%-28s %5d tokens", "roster "+question, tokens)
				if tokens > maxAnswerTokens {
					t.Errorf("roster %s with default arguments answers %d tokens (characters/4); at most %d", question, tokens, maxAnswerTokens)
				}
			}
			continue
		}
		for _, name := range tool.InputSchema.Required {
			v, ok := required[name]
			if !ok && name == "sessionId" {
				t.Logf("%s: the demo studio has no session to read", tool.Name)
				continue tools
			}
			if !ok {
				t.Fatalf("%s requires %s, which this test does not know", tool.Name, name)
			}
			args[name] = v
		}
		raw, _ := json.Marshal(args)
		r := ex.Run(ctx, executor.Call{Tool: tool.Name, Args: raw, APIKey: key})
		if r.Failed() {
			t.Errorf("%s %s: %s", tool.Name, raw, r.Text())
			continue
		}
		tokens := len(r.Text()) / 4
		t.Logf("%-28s %5d tokens", tool.Name, tokens)
		if tokens > maxAnswerTokens {
			t.Errorf("%s with default arguments answers %d tokens (characters/4); at most %d", tool.Name, tokens, maxAnswerTokens)
		}
	}
}
