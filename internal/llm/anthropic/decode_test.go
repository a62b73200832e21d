package anthropic

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

const sampleAnswer = `{"id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet-4-5",
"content":[{"type":"thinking","thinking":"…","signature":"x"},{"type":"text","text":"Let me look."},
{"type":"tool_use","id":"toolu_01","name":"lookup","input":{"q":"Dana"}}],
"stop_reason":"tool_use","stop_sequence":null,
"usage":{"input_tokens":12,"output_tokens":30,"cache_creation_input_tokens":2048,"cache_read_input_tokens":4096,
"cache_creation":{"ephemeral_5m_input_tokens":48,"ephemeral_1h_input_tokens":2000},"service_tier":"standard"}}`

func TestDecodeMessage(t *testing.T) {
	m, err := decodeMessage([]byte(sampleAnswer))
	if err != nil {
		t.Fatal(err)
	}
	if m.ID != "msg_01" || m.StopReason != "tool_use" || m.StopSequence != nil || len(m.Content) != 3 {
		t.Fatalf("%+v", m)
	}
	if b := m.Content[2]; b.Type != "tool_use" || b.ID != "toolu_01" || b.Name != "lookup" || string(b.Input) != `{"q":"Dana"}` {
		t.Fatalf("%+v", b)
	}
	u := m.Usage
	if u.InputTokens != 12 || u.OutputTokens != 30 || u.CacheCreationInputTokens != 2048 || u.CacheReadInputTokens != 4096 ||
		u.CacheCreation.Ephemeral5m != 48 || u.CacheCreation.Ephemeral1h != 2000 {
		t.Fatalf("%+v", u)
	}
	for name, body := range map[string]string{
		"not json":           `<html>`,
		"an error envelope":  `{"type":"error","error":{"type":"api_error","message":"x"}}`,
		"a call without id":  `{"type":"message","content":[{"type":"tool_use","name":"x","input":{}}]}`,
		"input not object":   `{"type":"message","content":[{"type":"tool_use","id":"t","name":"x","input":"q"}]}`,
		"input missing":      `{"type":"message","content":[{"type":"tool_use","id":"t","name":"x"}]}`,
		"negative usage":     `{"type":"message","content":[],"usage":{"input_tokens":-1}}`,
		"a counter too wide": `{"type":"message","content":[],"usage":{"input_tokens":1e40}}`,
	} {
		if _, err := decodeMessage([]byte(body)); err == nil {
			t.Errorf("%s: decoded", name)
		}
	}
}

func TestAPIErrorFromTheEnvelope(t *testing.T) {
	res := &http.Response{StatusCode: 429, Header: http.Header{}}
	res.Header.Set("request-id", "req_011")
	res.Header.Set("retry-after", "7")
	e := apiError(res, []byte(`{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"},"request_id":"req_011"}`))
	if e.StatusCode != 429 || e.Type != "rate_limit_error" || !strings.HasPrefix(e.Message, "Number of request") || e.RequestID != "req_011" ||
		e.RetryAfter != 7*time.Second || !e.Retryable() {
		t.Fatalf("%+v", e)
	}
	res.Header.Set("x-should-retry", "false")
	res.Header.Set("retry-after-ms", "250")
	if e := apiError(res, nil); e.Retryable() || e.RetryAfter != 250*time.Millisecond {
		t.Fatalf("%+v", e)
	}
	// The request id from the body when the header is missing.
	if e := apiError(&http.Response{StatusCode: 500, Header: http.Header{}}, []byte(`{"type":"error","error":{"type":"api_error","message":"boom"},"request_id":"req_9"}`)); e.RequestID != "req_9" || !e.Retryable() {
		t.Fatalf("%+v", e)
	}
}

func TestRetryAfterForms(t *testing.T) {
	for v, want := range map[string]time.Duration{"0": 0, "1": time.Second, "1.5": 1500 * time.Millisecond, "-1": -1, "soon": -1, "1e300": -1} {
		h := http.Header{}
		h.Set("retry-after", v)
		got, ok := retryAfter(h)
		if (want < 0 && ok) || (want >= 0 && (!ok || got != want)) {
			t.Errorf("retry-after %q: %v %v", v, got, ok)
		}
	}
	h := http.Header{}
	h.Set("retry-after", time.Now().Add(time.Hour).UTC().Format(http.TimeFormat))
	if got, ok := retryAfter(h); !ok || got < 59*time.Minute || got > time.Hour {
		t.Errorf("an HTTP date: %v %v", got, ok)
	}
}

// The decoder takes any bytes without panicking, and what it accepts
// holds its promises: every tool call has an id, a name and an object for
// input, and no counter is negative.
func FuzzDecodeMessage(f *testing.F) {
	f.Add([]byte(sampleAnswer))
	f.Add([]byte(`{"type":"message","content":[{"type":"text","text":"hi"}],"usage":{"input_tokens":1,"output_tokens":1}}`))
	f.Add([]byte(`{"type":"message","content":[{"type":"tool_use","id":"t","name":"x","input":{}}]}`))
	f.Add([]byte(`{"type":"message","content":[{"type":"tool_use","id":"t","name":"x","input":  {"a":[1,{"b":null}]}}]}`))
	f.Add([]byte(`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`))
	f.Add([]byte(`{"type":"message","content":null,"usage":{"cache_creation":null}}`))
	f.Add([]byte(``))
	f.Fuzz(func(t *testing.T, body []byte) {
		m, err := decodeMessage(body)
		if err != nil {
			return
		}
		for _, b := range m.Content {
			if b.Type != "tool_use" {
				continue
			}
			var input map[string]any
			if b.ID == "" || b.Name == "" || json.Unmarshal(b.Input, &input) != nil || input == nil {
				t.Fatalf("accepted a tool call %+v", b)
			}
		}
		u := m.Usage
		if u.InputTokens < 0 || u.OutputTokens < 0 || u.CacheCreationInputTokens < 0 || u.CacheReadInputTokens < 0 ||
			u.CacheCreation.Ephemeral5m < 0 || u.CacheCreation.Ephemeral1h < 0 {
			t.Fatalf("accepted usage %+v", u)
		}
		if _, err := json.Marshal(m); err != nil {
			t.Fatalf("an accepted answer does not encode again: %v", err)
		}
	})
}
