package toolset

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A lane list read aloud: a one-line count first, three records of at
// most five plain fields, the true total kept and nextOffset moved to the
// first record left out, so the platform can page on.
func TestVoiceResultCutsAListAndKeepsItsTotal(t *testing.T) {
	var items []string
	for i := range 7 {
		items = append(items, fmt.Sprintf(`{"id":"ses_%d","date":"2026-11-0%d","title":"Run","durationMin":30,"rpe":6,"notes":"easy","sets":[{"reps":5}]}`, i, i+1))
	}
	data := `{"items":[` + strings.Join(items, ",") + `],"total":12,"nextOffset":17}`
	res := voiceResult("list_sessions", json.RawMessage(`{"offset":10}`), json.RawMessage(data))
	if res == nil || len(res.Content) != 2 {
		t.Fatalf("result: %+v", res)
	}
	summary := res.Content[0].(*mcp.TextContent).Text
	if summary != "12 sessions in all; the first 3 follow." {
		t.Errorf("summary %q", summary)
	}
	var out struct {
		Items      []map[string]any `json:"items"`
		Total      int              `json:"total"`
		NextOffset int              `json:"nextOffset"`
	}
	if err := json.Unmarshal([]byte(res.Content[1].(*mcp.TextContent).Text), &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Items) != 3 || out.Total != 12 || out.NextOffset != 13 || out.Items[0]["id"] != "ses_0" || len(out.Items[0]) != voiceFields || out.Items[0]["sets"] != nil {
		t.Errorf("shortened: %+v", out)
	}
	// A short list keeps the lane's nextOffset.
	res = voiceResult("list_sessions", nil, json.RawMessage(`{"items":[{"id":"a"}],"total":1,"nextOffset":null}`))
	if !strings.Contains(res.Content[1].(*mcp.TextContent).Text, `"nextOffset":null`) {
		t.Errorf("a short list: %s", res.Content[1].(*mcp.TextContent).Text)
	}
	// A sentence is its own summary; not an object: left as it is.
	res = voiceResult(ConfirmVerificationTool, nil, json.RawMessage(`{"verified":true,"message":"Verified:\nfrom now on."}`))
	if res.Content[0].(*mcp.TextContent).Text != "Verified: from now on." {
		t.Errorf("a verification's summary: %q", res.Content[0].(*mcp.TextContent).Text)
	}
	if voiceResult("x", nil, json.RawMessage(`[1,2]`)) != nil {
		t.Error("an array was reshaped")
	}
}
