package agent

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/areas"
	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/store"
)

// The key the assistant mints for itself reads and writes through the coach
// tools and is refused every endpoint that needs studio:admin.
func TestMintedKeyHoldsNoAdminScope(t *testing.T) {
	onSQLite(t, func(t *testing.T, st store.Store) {
		ctx := context.Background()
		h := newHarness(t, st)
		studio, _ := studioWithCoach(t, st, "Scope Studio", "Noa", "0505557777", time.Now())
		h.send("972505557777", "c", "hello")
		h.waitIdle()
		keys, err := st.ListAPIKeys(ctx, studio.ID)
		if err != nil || len(keys) != 1 {
			t.Fatalf("keys after the first turn: %+v, %v", keys, err)
		}
		if !slices.Equal(keys[0].Scopes, auth.AssistantScopes) {
			t.Fatalf("the assistant's key holds %v, want %v", keys[0].Scopes, auth.AssistantScopes)
		}
		key, err := h.agent.box.Open(agentSettingsOf(t, st, studio.ID).APIKey, studio.ID)
		if err != nil {
			t.Fatal(err)
		}
		ln := areas.Lane(lane.Options{Store: st, Logger: quietLogger()})
		var doc struct {
			Paths map[string]map[string]map[string]any `json:"paths"`
		}
		if err := json.Unmarshal(ln.OpenAPI(), &doc); err != nil {
			t.Fatal(err)
		}
		admin := 0
		for path, ops := range doc.Paths {
			for method, op := range ops {
				if op["x-perform-scope"] != auth.ScopeStudioAdmin {
					continue
				}
				admin++
				url := lane.Prefix + strings.NewReplacer("{id}", "x_1", "{phone}", "0501234567").Replace(path)
				req := httptest.NewRequest(strings.ToUpper(method), url, strings.NewReader("{}"))
				req.Header.Set("Authorization", "Bearer "+key)
				rec := httptest.NewRecorder()
				ln.ServeHTTP(rec, req)
				if rec.Code != http.StatusForbidden || !strings.Contains(rec.Body.String(), "studio:admin") {
					t.Errorf("%s %s with the assistant's key: %d %s; want 403 naming studio:admin", method, path, rec.Code, rec.Body)
				}
			}
		}
		if admin < 10 {
			t.Fatalf("only %d admin routes in the OpenAPI document", admin)
		}
	})
}
