package mcpserver_test

import (
	"context"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/mcpserver/mcptest"
	"github.com/otherwise/perform/internal/tools"
)

// A key's scopes changed by the studio (PATCH /keys/{id}) hold on the
// hosted /mcp from the key's next message, on the gated endpoint as the
// server mounts it: the billing tool it was refused, it then answers, and
// after the scope is taken away again it is refused again.
func TestKeyScopeChangeHoldsOnTheNextMCPMessage(t *testing.T) {
	t.Parallel()
	f := mcptest.New(t)
	ctx := context.Background()
	admin, err := f.Store.FindAPIKey(ctx, "", auth.Display(f.A.Key))
	if err != nil {
		t.Fatal(err)
	}
	key := auth.NewKey()
	k := domain.APIKey{StudioID: admin.StudioID, Name: "made before billing", Prefix: auth.Display(key), Hash: auth.Hash(key),
		Scopes: []string{auth.ScopeStudioRead, auth.ScopeStudioWrite}}
	if err := f.Store.CreateAPIKey(ctx, &k); err != nil {
		t.Fatal(err)
	}
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_trainee_billing","arguments":{"traineeId":"` + f.A.TraineeID + `"}}}`
	billing := func() (refused bool, result string) {
		t.Helper()
		a := post(t, "POST", f.URL+mcptest.GatedPath, key, call, nil)
		if a.status != 200 || a.Error != nil {
			t.Fatalf("get_trainee_billing: %d %+v", a.status, a.Error)
		}
		return strings.Contains(string(a.Result), `"isError":true`), string(a.Result)
	}
	change := func(body map[string]any) {
		t.Helper()
		if _, err := f.App.Do(ctx, f.A.Key, tools.Request{Method: "PATCH", Path: "/keys/" + k.ID, Body: body}); err != nil {
			t.Fatal(err)
		}
	}

	for range 2 { // the second message meets the kept principal
		if refused, res := billing(); !refused || !strings.Contains(res, "perform key scopes "+k.ID+" --add billing") {
			t.Fatalf("a key without billing: %s", res)
		}
	}
	change(map[string]any{"add": []string{"billing"}})
	if refused, res := billing(); refused {
		t.Fatalf("after billing was added: %s", res)
	}
	change(map[string]any{"remove": []string{"billing"}})
	if refused, res := billing(); !refused {
		t.Fatalf("after billing was taken away: %s", res)
	}
}
