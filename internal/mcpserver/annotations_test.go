package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/laneclient"
	"github.com/otherwise/perform/internal/mcpserver/mcptest"
	"github.com/otherwise/perform/internal/mcpserver/toolset"
	"github.com/otherwise/perform/internal/tools"
)

// hintNames are the annotations the directories require on every tool as
// JSON booleans (not left out, not null); idempotentHint too, which the
// server always sends.
var hintNames = []string{"readOnlyHint", "destructiveHint", "openWorldHint", "idempotentHint"}

// listedTools lists the tools of the set a credential sees through the SDK's
// own client on the gated endpoint, and the tools/list result as it came on
// the wire.
func listedTools(t *testing.T, endpoint, credential string) ([]*mcp.Tool, []map[string]json.RawMessage) {
	t.Helper()
	rec := &recorder{next: mcptest.Bearer{Token: credential}}
	client := mcp.NewClient(&mcp.Implementation{Name: "perform-annotations", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: rec}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for _, e := range rec.log {
		if !bytes.Contains(e.Request, []byte(`"tools/list"`)) {
			continue
		}
		var answer struct {
			Result struct {
				Tools []map[string]json.RawMessage `json:"tools"`
			} `json:"result"`
		}
		if err := json.Unmarshal(e.Response, &answer); err != nil {
			t.Fatalf("tools/list on the wire: %v: %s", err, e.Response)
		}
		return list.Tools, answer.Result.Tools
	}
	t.Fatal("no tools/list on the wire")
	return nil, nil
}

// definition is the tool of a set by name: the coach's, the trainee's or
// the agent platform's.
func definition(set, name string) (tools.Tool, bool) {
	switch set {
	case "coach":
		return tools.ByName(name)
	case "trainee":
		return tools.TraineeByName(name)
	}
	for _, tl := range tools.Platform() {
		if tl.Name == name {
			return tl, true
		}
	}
	return tools.TraineeByName(name) // a verified platform conversation's trainee tools
}

// Every tool of every set (coach, trainee, agent platform) carries a title
// and its readOnlyHint, destructiveHint, openWorldHint and idempotentHint
// as JSON booleans on the wire, as the directories require, and they are
// its definition's (read-only, destructive, open world, idempotent): the
// SDK's client lists each set from the real server, and the raw
// tools/list answer is read too, so a hint left out or null fails here.
func TestEveryToolCarriesItsTitleAndExplicitHints(t *testing.T) {
	t.Parallel()
	w := newTraineeWorld(t)
	f := w.f
	for _, set := range []struct{ name, credential string }{
		{"coach", f.A.Key}, {"trainee", w.token}, {"platform", platformKey(t, f, f.A.Key)},
	} {
		listed, wire := listedTools(t, f.URL+mcptest.GatedPath, set.credential)
		if len(listed) == 0 || len(wire) != len(listed) {
			t.Fatalf("%s set: %d tools listed, %d on the wire", set.name, len(listed), len(wire))
		}
		for _, raw := range wire {
			var name, title string
			_ = json.Unmarshal(raw["name"], &name)
			_ = json.Unmarshal(raw["title"], &title)
			if title == "" {
				t.Errorf("%s set: %s has no title", set.name, name)
			}
			var hints map[string]json.RawMessage
			_ = json.Unmarshal(raw["annotations"], &hints)
			for _, h := range hintNames {
				if v := string(hints[h]); v != "true" && v != "false" {
					t.Errorf("%s set: %s's %s is %q on the wire, not a boolean", set.name, name, h, v)
				}
			}
		}
		for _, tool := range listed {
			def, ok := definition(set.name, tool.Name)
			if !ok {
				t.Errorf("%s set lists %s, which no set defines", set.name, tool.Name)
				continue
			}
			checkHints(t, set.name, tool, def)
		}
	}
}

// An agent platform's verified conversation lists sign_out and the trainee
// tools: the same server (toolset, which /mcp serves for a platform key)
// gives each its hints.
func TestAVerifiedPlatformConversationsToolsCarryTheirHints(t *testing.T) {
	t.Parallel()
	server := toolset.NewServer(toolset.Options{
		Client:   laneclient.New("http://127.0.0.1:1", nil, "mcp"), // listing reaches no lane
		APIKey:   "pf_live_x",
		Platform: true,
		Trainee:  true,
		Scopes:   auth.TraineeScopes,
	})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "perform-annotations", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := len(tools.Platform()) + len(tools.Trainee())
	if len(list.Tools) != want {
		t.Fatalf("a verified conversation lists %d tools, want %d", len(list.Tools), want)
	}
	for _, tool := range list.Tools {
		def, ok := definition("platform", tool.Name)
		if !ok {
			t.Errorf("lists %s, which no set defines", tool.Name)
			continue
		}
		checkHints(t, "verified platform", tool, def)
	}
}

func checkHints(t *testing.T, set string, tool *mcp.Tool, def tools.Tool) {
	t.Helper()
	a := tool.Annotations
	switch {
	case tool.Title == "" || tool.Title != def.Title:
		t.Errorf("%s set: %s has the title %q, its definition %q", set, tool.Name, tool.Title, def.Title)
	case a == nil || a.DestructiveHint == nil || a.OpenWorldHint == nil:
		t.Errorf("%s set: %s leaves a hint to its default: %+v", set, tool.Name, a)
	case a.ReadOnlyHint != def.ReadOnly || *a.DestructiveHint != def.Destructive ||
		*a.OpenWorldHint != def.OpenWorld || a.IdempotentHint != def.Idempotent:
		t.Errorf("%s set: %s's hints %+v are not its definition's", set, tool.Name, a)
	case a.ReadOnlyHint && (!a.IdempotentHint || *a.DestructiveHint):
		t.Errorf("%s set: %s reads but is not idempotent, or is destructive", set, tool.Name)
	}
}

// The hints of a few tools, as their lane calls behave: reads are
// read-only and idempotent; a create adds (not idempotent, not
// destructive); a PATCH sets values (idempotent); archiving a trainee or
// completing a goal is an update another call undoes, not destructive;
// only start_verification reaches outside the studio (a code to a phone).
func TestNamedToolsCarryTheExpectedHints(t *testing.T) {
	t.Parallel()
	type hints struct{ readOnly, destructive, openWorld, idempotent bool }
	w := newTraineeWorld(t)
	f := w.f
	listed := map[string]map[string]*mcp.Tool{}
	for set, credential := range map[string]string{"coach": f.A.Key, "trainee": w.token, "platform": platformKey(t, f, f.A.Key)} {
		tl, _ := listedTools(t, f.URL+mcptest.GatedPath, credential)
		listed[set] = map[string]*mcp.Tool{}
		for _, tool := range tl {
			listed[set][tool.Name] = tool
		}
	}
	for _, c := range []struct {
		set, tool string
		want      hints
	}{
		{"coach", "search_trainees", hints{readOnly: true, idempotent: true}},
		{"coach", "roster", hints{readOnly: true, idempotent: true}},
		{"coach", "create_trainee", hints{}},
		{"coach", "update_trainee", hints{idempotent: true}},
		{"coach", "update_task", hints{idempotent: true}},
		{"coach", "assign_plan", hints{}},
		{"coach", "send_form", hints{}},
		{"coach", "modify_session", hints{}},
		{"trainee", "get_training_overview", hints{readOnly: true, idempotent: true}},
		{"trainee", "log_workout", hints{}},
		{"trainee", "manage_goals", hints{}},
		{"trainee", "update_training_profile", hints{idempotent: true}},
		{"platform", "get_studio_info", hints{readOnly: true, idempotent: true}},
		{"platform", "start_verification", hints{openWorld: true}},
		{"platform", "confirm_verification", hints{}},
	} {
		tool, ok := listed[c.set][c.tool]
		if !ok {
			t.Errorf("the %s set lists no %s", c.set, c.tool)
			continue
		}
		a := tool.Annotations
		if a == nil || a.DestructiveHint == nil || a.OpenWorldHint == nil {
			t.Errorf("%s: %+v", c.tool, a)
			continue
		}
		got := hints{a.ReadOnlyHint, *a.DestructiveHint, *a.OpenWorldHint, a.IdempotentHint}
		if got != c.want {
			t.Errorf("%s set: %s's hints are %+v, want %+v", c.set, c.tool, got, c.want)
		}
	}
	// sign_out is listed to a verified conversation only: its definition.
	signOut := toolset.Annotations(platformTool(t, tools.SignOutTool))
	if signOut.ReadOnlyHint || *signOut.DestructiveHint || *signOut.OpenWorldHint || !signOut.IdempotentHint {
		t.Errorf("sign_out's hints are %+v; it ends the conversation's verification, again and again alike", signOut)
	}
}

func platformTool(t *testing.T, name string) tools.Tool {
	t.Helper()
	for _, tl := range tools.Platform() {
		if tl.Name == name {
			return tl
		}
	}
	t.Fatalf("no platform tool %s", name)
	return tools.Tool{}
}
