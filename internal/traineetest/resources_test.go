package traineetest

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/otherwise/perform/internal/store"
)

var (
	traineeResources = []string{"perform://coach/persona", "perform://methodologies"}
	traineeTemplates = []string{"perform://sessions/{id}", "perform://programs/{id}"}
	traineePrompts   = []string{"weekly_plan_review", "session_debrief", "benchmark_check_in"}
)

// readEveryResource reads every listed resource and each template on one
// of the trainee's own records, failing t on an error or an empty read.
func readEveryResource(t *testing.T, cs *mcp.ClientSession, d *demoWorld) map[string]string {
	t.Helper()
	ctx := context.Background()
	list, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range list.Resources {
		uris = append(uris, r.URI)
	}
	for _, want := range traineeResources {
		if !slices.Contains(uris, want) {
			t.Fatalf("resources/list lacks %s: %v", want, uris)
		}
	}
	templates, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tp := range templates.ResourceTemplates {
		got = append(got, tp.URITemplate)
	}
	for _, want := range traineeTemplates {
		if !slices.Contains(got, want) {
			t.Fatalf("resources/templates/list lacks %s: %v", want, got)
		}
	}
	sessions, err := d.ss.ListSessions(ctx, store.SessionFilter{TraineeID: d.me.ID, Status: "completed", Page: store.Page{Limit: 1}})
	if err != nil || len(sessions.Items) == 0 {
		t.Fatalf("the trainee has no completed session (%v)", err)
	}
	programs, err := d.ss.ListPrograms(ctx, d.me.ID)
	if err != nil || len(programs) == 0 {
		t.Fatalf("the trainee has no program (%v)", err)
	}
	uris = append(uris, "perform://sessions/"+sessions.Items[0].ID, "perform://programs/"+programs[0].ID)
	out := map[string]string{}
	for _, uri := range uris {
		r, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			t.Fatalf("reading %s: %v", uri, err)
		}
		var b strings.Builder
		for _, c := range r.Contents {
			b.WriteString(c.Text)
		}
		if b.Len() == 0 {
			t.Fatalf("%s read empty", uri)
		}
		out[uri] = b.String()
	}
	// Each template read is of the record asked for.
	if !strings.Contains(out["perform://sessions/"+sessions.Items[0].ID], sessions.Items[0].ID) {
		t.Errorf("the session resource is not of %s: %.300s", sessions.Items[0].ID, out["perform://sessions/"+sessions.Items[0].ID])
	}
	return out
}

var promptArgs = regexp.MustCompile(`"name":"([^"]+)"`)

// getEveryPrompt gets every trainee prompt, with the arguments it names
// filled from the trainee's data where one is required, and answers the
// text of its messages.
func getEveryPrompt(t *testing.T, cs *mcp.ClientSession) map[string]string {
	t.Helper()
	ctx := context.Background()
	list, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, want := range traineePrompts {
		i := slices.IndexFunc(list.Prompts, func(p *mcp.Prompt) bool { return p.Name == want })
		if i < 0 {
			t.Fatalf("prompts/list lacks %s", want)
		}
		p := list.Prompts[i]
		if p.Description == "" {
			t.Errorf("prompt %s has no description", p.Name)
		}
		args := map[string]string{}
		for _, a := range p.Arguments {
			if a.Description == "" {
				t.Errorf("prompt %s's argument %s is not described", p.Name, a.Name)
			}
			if a.Required && a.Name == "benchmark" {
				args["benchmark"] = firstBenchmark(t, cs)
			}
		}
		r, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: p.Name, Arguments: args})
		if err != nil {
			t.Fatalf("getting prompt %s: %v", p.Name, err)
		}
		var b strings.Builder
		for _, m := range r.Messages {
			if tc, ok := m.Content.(*mcp.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		if len(r.Messages) == 0 || b.Len() < 40 {
			t.Fatalf("prompt %s framed nothing: %+v", p.Name, r)
		}
		out[p.Name] = b.String()
	}
	return out
}

// firstBenchmark is the name of the trainee's first benchmark.
func firstBenchmark(t *testing.T, cs *mcp.ClientSession) string {
	t.Helper()
	m := promptArgs.FindStringSubmatch(answer(call(t, cs, "get_benchmarks", nil)))
	if m == nil {
		t.Fatal("the trainee has no benchmark to check in on")
	}
	return m[1]
}

func TestResourcesReadAndPromptsGet(t *testing.T) {
	t.Parallel()
	d := newDemoWorld(t, nil)
	cs := d.connect(d.token(demoPhone, ""))
	for uri, body := range readEveryResource(t, cs, d) {
		t.Logf("%-50s %6d characters", uri, len(body))
	}
	for name, body := range getEveryPrompt(t, cs) {
		t.Logf("prompt %-24s %6d characters", name, len(body))
	}
}
