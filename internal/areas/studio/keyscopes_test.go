package studio_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/lane/lanetest"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/store"
)

// keyID is the id of a key the test holds in clear.
func keyID(t *testing.T, st store.Store, studioID, key string) string {
	t.Helper()
	k, err := st.FindAPIKey(context.Background(), studioID, auth.Display(key))
	if err != nil {
		t.Fatal(err)
	}
	return k.ID
}

// A key made before the billing scope gains it by PATCH /keys/{id}, and
// its very next request holds it, though the lane keeps the key's principal
// between requests (the credentials epoch moves with the scopes); it loses
// it the same way. The change is the admin's and is audited.
func TestKeyScopesChangeOnTheNextRequest(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		e := lanetest.New(t, st)
		f := e.Seed("keyscopes")
		old := e.KeyWith(f.Studio.ID, auth.ScopeStudioRead, auth.ScopeStudioWrite)
		id := keyID(t, st, f.Studio.ID, old)
		billing := "/trainees/" + f.Trainee.ID + "/billing"

		// Twice: the second answer comes from the kept principal.
		for range 2 {
			if a := e.Fails(403, "FORBIDDEN", e.Call(old, "GET", billing, nil)); !strings.Contains(a.Message(), "perform key scopes "+id+" --add billing") {
				t.Fatalf("a key without billing: %s", a.Raw)
			}
		}
		var changed domain.APIKey
		e.OK(200, e.Call(f.Key, "PATCH", "/keys/"+id, map[string]any{"add": []string{"billing"}})).Into(t, &changed)
		if want := []string{auth.ScopeStudioRead, auth.ScopeStudioWrite, auth.ScopeBilling}; !slices.Equal(changed.Scopes, want) || changed.ID != id {
			t.Fatalf("the changed key: %+v; want scopes %v", changed, want)
		}
		e.OK(200, e.Call(old, "GET", billing, nil))
		var v struct{ Scopes []string }
		e.OK(200, e.Call(old, "GET", "/validate", nil)).Into(t, &v)
		if !slices.Contains(v.Scopes, auth.ScopeBilling) {
			t.Fatalf("/validate after the change: %v", v.Scopes)
		}

		e.OK(200, e.Call(f.Key, "PATCH", "/keys/"+id, map[string]any{"remove": []string{"billing", "studio:write"}}))
		e.Fails(403, "FORBIDDEN", e.Call(old, "GET", billing, nil))
		e.Fails(403, "FORBIDDEN", e.Call(old, "POST", "/tasks", map[string]any{"title": "no write"}))
		e.OK(200, e.Call(f.Key, "PATCH", "/keys/"+id, map[string]any{"scopes": []string{"billing", "studio:read"}}))
		e.OK(200, e.Call(old, "GET", billing, nil))

		e.Audit.Flush()
		events, err := st.ListAudit(context.Background(), f.Studio.ID, store.Page{Limit: 200})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, ev := range events.Items {
			if ev.Method == "PATCH" && ev.Route == "PATCH /v1/automation/keys/{id}" && ev.ResourceID == id && ev.Status == 200 {
				n++
			}
		}
		if n != 3 {
			t.Fatalf("%d audited scope changes of %s; want 3", n, id)
		}
	})
}

// Only studio:admin changes a key's scopes (a key cannot widen itself);
// another studio's key is not found; a revoked key, a platform key, an
// unknown scope and a key left with nothing are refused with sentences,
// and none of them changes the key.
func TestKeyScopesRefusals(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		e := lanetest.New(t, st)
		f := e.Seed("keyrefuse")
		other := e.Seed("keyother")
		limited := e.KeyWith(f.Studio.ID, auth.ScopeStudioRead, auth.ScopeStudioWrite, auth.ScopeBilling)
		id := keyID(t, st, f.Studio.ID, limited)
		path := "/keys/" + id

		if a := e.Fails(403, "FORBIDDEN", e.Call(limited, "PATCH", path, map[string]any{"add": []string{"studio:admin"}})); !strings.Contains(a.Message(), "studio:admin") {
			t.Errorf("a key widening itself: %s", a.Raw)
		}
		if a := e.Fails(404, "NOT_FOUND", e.Call(other.Key, "PATCH", path, map[string]any{"add": []string{"studio:admin"}})); !strings.Contains(a.Message(), id) {
			t.Errorf("another studio's key: %s", a.Raw)
		}
		for body, says := range map[string]struct {
			in    map[string]any
			field string
			text  string
		}{
			"unknown":   {map[string]any{"add": []string{"billing:write"}}, "add", `"billing:write" is not a scope`},
			"none left": {map[string]any{"remove": []string{"studio:read", "studio:write", "billing"}}, "remove", "revoke it"},
			"both ways": {map[string]any{"scopes": []string{"studio:read"}, "add": []string{"billing"}}, "scopes", "not both"},
			"nothing":   {map[string]any{}, "scopes", "name the scopes"},
		} {
			a := e.Fails(422, "VALIDATION", e.Call(f.Key, "PATCH", path, says.in))
			if !kit.Names(a.Fields(), says.field) || !strings.Contains(a.Message(), says.text) {
				t.Errorf("%s: %s; want field %s saying %q", body, a.Raw, says.field, says.text)
			}
		}
		platform := e.PlatformKey(f.Key)
		if a := e.Fails(409, "CONFLICT", e.Call(f.Key, "PATCH", "/keys/"+keyID(t, st, f.Studio.ID, platform), map[string]any{"add": []string{"billing"}})); !strings.Contains(a.Message(), "platform") {
			t.Errorf("a platform key: %s", a.Raw)
		}
		e.OK(200, e.Call(f.Key, "DELETE", path, nil))
		if a := e.Fails(409, "CONFLICT", e.Call(f.Key, "PATCH", path, map[string]any{"add": []string{"studio:admin"}})); !strings.Contains(a.Message(), "revoked") {
			t.Errorf("a revoked key: %s", a.Raw)
		}
		k, err := st.FindAPIKey(context.Background(), f.Studio.ID, id)
		if err != nil || !slices.Equal(k.Scopes, []string{auth.ScopeStudioRead, auth.ScopeStudioWrite, auth.ScopeBilling}) {
			t.Fatalf("after refused changes the key holds %v (%v)", k.Scopes, err)
		}
	})
}
