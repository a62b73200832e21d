package lane_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/auth"
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
	onSQLite(t, func(t *testing.T, st store.Store) {
		e := newTraineeEnv(t, st, traineeEnvOptions{now: func() time.Time { return insightsNow }})
		w := seedTriage(t, e, "digest-"+st.Engine())
		other := seedTriage(t, e, "digest-other-"+st.Engine())
		one := e.grant(w.studio.ID, w.coach1.ID, auth.ScopeStudioRead, auth.ScopeStudioWrite)
		path := "/coaches/" + w.coach1.ID + "/digest"

		var d digestOut
		e.ok(200, e.call(one, "GET", path, nil)).into(t, &d)
		if d.Enabled || d.Hour != 7 || d.CoachID != w.coach1.ID || d.TimeZone != "Asia/Jerusalem" || d.DigestTemplate != "" {
			t.Fatalf("before opting in: %+v", d)
		}
		e.ok(200, e.call(one, "PUT", path, map[string]any{"enabled": true, "hour": 6})).into(t, &d)
		if !d.Enabled || d.Hour != 6 {
			t.Fatalf("after opting in: %+v", d)
		}
		// The hour is kept when only enabled is sent.
		e.ok(200, e.call(one, "PUT", path, map[string]any{"enabled": false})).into(t, &d)
		if d.Enabled || d.Hour != 6 {
			t.Fatalf("after opting out: %+v", d)
		}
		got, err := st.Digests().DigestSetting(context.Background(), w.studio.ID, w.coach1.ID)
		if err != nil || !got.Set || got.Enabled || got.Hour != 6 {
			t.Fatalf("stored %+v %v", got, err)
		}
		for _, body := range []map[string]any{{"enabled": true, "hour": 24}, {"enabled": true, "hour": -1}, {"hour": 7}, {"enabled": "yes"}, {"enabled": true, "hour": nil}} {
			a := e.call(one, "PUT", path, body)
			if a.Status != 422 {
				t.Errorf("PUT %v: %d %s", body, a.Status, a.Raw)
			}
		}
		// Another coach's: refused to a coach, whether her grant or the
		// assistant speaking for her with the studio key.
		two := "/coaches/" + w.coach2.ID + "/digest"
		a := e.fails(403, "FORBIDDEN", e.call(one, "PUT", two, map[string]any{"enabled": true}))
		if !strings.Contains(a.message(), "only her own") {
			t.Errorf("refusal: %s", a.Raw)
		}
		e.fails(403, "FORBIDDEN", e.call(one, "GET", two, nil))
		assistant, err := e.roundTrip(speakingFor{laneclient.HandlerTransport(e.lane), w.coach1.ID}, w.key, "PUT", two, map[string]any{"enabled": true})
		if err != nil {
			t.Fatal(err)
		}
		e.fails(403, "FORBIDDEN", assistant)
		assistant, err = e.roundTrip(speakingFor{laneclient.HandlerTransport(e.lane), w.coach1.ID}, w.key, "PUT", path, map[string]any{"enabled": true})
		if err != nil {
			t.Fatal(err)
		}
		e.ok(200, assistant)
		// The studio key speaks for the studio: any of its coaches.
		e.ok(200, e.call(w.key, "PUT", two, map[string]any{"enabled": true, "hour": 21})).into(t, &d)
		if !d.Enabled || d.Hour != 21 || d.CoachID != w.coach2.ID {
			t.Fatalf("studio key: %+v", d)
		}
		// Another studio's coach is not found, whoever asks.
		e.fails(404, "NOT_FOUND", e.call(w.key, "PUT", "/coaches/"+other.coach1.ID+"/digest", map[string]any{"enabled": true}))
		e.fails(404, "NOT_FOUND", e.call(one, "GET", "/coaches/"+other.coach1.ID+"/digest", nil))

		// The template: the studio's apps set it; null removes it.
		var set struct {
			TimeZone       string `json:"timeZone"`
			DigestTemplate string `json:"digestTemplate"`
		}
		e.ok(200, e.call(w.key, "PATCH", "/studio/settings", map[string]any{"digestTemplate": "morning_digest"})).into(t, &set)
		if set.DigestTemplate != "morning_digest" || set.TimeZone != "Asia/Jerusalem" {
			t.Fatalf("PATCH digestTemplate: %+v", set)
		}
		e.ok(200, e.call(w.key, "GET", "/studio/settings", nil)).into(t, &set)
		e.ok(200, e.call(one, "GET", path, nil)).into(t, &d)
		if set.DigestTemplate != "morning_digest" || d.DigestTemplate != "morning_digest" {
			t.Fatalf("GET: %+v, the coach's %+v", set, d)
		}
		for _, bad := range []any{"Morning Digest", "morning-digest", 3} {
			e.refused("digestTemplate", e.call(w.key, "PATCH", "/studio/settings", map[string]any{"digestTemplate": bad}))
		}
		e.ok(200, e.call(w.key, "PATCH", "/studio/settings", map[string]any{"timeZone": "Europe/London"})).into(t, &set)
		if set.DigestTemplate != "morning_digest" || set.TimeZone != "Europe/London" {
			t.Fatalf("the zone's change kept the template? %+v", set)
		}
		e.ok(200, e.call(w.key, "PATCH", "/studio/settings", map[string]any{"digestTemplate": nil})).into(t, &set)
		if set.DigestTemplate != "" {
			t.Fatalf("null kept the template: %+v", set)
		}
		s, err := st.StudioByID(context.Background(), w.studio.ID)
		if err != nil {
			t.Fatal(err)
		}
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(s.Settings, &raw); err != nil || string(raw["digestTemplate"]) != `""` || string(raw["timeZone"]) != `"Europe/London"` {
			t.Fatalf("stored settings %s", s.Settings)
		}
		// A coach's connection sets no studio setting.
		e.fails(403, "FORBIDDEN", e.call(one, "PATCH", "/studio/settings", map[string]any{"digestTemplate": "x"}))
	})
}
