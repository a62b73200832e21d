package laneclient_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/areas"
	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/laneclient"
	"github.com/otherwise/perform/internal/ratelimit"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/store/storetest"
)

// Request.IdempotencyKey reaches the real lane as the Idempotency-Key
// header over both transports: a repeated create with one key makes one
// task, and an empty key sends no header.
func TestDoSendsTheIdempotencyKey(t *testing.T) {
	ctx := context.Background()
	st := storetest.OpenSQLite(t)
	l := areas.Lane(lane.Options{Store: st})
	srv := httptest.NewServer(l)
	t.Cleanup(srv.Close)
	clients := map[string]*laneclient.Client{
		"in-process": laneclient.New("http://perform.internal", laneclient.HandlerTransport(l), domain.SourceAgent),
		"network":    laneclient.New(srv.URL, nil, domain.SourceAgent),
	}
	for name, c := range clients {
		t.Run(name, func(t *testing.T) {
			s := domain.Studio{Name: "Client " + name, Slug: "client-" + name}
			if err := st.CreateStudio(ctx, &s); err != nil {
				t.Fatal(err)
			}
			key := auth.NewKey()
			k := domain.APIKey{ID: ids.New(ids.APIKey), StudioID: s.ID, Name: "test", Prefix: auth.Display(key), Hash: auth.Hash(key)}
			if err := st.CreateAPIKey(ctx, &k); err != nil {
				t.Fatal(err)
			}
			create := func(idemKey string) string {
				t.Helper()
				data, err := c.Do(ctx, key, laneclient.Request{Method: http.MethodPost, Path: "/tasks", Body: map[string]any{"title": "Call"}, IdempotencyKey: idemKey})
				if err != nil {
					t.Fatal(err)
				}
				return string(data)
			}
			first := create("k-" + name)
			if again := create("k-" + name); again != first {
				t.Fatalf("repeat with the key answered %s; want %s", again, first)
			}
			if n := tasks(t, st, s.ID); n != 1 {
				t.Fatalf("%d tasks after a repeat with one key; want 1", n)
			}
			create("")
			create("")
			if n := tasks(t, st, s.ID); n != 3 {
				t.Fatalf("%d tasks; want 3: no key, no deduplication", n)
			}
		})
	}
}

func tasks(t *testing.T, st store.Store, studioID string) int {
	t.Helper()
	l, err := st.Studio(studioID).ListTasks(context.Background(), store.TaskFilter{Page: store.Page{Limit: 10}})
	if err != nil {
		t.Fatal(err)
	}
	return l.Total
}

// A lane refusal keeps its code, and a limit's Retry-After, over both
// transports.
func TestALimitsErrorSaysWhenToTryAgain(t *testing.T) {
	ctx := context.Background()
	st := storetest.OpenSQLite(t)
	l := areas.Lane(lane.Options{Store: st, Limiter: ratelimit.NewMemory(1, time.Minute)})
	srv := httptest.NewServer(l)
	t.Cleanup(srv.Close)
	clients := map[string]*laneclient.Client{
		"in-process": laneclient.New("http://perform.internal", laneclient.HandlerTransport(l), domain.SourceAgent),
		"network":    laneclient.New(srv.URL, nil, domain.SourceAgent),
	}
	for name, c := range clients {
		t.Run(name, func(t *testing.T) {
			s := domain.Studio{Name: "Limit " + name, Slug: "limit-" + name}
			if err := st.CreateStudio(ctx, &s); err != nil {
				t.Fatal(err)
			}
			key := auth.NewKey()
			if err := st.CreateAPIKey(ctx, &domain.APIKey{ID: ids.New(ids.APIKey), StudioID: s.ID, Name: "test", Prefix: auth.Display(key), Hash: auth.Hash(key)}); err != nil {
				t.Fatal(err)
			}
			if _, err := c.Do(ctx, key, laneclient.Request{Method: http.MethodGet, Path: "/rpc/tags"}); err != nil {
				t.Fatal(err)
			}
			_, err := c.Do(ctx, key, laneclient.Request{Method: http.MethodGet, Path: "/rpc/tags"})
			var e *laneclient.Error
			if !errors.As(err, &e) || e.Status != http.StatusTooManyRequests || e.Code != "RATE_LIMITED" || e.RetryAfterSeconds < 1 || e.RetryAfterSeconds > 60 {
				t.Fatalf("second call over a limit of 1: %#v", err)
			}
		})
	}
}
