package payhook_test

import (
	"testing"

	"github.com/otherwise/perform/internal/areas/payhook"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/store"
)

// The writes the route sweep cannot run (it has no PERFORM_SECRET_KEY)
// run as dry runs here: turning on and rotating answer what they would,
// and change nothing: no hook, the old URL and secret still working.
func TestDryRunsChangeNothing(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		w := newWorld(t, st, testKey())
		_, key, _ := w.e.Studio("dry", "pro")
		dry := []string{lane.PreferHeader, "dry-run"}
		var d struct {
			DryRun bool           `json:"dryRun"`
			Status int            `json:"status"`
			Data   payhook.Turned `json:"data"`
		}
		w.e.OK(200, w.e.Call(key, "POST", "/payments-webhook", nil, dry...)).Into(t, &d)
		if !d.DryRun || d.Status != 201 || !d.Data.Enabled {
			t.Fatalf("a dry run of turning on: %+v", d)
		}
		var s payhook.Status
		w.e.OK(200, w.e.Call(key, "GET", "/payments-webhook", nil)).Into(t, &s)
		if s.Enabled {
			t.Fatalf("a dry run turned the webhook on: %+v", s)
		}
		// A refusal is the real call's refusal.
		bad := w.e.Call(key, "POST", "/payments-webhook", map[string]any{"signingSecret": "short"}, dry...)
		real := w.e.Call(key, "POST", "/payments-webhook", map[string]any{"signingSecret": "short"})
		if bad.Status != 422 || bad.Status != real.Status || bad.Message() != real.Message() {
			t.Fatalf("a refused dry run %d %q, the real call %d %q", bad.Status, bad.Message(), real.Status, real.Message())
		}

		h := w.studioWithHook("dry2")
		noa := w.trainee(h.key, "Noa", "050-444-5566", "")
		w.e.OK(200, w.e.Call(h.key, "POST", "/payments-webhook/rotate", nil, dry...)).Into(t, &d)
		if !d.DryRun || d.Status != 200 || d.Data.URL == h.url || d.Data.URL == "" {
			t.Fatalf("a dry run of a rotation: %+v", d)
		}
		if r := signed(t, h.url, h.secret, invoicePaid("evt_dry", "in_dry", noa.ID, 100)); r.status != 200 {
			t.Fatalf("the URL and secret after a dry run of a rotation: %d %+v", r.status, r.Error)
		}
		if r := signed(t, d.Data.URL, d.Data.SigningSecret, invoicePaid("evt_dry2", "in_dry2", noa.ID, 100)); r.status != 404 {
			t.Fatalf("the dry run's URL answered %d", r.status)
		}
		w.e.OK(200, w.e.Call(h.key, "DELETE", "/payments-webhook", nil, dry...))
		w.e.OK(200, w.e.Call(h.key, "GET", "/payments-webhook", nil)).Into(t, &s)
		if !s.Enabled {
			t.Fatal("a dry run turned the webhook off")
		}
	})
}
