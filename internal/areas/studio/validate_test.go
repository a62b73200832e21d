package studio_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/lane/lanetest"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/store"
)

func TestAuth(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		e := lanetest.New(t, st)
		s, key, keyID := e.Studio("auth", "free")

		a := e.Fails(401, "UNAUTHORIZED", e.Call("", "GET", "/validate", nil))
		if !strings.Contains(a.Message(), "Authorization: Bearer") {
			t.Errorf("missing key message: %q", a.Message())
		}
		a = e.Fails(401, "UNAUTHORIZED", e.Call("pf_live_"+strings.Repeat("x", 43), "GET", "/validate", nil))
		// The seed's words first, then what to do about it.
		if !strings.HasPrefix(a.Message(), "invalid partner api key: ") || !strings.Contains(a.Message(), "perform key create") {
			t.Errorf("unknown key message: %q", a.Message())
		}
		e.Fails(401, "UNAUTHORIZED", e.Call("not-a-key", "GET", "/validate", nil))

		e.OK(200, e.Call("", "GET", "/validate", nil, "Authorization", "bearer "+key)) // the scheme is case-insensitive
		e.Fails(401, "UNAUTHORIZED", e.Call("", "GET", "/validate", nil, "Authorization", "Basic "+key))

		var info struct{ Name, Slug, ID string }
		e.OK(200, e.Call(key, "GET", "/validate", nil)).Into(t, &info)
		if info.Name != s.Name || info.Slug != "auth" || info.ID != s.ID {
			t.Errorf("validate answered %+v", info)
		}

		// lastUsedAt is written on use.
		k, err := st.FindAPIKey(context.Background(), s.ID, keyID)
		if err != nil || k.LastUsedAt == nil {
			t.Errorf("lastUsedAt not recorded: %+v %v", k, err)
		}

		// Revoked from "another process" (the store directly): the very next request fails.
		if err := st.RevokeAPIKey(context.Background(), keyID, time.Now()); err != nil {
			t.Fatal(err)
		}
		a = e.Fails(401, "UNAUTHORIZED", e.Call(key, "GET", "/validate", nil))
		if !strings.Contains(a.Message(), "revoked") {
			t.Errorf("revoked message: %q", a.Message())
		}
	})
}

// The lane keeps a key's principal in memory only while the database's
// credentials epoch is unchanged: a change to the studio made by "another
// process" (the store directly) shows on the very next request.
func TestKeptPrincipalFollowsChangesFromAnotherProcess(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		e := lanetest.New(t, st)
		s, key, _ := e.Studio("kept", "pro")
		zone := func() string {
			var info struct{ TimeZone string }
			e.OK(200, e.Call(key, "GET", "/validate", nil)).Into(t, &info)
			return info.TimeZone
		}
		if got := zone(); got != domain.DefaultTimeZone {
			t.Fatalf("a new studio's zone is %q, want %q", got, domain.DefaultTimeZone)
		}
		zone() // answered from the kept principal
		if err := st.UpdateStudioSettings(context.Background(), s.ID, json.RawMessage(`{"timeZone":"Europe/London"}`)); err != nil {
			t.Fatal(err)
		}
		if got := zone(); got != "Europe/London" {
			t.Fatalf("after the studio's zone changed, /validate answers %q; want Europe/London on the very next request", got)
		}
	})
}

func TestRevokeThroughKeysEndpoint(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		e := lanetest.New(t, st)
		s, key, _ := e.Studio("keys", "pro")
		other, otherID := e.NewKey(s.ID, "agent")
		var keys kit.List[domain.APIKey]
		e.OK(200, e.Call(key, "GET", "/keys", nil)).Into(t, &keys)
		if keys.Total != 2 || len(keys.Items) != 2 {
			t.Fatalf("keys: %+v", keys)
		}
		if strings.Contains(e.Call(key, "GET", "/keys", nil).Raw, "hash") {
			t.Error("the key list must not carry hashes")
		}
		e.OK(200, e.Call(other, "GET", "/validate", nil))
		e.OK(200, e.Call(key, "DELETE", "/keys/"+otherID, nil))
		e.Fails(401, "UNAUTHORIZED", e.Call(other, "GET", "/validate", nil))
		e.Fails(404, "NOT_FOUND", e.Call(key, "DELETE", "/keys/key_00000000000000000000000000", nil))
	})
}
