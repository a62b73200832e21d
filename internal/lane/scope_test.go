package lane_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/store"
)

// keyWith mints a key holding scopes for studioID.
func (e *env) keyWith(studioID string, scopes ...string) string {
	e.t.Helper()
	key := auth.NewKey()
	k := domain.APIKey{ID: ids.New(ids.APIKey), StudioID: studioID, Name: strings.Join(scopes, "+"), Prefix: auth.Display(key), Hash: auth.Hash(key), Scopes: scopes}
	if err := e.st.CreateAPIKey(context.Background(), &k); err != nil {
		e.t.Fatalf("create key: %v", err)
	}
	return key
}

type docOp struct {
	method, path, scope string
	security            []map[string][]string
}

func (e *env) operations() []docOp {
	e.t.Helper()
	var doc struct {
		Paths map[string]map[string]struct {
			Scope    string                `json:"x-perform-scope"`
			AppOnly  bool                  `json:"x-perform-app-only"`
			Security []map[string][]string `json:"security"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(e.lane.OpenAPI(), &doc); err != nil {
		e.t.Fatal(err)
	}
	var out []docOp
	for path, ops := range doc.Paths {
		for method, op := range ops {
			if op.AppOnly != (op.Scope == auth.ScopeStudioAdmin) {
				e.t.Errorf("%s %s: app-only %v but scope %q", method, path, op.AppOnly, op.Scope)
			}
			out = append(out, docOp{method: strings.ToUpper(method), path: path, scope: op.Scope, security: op.Security})
		}
	}
	return out
}

// Every route declares a scope (only /validate takes any key), the OpenAPI
// document publishes it, and a key without it is refused with 403 naming it,
// before anything else about the request is looked at.
func TestEveryRouteNeedsItsScope(t *testing.T) {
	onSQLite(t, func(t *testing.T, st store.Store) {
		e := newEnv(t, st)
		s, _, _ := e.studio("scoped", "business")
		keys := map[string][]string{}
		for _, scopes := range [][]string{{auth.ScopeStudioRead}, auth.AssistantScopes, {auth.ScopeStudioAdmin}, {auth.ScopeStudioWrite}} {
			keys[e.keyWith(s.ID, scopes...)] = scopes
		}
		ops := e.operations()
		perScope := map[string]int{}
		for _, op := range ops {
			perScope[op.scope]++
			if len(op.security) != 1 || !slices.Equal(op.security[0]["studioKey"], scopeList(op.scope)) {
				t.Errorf("%s %s: security %v does not publish the scope %q", op.method, op.path, op.security, op.scope)
			}
			if op.scope == auth.ScopePublicRead {
				// An agent platform's routes: refused to every studio key
				// (TestPlatformKeyReadsOnlyThePublicOffer covers the platform key).
				for key := range keys {
					if a := e.call(key, op.method, op.path, "{}"); a.Status != 403 || !strings.Contains(a.message(), "agent platform") {
						t.Errorf("%s %s with a studio key: %d %s", op.method, op.path, a.Status, a.Raw)
					}
				}
				continue
			}
			want := auth.ScopeStudioRead
			if op.method != "GET" {
				want = auth.ScopeStudioWrite
			}
			if op.scope != want && op.scope != auth.ScopeStudioAdmin && op.path != "/validate" {
				t.Errorf("%s %s needs %q", op.method, op.path, op.scope)
			}
			path := strings.NewReplacer("{id}", "x_1", "{phone}", "0501234567").Replace(op.path)
			for key, scopes := range keys {
				a := e.call(key, op.method, path, "{}")
				if op.scope == "" || slices.Contains(scopes, op.scope) {
					if a.Status == 403 {
						t.Errorf("%s %s with %v: refused: %s", op.method, op.path, scopes, a.Raw)
					}
					continue
				}
				if a.Status != 403 || a.code() != "FORBIDDEN" || !strings.Contains(a.message(), "needs the scope "+op.scope) || !strings.Contains(a.message(), "--scopes") {
					t.Errorf("%s %s with %v: %d %s; want 403 FORBIDDEN naming %s", op.method, op.path, scopes, a.Status, a.Raw, op.scope)
				}
			}
		}
		if perScope[auth.ScopeStudioAdmin] < 15 || perScope[auth.ScopeStudioRead] < 10 || perScope[auth.ScopeStudioWrite] < 8 || perScope[""] != 1 {
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
	onSQLite(t, func(t *testing.T, st store.Store) {
		e := newEnv(t, st)
		f := e.seed("keys")

		var made struct {
			domain.APIKey
			Key string `json:"key"`
		}
		e.ok(201, e.call(f.key, "POST", "/keys", map[string]any{"name": "dashboard", "scopes": []string{"studio:read"}})).into(t, &made)
		if !auth.WellFormed(made.Key) || !slices.Equal(made.Scopes, []string{"studio:read"}) || made.Name != "dashboard" {
			t.Fatalf("created key: %+v", made)
		}
		ro := made.Key
		var info struct {
			Credential string   `json:"credential"`
			Scopes     []string `json:"scopes"`
		}
		e.ok(200, e.call(ro, "GET", "/validate", nil)).into(t, &info)
		if info.Credential != "studio_key" || !slices.Equal(info.Scopes, []string{"studio:read"}) {
			t.Errorf("validate: %+v", info)
		}
		e.ok(200, e.call(ro, "GET", "/trainees/"+f.trainee.ID, nil))
		e.fails(403, "FORBIDDEN", e.call(ro, "POST", "/tasks", map[string]any{"title": "never written"}))
		e.fails(403, "FORBIDDEN", e.call(ro, "PATCH", "/trainees/"+f.trainee.ID, map[string]any{"goal": "never"}))
		e.fails(403, "FORBIDDEN", e.call(ro, "POST", "/keys", map[string]any{"name": "escalate"}))
		if tasks, _ := st.Studio(f.studio.ID).ListTasks(context.Background(), store.TaskFilter{Page: store.Page{Limit: 50}}); tasks.Total != 1 {
			t.Errorf("the read-only key wrote: %d tasks", tasks.Total)
		}

		// No scopes named: all three.
		e.ok(201, e.call(f.key, "POST", "/keys", map[string]any{"name": "full"})).into(t, &made)
		if !slices.Equal(made.Scopes, auth.StudioScopes) {
			t.Errorf("default scopes: %v", made.Scopes)
		}
		a := e.fails(422, "VALIDATION", e.call(f.key, "POST", "/keys", map[string]any{"name": "bad", "scopes": []string{"studio:root"}}))
		if !slices.Equal(a.fields(), []string{"scopes"}) || !strings.Contains(a.message(), "studio:read, studio:write, studio:admin") {
			t.Errorf("unknown scope: %s", a.Raw)
		}
		var list struct {
			Items []domain.APIKey `json:"items"`
		}
		e.ok(200, e.call(f.key, "GET", "/keys", nil)).into(t, &list)
		if len(list.Items) != 3 || !slices.Equal(list.Items[1].Scopes, []string{"studio:read"}) {
			t.Errorf("key list: %+v", list.Items)
		}

		// A row written without the column (as before the migration) holds everything.
		old := auth.NewKey()
		if _, err := st.DB().ExecContext(context.Background(), st.Rebind(`INSERT INTO api_keys (id, studio_id, name, prefix, hash, created_at) VALUES (?, ?, ?, ?, ?, ?)`),
			ids.New(ids.APIKey), f.studio.ID, "old", auth.Display(old), auth.Hash(old), time.Now().UnixMilli()); err != nil {
			t.Fatal(err)
		}
		e.ok(200, e.call(old, "GET", "/validate", nil)).into(t, &info)
		if !slices.Equal(info.Scopes, auth.StudioScopes) {
			t.Errorf("an old key holds %v", info.Scopes)
		}
		e.ok(200, e.call(old, "GET", "/notifications", nil))
	})
}
