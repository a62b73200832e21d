package mcpserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/mcpserver/mcptest"
	"github.com/otherwise/perform/internal/mcpserver/toolset"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/tools"
)

// platformKey mints an agent platform's key for the studio holding key,
// through the lane as the studio's own app does.
func platformKey(t *testing.T, f *mcptest.Fixture, key string) string {
	t.Helper()
	data, err := f.App.Do(context.Background(), key, tools.Request{Method: http.MethodPost, Path: "/keys", Body: map[string]any{"name": "Perfox", "kind": "platform"}})
	if err != nil {
		t.Fatalf("create a platform key: %v", err)
	}
	var out struct {
		Key  string `json:"key"`
		Kind string `json:"kind"`
	}
	if err := json.Unmarshal(data, &out); err != nil || out.Kind != "platform_key" {
		t.Fatalf("create a platform key: %s", data)
	}
	return out.Key
}

// A platform key lists only the public tools, never a coach or trainee
// tool; the public tool answers the studio's offer; a coach tool called
// by name is not there.
func TestAPlatformKeySeesOnlyThePublicSet(t *testing.T) {
	t.Parallel()
	f := mcptest.New(t)
	cs := mcptest.Connect(t, f.URL+mcptest.GatedPath, platformKey(t, f, f.A.Key))
	if got := toolNames(t, cs); !slices.Equal(got, toolset.PlatformTools) {
		t.Fatalf("a platform key lists %v; want only %v", got, toolset.PlatformTools)
	}
	res := mcptest.Call(t, cs, toolset.StudioInfoTool, map[string]any{})
	text := mcptest.Text(res)
	if res.IsError || !strings.Contains(text, `"studio":"Studio Aleph"`) || !strings.Contains(text, `"name":"Gold"`) || !strings.Contains(text, `"name":"Strength 101"`) {
		t.Fatalf("get_studio_info: %s", text)
	}
	for _, leak := range []string{f.A.TraineeID, f.A.TraineeLastName, "Noa aleph", f.A.ProductID, "Studio Bet"} {
		if strings.Contains(text, leak) {
			t.Errorf("the public offer holds %q: %s", leak, text)
		}
	}
	// A coach tool is not there at all: the protocol's invalid params.
	for _, name := range []string{"search_trainees", "get_trainee"} {
		if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{}}); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s called with a platform key: %v", name, err)
		}
	}
	// A trainee tool is there after verification: the call fails with the
	// sentence saying how to verify, and reads nothing.
	for _, name := range []string{"get_my_plan", "get_training_overview", "log_workout", toolset.SignOutTool} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{}})
		if err != nil {
			t.Fatalf("%s called by an anonymous conversation: protocol error %v; want a tool error saying to verify", name, err)
		}
		text := mcptest.Text(res)
		if !res.IsError || strings.Contains(text, f.A.TraineeLastName) {
			t.Errorf("%s called by an anonymous conversation: %s", name, text)
		}
		if name == toolset.SignOutTool {
			if !strings.Contains(text, "not verified") {
				t.Errorf("sign_out unverified: %s", text)
			}
			continue
		}
		if !strings.Contains(text, "start_verification") || !strings.Contains(text, "confirm_verification") || !strings.HasPrefix(text, name+" ") {
			t.Errorf("%s called by an anonymous conversation says: %s; want it to name start_verification and confirm_verification", name, text)
		}
		var sc toolset.ErrorContent
		b, _ := json.Marshal(res.StructuredContent)
		if json.Unmarshal(b, &sc) != nil || sc.Error.Code != toolset.CodeVerificationRequired || sc.Error.Message != text {
			t.Errorf("%s: structured error %s", name, b)
		}
	}
}

