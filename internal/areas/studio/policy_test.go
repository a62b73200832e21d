package studio_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/lane/lanetest"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/laneclient"
	"github.com/otherwise/perform/internal/ratelimit"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/tools"
)

// limiters are the in-memory limiter and, when PERFORM_TEST_REDIS_URL is
// set, the Redis one (under a prefix of its own), each allowing max.
func limiters(t *testing.T, max int) map[string]ratelimit.Limiter {
	out := map[string]ratelimit.Limiter{"memory": ratelimit.NewMemory(max, time.Minute)}
	url := os.Getenv("PERFORM_TEST_REDIS_URL")
	if url == "" {
		t.Log("PERFORM_TEST_REDIS_URL is not set: the Redis limiter is not tested")
		return out
	}
	opts, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(opts)
	t.Cleanup(func() { c.Close() })
	var b [8]byte
	_, _ = rand.Read(b[:])
	out["redis"] = ratelimit.NewRedis(c, max, time.Minute).WithPrefix("perform-test:" + hex.EncodeToString(b[:]) + ":")
	return out
}

// Inventing a fresh token per request buys no budget: missing and refused
// credentials count against the address, and a real key has its own budget.
func TestTokenRotationIsLimited(t *testing.T) {
	st := kit.OpenSQLite(t)
	for name, lim := range limiters(t, 5) {
		t.Run(name, func(t *testing.T) {
			e := lanetest.New(t, st, kit.Options{Limiter: lim})
			_, key, _ := e.Studio("rotate-"+name, "free")
			statuses := map[int]int{}
			for i := range 12 {
				token := auth.NewKey() // well formed, unknown: one key lookup each
				if i%4 == 3 {
					token = "" // no credential at all counts the same
				}
				a := e.Call(token, "GET", "/validate", nil)
				statuses[a.Status]++
				if i >= 5 && (a.Status != http.StatusTooManyRequests || a.Code() != "RATE_LIMITED" || a.Header.Get("Retry-After") == "") {
					t.Fatalf("request %d with a made-up token: %d %s; want 429 once the address's budget is spent", i+1, a.Status, a.Raw)
				}
			}
			if statuses[401] != 5 || statuses[429] != 7 {
				t.Errorf("statuses %v; want 5 × 401 then 429", statuses)
			}
			// The studio's key is limited on its own credential, not the address.
			for range 5 {
				e.OK(200, e.Call(key, "GET", "/validate", nil))
			}
			e.Fails(429, "RATE_LIMITED", e.Call(key, "GET", "/validate", nil))
		})
	}
}

// X-Perform-Source from the network is not believed: the task, the outbox
// row and the audit say api. Perform's own in-process surfaces are known
// from the context their transport marks: mcp and agent.
func TestSourceComesOnlyFromPerformsSurfaces(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		e := lanetest.New(t, st)
		f := e.Seed("source")
		ctx := context.Background()

		var spoofTask domain.Task
		spoof := e.OK(201, e.Call(f.Key, "POST", "/tasks", map[string]any{"title": "spoofed"}, auth.SourceHeader, "agent"))
		spoof.Into(t, &spoofTask)
		var spoofTrainee domain.Trainee
		e.OK(201, e.Call(f.Key, "POST", "/trainees", map[string]any{"firstName": "S", "lastName": "Poof", "phone": "0541239999", "notify": true}, auth.SourceHeader, "mcp")).Into(t, &spoofTrainee)

		got := map[string]string{"network": spoofTask.Source}
		for _, source := range []string{domain.SourceMCP, domain.SourceAgent} {
			c := laneclient.New("http://perform.internal", laneclient.HandlerTransport(e.Lane), source)
			data, err := c.Do(ctx, f.Key, tools.Request{Method: "POST", Path: "/tasks", Body: map[string]any{"title": "from " + source}})
			if err != nil {
				t.Fatalf("%s: %v", source, err)
			}
			var task domain.Task
			if err := json.Unmarshal(data, &task); err != nil {
				t.Fatal(err)
			}
			got[source] = task.Source
			stored, err := st.Studio(f.Studio.ID).GetTask(ctx, task.ID)
			if err != nil || stored.Source != source {
				t.Errorf("%s: stored task source %q, %v", source, stored.Source, err)
			}
		}
		if got["network"] != "api" || got["mcp"] != "mcp" || got["agent"] != "agent" {
			t.Errorf("task sources %v; want network api, mcp mcp, agent agent", got)
		}
		if stored, _ := st.Studio(f.Studio.ID).GetTask(ctx, spoofTask.ID); stored.Source != "api" {
			t.Errorf("stored spoofed task source %q", stored.Source)
		}
		for _, n := range e.Notifications(f.Studio.ID) {
			if n.TraineeID == spoofTrainee.ID && n.Source != "api" {
				t.Errorf("outbox row %+v believed the header", n)
			}
		}
		e.Audit.Flush()
		l, err := st.ListAudit(ctx, f.Studio.ID, store.Page{Limit: 200})
		if err != nil {
			t.Fatal(err)
		}
		sources := map[string]int{}
		for _, ev := range l.Items {
			sources[ev.Source]++
			if ev.RequestID == spoof.RequestID && ev.Source != "api" {
				t.Errorf("audit row of the spoofed request: %+v", ev)
			}
		}
		if sources["mcp"] != 1 || sources["agent"] != 1 {
			t.Errorf("audit sources %v; want one mcp and one agent row", sources)
		}
	})
}
