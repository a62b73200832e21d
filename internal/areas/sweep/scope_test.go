package sweep_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane/lanetest"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/store"
)

// Every route declares a scope (only /validate takes any key), the OpenAPI
// document publishes it, and a key without it is refused with 403 naming it,
// before anything else about the request is looked at.
func TestEveryRouteNeedsItsScope(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		e := lanetest.New(t, st)
		s, _, _ := e.Studio("scoped", "business")
		keys := map[string][]string{}
		for _, scopes := range [][]string{{auth.ScopeStudioRead}, auth.AssistantScopes, {auth.ScopeStudioAdmin}, {auth.ScopeStudioWrite}, {auth.ScopeBilling},
			{auth.ScopeStudioRead, auth.ScopeStudioWrite, auth.ScopeStudioAdmin}} {
			keys[e.KeyWith(s.ID, scopes...)] = scopes
		}
		ops := e.Operations()
		perScope := map[string]int{}
		for _, op := range ops {
			perScope[op.Scope]++
			if len(op.Security) != 1 || !slices.Equal(op.Security[0]["studioKey"], scopeList(op.Scope)) {
				t.Errorf("%s %s: security %v does not publish the scope %q", op.Method, op.Path, op.Security, op.Scope)
			}
			if op.Scope == auth.ScopePublicRead {
				// An agent platform's routes: refused to every studio key
				// (TestPlatformKeyReadsOnlyThePublicOffer covers the platform key).
				for key := range keys {
					if a := e.Call(key, op.Method, op.Path, "{}"); a.Status != 403 || !strings.Contains(a.Message(), "agent platform") {
						t.Errorf("%s %s with a studio key: %d %s", op.Method, op.Path, a.Status, a.Raw)
					}
				}
				continue
			}
			want := auth.ScopeStudioRead
			if op.Method != "GET" {
				want = auth.ScopeStudioWrite
			}
			if op.Scope != want && op.Scope != auth.ScopeStudioAdmin && op.Scope != auth.ScopeBilling && op.Path != "/validate" {
				t.Errorf("%s %s needs %q", op.Method, op.Path, op.Scope)
			}
			path := strings.NewReplacer("{id}", "x_1", "{phone}", "0501234567").Replace(op.Path)
			for key, scopes := range keys {
				a := e.Call(key, op.Method, path, "{}")
				if op.Scope == "" || slices.Contains(scopes, op.Scope) {
					if a.Status == 403 {
						t.Errorf("%s %s with %v: refused: %s", op.Method, op.Path, scopes, a.Raw)
					}
					continue
				}
				if a.Status != 403 || a.Code() != "FORBIDDEN" || !strings.Contains(a.Message(), "needs the scope "+op.Scope) || !strings.Contains(a.Message(), "--scopes") {
					t.Errorf("%s %s with %v: %d %s; want 403 FORBIDDEN naming %s", op.Method, op.Path, scopes, a.Status, a.Raw, op.Scope)
				}
			}
		}
		if perScope[auth.ScopeStudioAdmin] < 15 || perScope[auth.ScopeStudioRead] < 10 || perScope[auth.ScopeStudioWrite] < 8 || perScope[auth.ScopeBilling] < 5 || perScope[""] != 1 {
			t.Errorf("routes per scope: %v", perScope)
		}
	})
}

func scopeList(scope string) []string {
	if scope == "" {
		return []string{}
	}
	return []string{scope}
}

// The lane's key endpoints make restricted keys; a read-only key reads and
// cannot write; a key made before scopes existed keeps everything.
func TestRestrictedKeys(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		e := lanetest.New(t, st)
		f := e.Seed("keys")

		var made struct {
			domain.APIKey
			Key string `json:"key"`
		}
		e.OK(201, e.Call(f.Key, "POST", "/keys", map[string]any{"name": "dashboard", "scopes": []string{"studio:read"}})).Into(t, &made)
		if !auth.WellFormed(made.Key) || !slices.Equal(made.Scopes, []string{"studio:read"}) || made.Name != "dashboard" {
			t.Fatalf("created key: %+v", made)
		}
		ro := made.Key
		var info struct {
			Credential string   `json:"credential"`
			Scopes     []string `json:"scopes"`
		}
		e.OK(200, e.Call(ro, "GET", "/validate", nil)).Into(t, &info)
		if info.Credential != "studio_key" || !slices.Equal(info.Scopes, []string{"studio:read"}) {
			t.Errorf("validate: %+v", info)
		}
		e.OK(200, e.Call(ro, "GET", "/trainees/"+f.Trainee.ID, nil))
		e.Fails(403, "FORBIDDEN", e.Call(ro, "POST", "/tasks", map[string]any{"title": "never written"}))
		e.Fails(403, "FORBIDDEN", e.Call(ro, "PATCH", "/trainees/"+f.Trainee.ID, map[string]any{"goal": "never"}))
		e.Fails(403, "FORBIDDEN", e.Call(ro, "POST", "/keys", map[string]any{"name": "escalate"}))
		if tasks, _ := st.Studio(f.Studio.ID).ListTasks(context.Background(), store.TaskFilter{Page: store.Page{Limit: 50}}); tasks.Total != 1 {
			t.Errorf("the read-only key wrote: %d tasks", tasks.Total)
		}

		// No scopes named: all four.
		e.OK(201, e.Call(f.Key, "POST", "/keys", map[string]any{"name": "full"})).Into(t, &made)
		if !slices.Equal(made.Scopes, auth.StudioScopes) {
			t.Errorf("default scopes: %v", made.Scopes)
		}
		a := e.Fails(422, "VALIDATION", e.Call(f.Key, "POST", "/keys", map[string]any{"name": "bad", "scopes": []string{"studio:root"}}))
		if !slices.Equal(a.Fields(), []string{"scopes"}) || !strings.Contains(a.Message(), "studio:read, studio:write, studio:admin") {
			t.Errorf("unknown scope: %s", a.Raw)
		}
		var list struct {
			Items []domain.APIKey `json:"items"`
		}
		e.OK(200, e.Call(f.Key, "GET", "/keys", nil)).Into(t, &list)
		if len(list.Items) != 3 || !slices.Equal(list.Items[1].Scopes, []string{"studio:read"}) {
			t.Errorf("key list: %+v", list.Items)
		}

		// A row written without the column (as before the migration) holds
		// what every key held then: not billing, which came later.
		old := auth.NewKey()
		if _, err := st.DB().ExecContext(context.Background(), st.Rebind(`INSERT INTO api_keys (id, studio_id, name, prefix, hash, created_at) VALUES (?, ?, ?, ?, ?, ?)`),
			ids.New(ids.APIKey), f.Studio.ID, "old", auth.Display(old), auth.Hash(old), time.Now().UnixMilli()); err != nil {
			t.Fatal(err)
		}
		e.OK(200, e.Call(old, "GET", "/validate", nil)).Into(t, &info)
		if !slices.Equal(info.Scopes, []string{auth.ScopeStudioRead, auth.ScopeStudioWrite, auth.ScopeStudioAdmin}) {
			t.Errorf("an old key holds %v", info.Scopes)
		}
		e.Fails(403, "FORBIDDEN", e.Call(old, "GET", "/payments", nil))
		e.OK(200, e.Call(f.Key, "GET", "/payments", nil)) // a key made since holds billing
		e.OK(200, e.Call(old, "GET", "/notifications", nil))
	})
}
