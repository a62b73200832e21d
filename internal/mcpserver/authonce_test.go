package mcpserver_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/areas"
	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/auth/credentials"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/laneclient"
	"github.com/otherwise/perform/internal/mcpserver"
	"github.com/otherwise/perform/internal/mcpserver/mcptest"
)

// countingAuth counts the credentials it reads.
type countingAuth struct {
	next  auth.Authenticator
	calls atomic.Int64
}

func (c *countingAuth) Authenticate(ctx context.Context, r *http.Request) (*auth.Principal, error) {
	c.calls.Add(1)
	return c.next.Authenticate(ctx, r)
}

// A tool call through the gate reads its credential once: the lane call it
// makes in process takes the principal the gate authenticated for the same
// token. The next message is authenticated afresh, so a key revoked between
// two messages stops the second.
func TestGatedToolCallAuthenticatesOnce(t *testing.T) {
	t.Parallel()
	f := mcptest.New(t)
	authn := &countingAuth{next: credentials.New(credentials.Options{Keys: f.Store})}
	ln := areas.Lane(lane.Options{Store: f.Store, Logger: mcptest.Quiet(), Authenticator: authn})
	gate := mcpserver.Gate{Authenticator: authn, Logger: mcptest.Quiet()}
	srv := httptest.NewServer(gate.Wrap(mcpserver.New(mcpserver.Options{
		Client: laneclient.New("http://perform.internal", laneclient.HandlerTransport(ln), "mcp"), Logger: mcptest.Quiet(),
	})))
	t.Cleanup(srv.Close)

	a := post(t, "POST", srv.URL, f.A.Key, getTraineeCall(f.A.TraineeID), nil)
	if a.status != 200 || !strings.Contains(string(a.Result), f.A.TraineeLastName) || strings.Contains(string(a.Result), `"isError":true`) {
		t.Fatalf("get_trainee: %d %s", a.status, a.Result)
	}
	if n := authn.calls.Load(); n != 1 {
		t.Fatalf("one tool call read its credential %d times; want once (at the gate)", n)
	}

	k, err := f.Store.FindAPIKey(context.Background(), "", auth.Display(f.A.Key))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Store.RevokeAPIKey(context.Background(), k.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	if a := post(t, "POST", srv.URL, f.A.Key, getTraineeCall(f.A.TraineeID), nil); a.status != http.StatusUnauthorized || a.Error == nil || !strings.Contains(a.Error.Message, "revoked") {
		t.Fatalf("the message after the key was revoked: %d %+v; want 401 saying it was revoked", a.status, a.Error)
	}
}

// The admission the gate leaves serves only the very token it
// authenticated: a lane request carrying another credential is
// authenticated itself.
func TestAuthenticatedMarkServesItsOwnTokenOnly(t *testing.T) {
	t.Parallel()
	f := mcptest.New(t)
	p := &auth.Principal{StudioID: "std_x", Kind: auth.KindStudioKey, CredentialID: "key_x", Scopes: []string{auth.ScopeStudioRead}}
	ctx := auth.Admit(context.Background(), f.A.Key, p)
	for name, token := range map[string]string{"an unknown key": auth.NewKey(), "no key": ""} {
		req := httptest.NewRequestWithContext(ctx, "GET", lane.Prefix+"/validate", nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		rec := httptest.NewRecorder()
		f.Lane.ServeHTTP(rec, req)
		if rec.Code != http.StatusUnauthorized {
			t.Errorf("%s under another token's admission: %d %s; want 401", name, rec.Code, rec.Body)
		}
	}
}
