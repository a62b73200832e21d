//go:build crash

package crashtest

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/testkit"

	"github.com/otherwise/perform/internal/mcpserver/mcptest"
	"github.com/otherwise/perform/internal/store"
)

var secretKey = hex.EncodeToString(bytes.Repeat([]byte{5}, 32))

// instance is one running `perform serve`; codes are the verification
// codes it wrote to its log (no WhatsApp gateway is configured).
type instance struct {
	*testkit.Served
	codes chan string
}

func start(t *testing.T, databaseURL, name string) *instance {
	t.Helper()
	codes := make(chan string, 8)
	served := testkit.Serve(t, name, []string{"PERFORM_DATABASE_URL=" + databaseURL, "PERFORM_SECRET_KEY=" + secretKey,
		"PERFORM_AGENT_PLATFORM_CALLBACK_LOOPBACK=1"}, func(line map[string]any) {
		if code, ok := line["code"].(string); ok && strings.HasPrefix(fmt.Sprint(line["msg"]), "agent platform verification code") {
			codes <- code
		}
	})
	return &instance{Served: served, codes: codes}
}

// lane POSTs to the lane with a studio key and answers the data.
func (i *instance) lane(t *testing.T, key, path string, body any) map[string]any {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, i.URL+"/v1/automation"+path, bytes.NewReader(b))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out struct {
		Data map[string]any `json:"data"`
	}
	if resp.StatusCode/100 != 2 || json.Unmarshal(raw, &out) != nil {
		t.Fatalf("POST %s: %d %s", path, resp.StatusCode, raw)
	}
	return out.Data
}

// tool calls an MCP tool on /mcp as the agent platform does, and answers
// the raw answer.
func (i *instance) tool(t *testing.T, key string, headers map[string]string, name string, args map[string]any) string {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{"name": name, "arguments": args}})
	req, _ := http.NewRequest(http.MethodPost, i.URL+"/mcp", bytes.NewReader(b))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("%s: %d %s", name, resp.StatusCode, raw)
	}
	return string(raw)
}

// callback is one request the fake platform took.
type callback struct {
	authenticated bool
	auth          string
}

// The platform's callback endpoint stalls on the first callback; the
// server is killed after confirm_verification answered, and the callback,
// a River job inserted with the verification, is delivered by the
// restarted server.
func TestACallbackSurvivesAKilledServer(t *testing.T) {
	dbURL := filepath.Join(t.TempDir(), "perform.db")
	st, err := store.Open(context.Background(), dbURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	studioKey := mcptest.NewKey(t, st, "Crash Studio", "crash")
	st.Close()

	var mu sync.Mutex
	var got []callback
	stall := make(chan struct{})
	stalled := make(chan struct{}, 1)
	platform := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Authenticated bool `json:"authenticated"`
		}
		_ = json.NewDecoder(r.Body).Decode(&body)
		mu.Lock()
		got = append(got, callback{body.Authenticated, r.Header.Get("Authorization")})
		first := len(got) == 1
		mu.Unlock()
		if first {
			stalled <- struct{}{}
			select { // the first callback never gets an answer
			case <-stall:
			case <-r.Context().Done():
			}
			return
		}
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte(`{"ok":true}`))
	}))
	defer platform.Close()
	defer close(stall)

	first := start(t, dbURL, "first")
	first.lane(t, studioKey, "/trainees", map[string]any{"firstName": "Dana", "lastName": "Levi", "phone": "+972501000001"})
	platformKey, _ := first.lane(t, studioKey, "/keys", map[string]any{"name": "Perfox", "kind": "platform"})["key"].(string)
	headers := map[string]string{
		"X-Sa-Conversation-Id": "conv_crash", "X-Sa-Tenant-Id": "ten_1", "X-Sa-End-User-Phone": "+972501000001",
		"X-Sa-Auth-Callback": platform.URL + "/conversations/conv_crash/auth-context", "X-Sa-Auth-Callback-Token": "cb-token",
	}
	first.tool(t, platformKey, headers, "start_verification", map[string]any{})
	var code string
	select {
	case code = <-first.codes:
	case <-time.After(30 * time.Second):
		t.Fatal("no verification code was written to the log")
	}
	if answer := first.tool(t, platformKey, headers, "confirm_verification", map[string]any{"code": code}); !strings.Contains(answer, `\"verified\":true`) && !strings.Contains(answer, `"verified":true`) {
		t.Fatalf("confirm_verification: %s", answer)
	}
	select {
	case <-stalled:
	case <-time.After(30 * time.Second):
		t.Fatal("the callback never reached the platform")
	}
	first.Kill()

	start(t, dbURL, "second")
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		mu.Lock()
		n := len(got)
		var last callback
		if n > 0 {
			last = got[n-1]
		}
		mu.Unlock()
		if n >= 2 {
			if !last.authenticated || last.auth != "Bearer cb-token" {
				t.Fatalf("the callback after the restart: %+v", last)
			}
			t.Logf("delivered after the restart (%d requests in all)", n)
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatal("the callback was not delivered after the restart")
}
