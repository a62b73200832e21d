package studio_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/lane/lanetest"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/laneclient"
	"github.com/otherwise/perform/internal/store"
)

type digestOut struct {
	CoachID        string `json:"coachId"`
	Enabled        bool   `json:"enabled"`
	Hour           int    `json:"hour"`
	TimeZone       string `json:"timeZone"`
	DigestTemplate string `json:"digestTemplate"`
}

// The morning digest's settings: a coach turns hers on and sets the hour
// (never another coach's); a studio key sets any of its coaches'; the
// studio's apps name the template.
func TestCoachDigestSettings(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		e := lanetest.NewTrainee(t, st, lanetest.TraineeOptions{Now: func() time.Time { return kit.InsightsNow }})
		w := kit.SeedTriage(t, e, "digest-"+st.Engine())
		other := kit.SeedTriage(t, e, "digest-other-"+st.Engine())
		one := e.Grant(w.Studio.ID, w.Coach1.ID, auth.ScopeStudioRead, auth.ScopeStudioWrite)
		path := "/coaches/" + w.Coach1.ID + "/digest"

		var d digestOut
		e.OK(200, e.Call(one, "GET", path, nil)).Into(t, &d)
		if d.Enabled || d.Hour != 7 || d.CoachID != w.Coach1.ID || d.TimeZone != "Asia/Jerusalem" || d.DigestTemplate != "" {
			t.Fatalf("before opting in: %+v", d)
		}
		e.OK(200, e.Call(one, "PUT", path, map[string]any{"enabled": true, "hour": 6})).Into(t, &d)
		if !d.Enabled || d.Hour != 6 {
			t.Fatalf("after opting in: %+v", d)
		}
		// The hour is kept when only enabled is sent.
		e.OK(200, e.Call(one, "PUT", path, map[string]any{"enabled": false})).Into(t, &d)
		if d.Enabled || d.Hour != 6 {
			t.Fatalf("after opting out: %+v", d)
		}
		got, err := st.Digests().DigestSetting(context.Background(), w.Studio.ID, w.Coach1.ID)
		if err != nil || !got.Set || got.Enabled || got.Hour != 6 {
			t.Fatalf("stored %+v %v", got, err)
		}
		for _, body := range []map[string]any{{"enabled": true, "hour": 24}, {"enabled": true, "hour": -1}, {"hour": 7}, {"enabled": "yes"}, {"enabled": true, "hour": nil}} {
			a := e.Call(one, "PUT", path, body)
			if a.Status != 422 {
				t.Errorf("PUT %v: %d %s", body, a.Status, a.Raw)
			}
		}
		// Another coach's: refused to a coach, whether her grant or the
		// assistant speaking for her with the studio key.
		two := "/coaches/" + w.Coach2.ID + "/digest"
		a := e.Fails(403, "FORBIDDEN", e.Call(one, "PUT", two, map[string]any{"enabled": true}))
		if !strings.Contains(a.Message(), "only her own") {
			t.Errorf("refusal: %s", a.Raw)
		}
		e.Fails(403, "FORBIDDEN", e.Call(one, "GET", two, nil))
		assistant, err := e.RoundTrip(kit.SpeakingFor(laneclient.HandlerTransport(e.Lane), w.Coach1.ID), w.Key, "PUT", two, map[string]any{"enabled": true})
		if err != nil {
			t.Fatal(err)
		}
		e.Fails(403, "FORBIDDEN", assistant)
		assistant, err = e.RoundTrip(kit.SpeakingFor(laneclient.HandlerTransport(e.Lane), w.Coach1.ID), w.Key, "PUT", path, map[string]any{"enabled": true})
		if err != nil {
			t.Fatal(err)
		}
		e.OK(200, assistant)
		// The studio key speaks for the studio: any of its coaches.
		e.OK(200, e.Call(w.Key, "PUT", two, map[string]any{"enabled": true, "hour": 21})).Into(t, &d)
		if !d.Enabled || d.Hour != 21 || d.CoachID != w.Coach2.ID {
			t.Fatalf("studio key: %+v", d)
		}
		// Another studio's coach is not found, whoever asks.
		e.Fails(404, "NOT_FOUND", e.Call(w.Key, "PUT", "/coaches/"+other.Coach1.ID+"/digest", map[string]any{"enabled": true}))
		e.Fails(404, "NOT_FOUND", e.Call(one, "GET", "/coaches/"+other.Coach1.ID+"/digest", nil))

		// The template: the studio's apps set it; null removes it.
		var set struct {
			TimeZone       string `json:"timeZone"`
			DigestTemplate string `json:"digestTemplate"`
		}
		e.OK(200, e.Call(w.Key, "PATCH", "/studio/settings", map[string]any{"digestTemplate": "morning_digest"})).Into(t, &set)
		if set.DigestTemplate != "morning_digest" || set.TimeZone != "Asia/Jerusalem" {
			t.Fatalf("PATCH digestTemplate: %+v", set)
		}
		e.OK(200, e.Call(w.Key, "GET", "/studio/settings", nil)).Into(t, &set)
		e.OK(200, e.Call(one, "GET", path, nil)).Into(t, &d)
		if set.DigestTemplate != "morning_digest" || d.DigestTemplate != "morning_digest" {
			t.Fatalf("GET: %+v, the coach's %+v", set, d)
		}
		for _, bad := range []any{"Morning Digest", "morning-digest", 3} {
			e.Refused("digestTemplate", e.Call(w.Key, "PATCH", "/studio/settings", map[string]any{"digestTemplate": bad}))
		}
		e.OK(200, e.Call(w.Key, "PATCH", "/studio/settings", map[string]any{"timeZone": "Europe/London"})).Into(t, &set)
		if set.DigestTemplate != "morning_digest" || set.TimeZone != "Europe/London" {
			t.Fatalf("the zone's change kept the template? %+v", set)
		}
		e.OK(200, e.Call(w.Key, "PATCH", "/studio/settings", map[string]any{"digestTemplate": nil})).Into(t, &set)
		if set.DigestTemplate != "" {
			t.Fatalf("null kept the template: %+v", set)
		}
		s, err := st.StudioByID(context.Background(), w.Studio.ID)
		if err != nil {
			t.Fatal(err)
		}
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(s.Settings, &raw); err != nil || string(raw["digestTemplate"]) != `""` || string(raw["timeZone"]) != `"Europe/London"` {
			t.Fatalf("stored settings %s", s.Settings)
		}
		// A coach's connection sets no studio setting.
		e.Fails(403, "FORBIDDEN", e.Call(one, "PATCH", "/studio/settings", map[string]any{"digestTemplate": "x"}))
	})
}
