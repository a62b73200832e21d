package laneclient_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/areas"
	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/laneclient"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/store/storetest"
)

// A caller decides by the lane's code, with errors.Is: a key still held by
// an earlier request (a client's own key, or one the tools derive) is
// ErrInProgress, over both transports; another conflict (a trainee's phone
// taken) is ErrConflict and not in progress; an id of another studio is
// ErrNotFound. The real lane answers each.
func TestErrorsAreDecidedByTheLanesCode(t *testing.T) {
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
			s := domain.Studio{Name: "Codes " + name, Slug: "codes-" + name}
			if err := st.CreateStudio(ctx, &s); err != nil {
				t.Fatal(err)
			}
			key := auth.NewKey()
			if err := st.CreateAPIKey(ctx, &domain.APIKey{ID: ids.New(ids.APIKey), StudioID: s.ID, Name: "test", Prefix: auth.Display(key), Hash: auth.Hash(key)}); err != nil {
				t.Fatal(err)
			}
			for _, held := range []string{"proposal:prp_1", lane.RepeatKeyPrefix + "abc:def"} {
				// A process killed inside the call left the key claimed.
				if _, started, err := st.Studio(s.ID).BeginIdempotent(ctx, held, "h", time.Now(), time.Minute, store.IdempotencyTTL); err != nil || !started {
					t.Fatalf("claim %s: %v %v", held, started, err)
				}
				_, err := c.Do(ctx, key, laneclient.Request{Method: http.MethodPost, Path: "/tasks", Body: map[string]any{"title": "Call"}, IdempotencyKey: held})
				var e *laneclient.Error
				if !errors.Is(err, laneclient.ErrInProgress) || !errors.Is(err, laneclient.ErrConflict) || !errors.As(err, &e) || e.Status != http.StatusConflict || e.Code != laneclient.CodeInProgress || e.RetryAfterSeconds != 2 {
					t.Fatalf("a write under the held key %s: %#v; want ErrInProgress", held, err)
				}
				if errors.Is(err, laneclient.ErrNotFound) {
					t.Fatalf("in progress is also not found: %v", err)
				}
			}
			phone := "+972501234567"
			if _, err := c.Do(ctx, key, laneclient.Request{Method: http.MethodPost, Path: "/trainees", Body: map[string]any{"firstName": "Dana", "lastName": "Levi", "phone": phone}}); err != nil {
				t.Fatal(err)
			}
			_, err := c.Do(ctx, key, laneclient.Request{Method: http.MethodPost, Path: "/trainees", Body: map[string]any{"firstName": "Dana", "lastName": "Levi", "phone": phone}, IdempotencyKey: "k2"})
			if !errors.Is(err, laneclient.ErrConflict) || errors.Is(err, laneclient.ErrInProgress) {
				t.Fatalf("a taken phone: %#v; want ErrConflict only", err)
			}
			_, err = c.Do(ctx, key, laneclient.Request{Method: http.MethodGet, Path: "/trainees/" + ids.New(ids.Trainee)})
			if !errors.Is(err, laneclient.ErrNotFound) || errors.Is(err, laneclient.ErrConflict) {
				t.Fatalf("an unknown trainee: %#v; want ErrNotFound", err)
			}
		})
	}
}

// The client decides by the envelope's code alone: a 409 CONFLICT whose
// sentence reads like a key in progress is a conflict, and only the code
// IDEMPOTENCY_IN_PROGRESS is ErrInProgress, with its Retry-After.
func TestInProgressIsTheCodeNotTheSentence(t *testing.T) {
	answers := map[string]string{
		"/conflict":    `{"ok":false,"error":{"code":"CONFLICT","message":"A request with Idempotency-Key k is still being processed; retry in a few seconds."}}`,
		"/in-progress": `{"ok":false,"error":{"code":"IDEMPOTENCY_IN_PROGRESS","message":"Wait."}}`,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Retry-After", "2")
		w.WriteHeader(http.StatusConflict)
		_, _ = w.Write([]byte(answers[strings.TrimPrefix(r.URL.Path, "/v1/automation")]))
	}))
	t.Cleanup(srv.Close)
	c := laneclient.New(srv.URL, nil, domain.SourceAgent)
	_, err := c.Do(context.Background(), "pf_live_x", laneclient.Request{Method: http.MethodPost, Path: "/conflict", Body: map[string]any{}})
	if !errors.Is(err, laneclient.ErrConflict) || errors.Is(err, laneclient.ErrInProgress) {
		t.Fatalf("CONFLICT with an in-progress sentence: %#v; want ErrConflict only", err)
	}
	_, err = c.Do(context.Background(), "pf_live_x", laneclient.Request{Method: http.MethodPost, Path: "/in-progress", Body: map[string]any{}})
	var e *laneclient.Error
	if !errors.Is(err, laneclient.ErrInProgress) || !errors.Is(err, laneclient.ErrConflict) || !errors.As(err, &e) || e.RetryAfterSeconds != 2 {
		t.Fatalf("IDEMPOTENCY_IN_PROGRESS: %#v; want ErrInProgress, Retry-After 2", err)
	}
}