// The seed's raw client: initialize with protocolVersion 2024-11-05 and
// capabilities {}, then tools/list and tools/call in plain POSTs that echo
// no session id, each carrying the identity headers. A real trainee's
// phone in X-Sa-End-User-Phone unlocks nothing.
func TestAPlatformRawClientWithSpoofedIdentity(t *testing.T) {
	t.Parallel()
	f := mcptest.New(t)
	key := platformKey(t, f, f.A.Key)
	url := f.URL + mcptest.GatedPath
	identity := map[string]string{
		"X-Sa-End-User-Name": "Dana", "X-Sa-End-User-Phone": f.A.Phone, "X-Sa-End-User-External-Id": f.A.TraineeID,
		"X-Sa-End-User-Attributes": "{not json", "X-Sa-Conversation-Id": "conv_1", "X-Sa-Channel": "whatsapp", "X-Sa-Tenant-Id": "ten_1",
	}
	init := post(t, "POST", url, key, initialize("2024-11-05"), identity)
	var ir struct {
		ProtocolVersion string `json:"protocolVersion"`
		Capabilities    struct {
			Tools *struct{} `json:"tools"`
		} `json:"capabilities"`
		Instructions string `json:"instructions"`
	}
	if init.status != 200 || json.Unmarshal(init.Result, &ir) != nil || ir.ProtocolVersion != "2024-11-05" || ir.Capabilities.Tools == nil || !strings.Contains(ir.Instructions, "get_studio_info") {
		t.Fatalf("initialize: %d %s", init.status, init.Result)
	}
	list := post(t, "POST", url, key, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, identity)
	var lr struct {
		Tools []struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
	}
	if json.Unmarshal(list.Result, &lr) != nil || len(lr.Tools) != len(toolset.PlatformTools) || lr.Tools[1].Name != toolset.StudioInfoTool || lr.Tools[1].Description == "" || !strings.Contains(string(lr.Tools[1].InputSchema), `"object"`) {
		t.Fatalf("tools/list: %s", list.Result)
	}
	call := post(t, "POST", url, key, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_studio_info","arguments":{}}}`, identity)
	var cr struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if json.Unmarshal(call.Result, &cr) != nil || cr.IsError || len(cr.Content) != 1 || cr.Content[0].Type != "text" || !strings.Contains(cr.Content[0].Text, "Studio Aleph") {
		t.Fatalf("tools/call: %s", call.Result)
	}
	if strings.Contains(cr.Content[0].Text, f.A.TraineeLastName) || strings.Contains(cr.Content[0].Text, f.A.Phone) {
		t.Errorf("a spoofed phone header read a trainee's data: %s", cr.Content[0].Text)
	}
	// The claims are in the audit of the lane call, the malformed
	// attributes left out; a studio key's call sending the same headers
	// records none.
	post(t, "POST", url, f.A.Key, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"list_plans","arguments":{}}}`, identity)
	f.Audit.Flush()
	studio, err := f.Store.StudioBySlug(context.Background(), f.A.Slug)
	if err != nil {
		t.Fatal(err)
	}
	events, err := f.Store.ListAudit(context.Background(), studio.ID, store.Page{Limit: 200})
	if err != nil {
		t.Fatal(err)
	}
	var platformCalls, studioCalls int
	for _, e := range events.Items {
		switch e.Route {
		case "GET /v1/automation/public/studio":
			platformCalls++
			var c auth.Conversation
			if json.Unmarshal(e.Conversation, &c) != nil || c.ID != "conv_1" || c.TenantID != "ten_1" || c.Channel != "whatsapp" || c.Phone != f.A.Phone || c.ExternalID != f.A.TraineeID || c.Attributes != nil {
				t.Errorf("audited conversation: %s", e.Conversation)
			}
		case "GET /v1/automation/products":
			studioCalls++
			if len(e.Conversation) != 0 {
				t.Errorf("a studio key's call recorded claims: %s", e.Conversation)
			}
		}
	}
	if platformCalls != 1 || studioCalls != 1 {
		t.Fatalf("audited %d platform and %d studio calls; want 1 and 1", platformCalls, studioCalls)
	}
	spoofed := post(t, "POST", url, key, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"get_my_plan","arguments":{}}}`, identity)
	if spoofed.Error != nil || !strings.Contains(string(spoofed.Result), `"isError":true`) || !strings.Contains(string(spoofed.Result), "start_verification") ||
		strings.Contains(string(spoofed.Result), f.A.TraineeLastName) {
		t.Fatalf("get_my_plan with a spoofed phone: %+v %s", spoofed.Error, spoofed.Result)
	}
}
