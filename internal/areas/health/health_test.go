package health_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/lane/lanetest"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/store/storetest"
	"github.com/otherwise/perform/internal/training"
)

// healthEnv is a lane whose clock the test moves, one studio and a fresh
// trainee of it.
func healthEnv(t *testing.T, st store.Store, at time.Time) (*kit.Env, *storetest.FixedClock, kit.Fixture, string) {
	t.Helper()
	clk := storetest.NewFixedClock(at)
	e := lanetest.New(t, st, kit.Options{Now: clk.Now})
	f := e.Seed("health") // each engine's store is fresh
	var tr domain.Trainee
	e.OK(201, e.Call(f.Key, "POST", "/trainees", map[string]any{"firstName": "Noa", "lastName": "Cohen", "phone": "054-777-0001"})).Into(t, &tr)
	return e, clk, f, "/trainees/" + tr.ID
}

type checkInOut struct {
	domain.CheckIn
	Updated bool `json:"updated"`
}

// One check-in per trainee per local day in the studio's zone: 23:30 in
// Israel is that Israeli day, 00:30 the next, whatever the UTC date.
func TestCheckInOnePerLocalDay(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		// 06:00 in Israel on 1 July 2026 (summer time, UTC+3).
		e, clk, f, tp := healthEnv(t, st, time.Date(2026, 7, 1, 3, 0, 0, 0, time.UTC))
		k := f.Key
		before := len(e.Notifications(f.Studio.ID))

		var first, second, next checkInOut
		e.OK(201, e.Call(k, "POST", tp+"/check-ins", map[string]any{"readiness": 7, "soreness": 3, "soreAreas": []string{"knee", "calf", "knee"}, "sleepHours": 7.5, "note": " morning "})).Into(t, &first)
		if first.Updated || first.Day != "2026-07-01" || *first.Readiness != 7 || !slices.Equal(first.SoreAreas, []string{"knee", "calf"}) || *first.Note != "morning" {
			t.Fatalf("first check-in: %+v", first)
		}
		// 23:30 Israel time is 20:30Z in summer: the same Israeli day, so it
		// updates the morning's check-in: the fields sent replace, the rest stay.
		clk.Set(time.Date(2026, 7, 1, 20, 30, 0, 0, time.UTC))
		e.OK(201, e.Call(k, "POST", tp+"/check-ins", map[string]any{"readiness": 5, "mood": 4})).Into(t, &second)
		if !second.Updated || second.ID != first.ID || second.Day != "2026-07-01" || *second.Readiness != 5 || *second.Mood != 4 ||
			*second.Soreness != 3 || *second.SleepHours != 7.5 || *second.Note != "morning" || !second.CreatedAt.Equal(first.CreatedAt) {
			t.Fatalf("the 23:30 check-in: %+v; want the morning's updated", second)
		}
		// 00:30 Israel time on 2 July is still 1 July in UTC: a new day.
		clk.Set(time.Date(2026, 7, 1, 21, 30, 0, 0, time.UTC))
		e.OK(201, e.Call(k, "POST", tp+"/check-ins", map[string]any{"readiness": 8})).Into(t, &next)
		if next.Updated || next.ID == first.ID || next.Day != "2026-07-02" || next.Soreness != nil {
			t.Fatalf("the 00:30 check-in: %+v; want a new one for 2026-07-02", next)
		}
		// In winter Israel is UTC+2: 23:30 on 15 January is 21:30Z, and
		// that morning's 07:00 (05:00Z) is the same day.
		var winter, winterAgain, winterNext checkInOut
		e.OK(201, e.Call(k, "POST", tp+"/check-ins", map[string]any{"at": "2026-01-15T21:30:00Z", "stress": 4})).Into(t, &winter)
		e.OK(201, e.Call(k, "POST", tp+"/check-ins", map[string]any{"at": "2026-01-15T05:00:00Z", "sleepQuality": 2})).Into(t, &winterAgain)
		e.OK(201, e.Call(k, "POST", tp+"/check-ins", map[string]any{"at": "2026-01-15T22:30:00Z", "stress": 2})).Into(t, &winterNext)
		if winter.Day != "2026-01-15" || winter.Updated || !winterAgain.Updated || winterAgain.ID != winter.ID || *winterAgain.Stress != 4 || *winterAgain.SleepQuality != 2 ||
			winterNext.Day != "2026-01-16" || winterNext.Updated {
			t.Fatalf("winter: %+v / %+v / %+v", winter, winterAgain, winterNext)
		}
		// null clears a field of the day's check-in.
		var cleared checkInOut
		e.OK(201, e.Call(k, "POST", tp+"/check-ins", map[string]any{"at": "2026-07-01T20:00:00Z", "note": nil, "soreAreas": []string{}})).Into(t, &cleared)
		if !cleared.Updated || cleared.ID != first.ID || cleared.Note != nil || len(cleared.SoreAreas) != 0 || *cleared.Readiness != 5 || *cleared.Soreness != 3 {
			t.Fatalf("clearing the note: %+v", cleared)
		}

		var days kit.List[domain.CheckIn]
		e.OK(200, e.Call(k, "GET", tp+"/check-ins?from=2026-01-01&to=2026-07-31", nil)).Into(t, &days)
		var got []string
		for _, c := range days.Items {
			got = append(got, c.Day)
		}
		if want := []string{"2026-07-02", "2026-07-01", "2026-01-16", "2026-01-15"}; days.Total != 4 || !slices.Equal(got, want) {
			t.Fatalf("check-ins = %v (total %d), want %v", got, days.Total, want)
		}
		e.OK(200, e.Call(k, "GET", tp+"/check-ins?from=2026-01-16&to=2026-07-01&limit=1", nil)).Into(t, &days)
		if days.Total != 2 || len(days.Items) != 1 || days.Items[0].Day != "2026-07-01" || days.NextOffset == nil || *days.NextOffset != 1 {
			t.Fatalf("a page of the range: %+v", days)
		}
		// Without a range: the 366 days ending today (2 July in Israel).
		e.OK(200, e.Call(k, "GET", tp+"/check-ins", nil)).Into(t, &days)
		if days.Total != 4 {
			t.Fatalf("the default range holds %d check-ins, want 4", days.Total)
		}

		// The studio's zone decides: in New York 03:00Z on 2 July is 23:00 on 1 July.
		clk.Set(time.Date(2026, 7, 2, 4, 0, 0, 0, time.UTC))
		e.OK(200, e.Call(k, "PATCH", "/studio/settings", map[string]any{"timeZone": "America/New_York"}))
		var ny checkInOut
		e.OK(201, e.Call(k, "POST", tp+"/check-ins", map[string]any{"at": "2026-07-02T03:00:00Z", "mood": 1})).Into(t, &ny)
		if !ny.Updated || ny.ID != first.ID || ny.Day != "2026-07-01" {
			t.Fatalf("in New York: %+v; want the 1 July check-in updated", ny)
		}

		if after := len(e.Notifications(f.Studio.ID)); after != before {
			t.Fatalf("check-ins wrote %d notifications; they reach no one", after-before)
		}
	})
}

func TestCheckInValidation(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		e, _, f, tp := healthEnv(t, st, time.Date(2026, 7, 1, 3, 0, 0, 0, time.UTC))
		k := f.Key
		for _, c := range []struct {
			field string
			body  map[string]any
		}{
			{"readiness", map[string]any{}},
			{"readiness", map[string]any{"at": "2026-06-30T10:00:00Z"}},
			{"readiness", map[string]any{"readiness": 0}},
			{"readiness", map[string]any{"readiness": 11}},
			{"soreness", map[string]any{"soreness": 0}},
			{"soreness", map[string]any{"soreness": 10.5}},
			{"soreAreas", map[string]any{"soreness": 4, "soreAreas": []string{"toe"}}},
			{"sleepHours", map[string]any{"sleepHours": 25}},
			{"sleepHours", map[string]any{"sleepHours": -1}},
			{"sleepQuality", map[string]any{"sleepQuality": 6}},
			{"mood", map[string]any{"mood": 0}},
			{"stress", map[string]any{"stress": 6}},
			{"note", map[string]any{"note": strings.Repeat("n", 1001)}},
			{"at", map[string]any{"readiness": 5, "at": "2026-07-01T04:00:00Z"}}, // an hour after the lane's now
			{"at", map[string]any{"readiness": 5, "at": "yesterday"}},
			{"colour", map[string]any{"readiness": 5, "colour": "red"}},
		} {
			e.Refused(c.field, e.Call(k, "POST", tp+"/check-ins", c.body))
		}
		for _, c := range []struct{ field, query string }{
			{"from", "?from=2026-03-01&to=2026-02-01"},
			{"to", "?from=2025-01-01&to=2026-01-02"}, // 367 days
			{"from", "?from=2026-02-30"},
			{"limit", "?limit=500"},
		} {
			e.Refused(c.field, e.Call(k, "GET", tp+"/check-ins"+c.query, nil))
		}
		// 366 days, both ends included, is allowed.
		e.OK(200, e.Call(k, "GET", tp+"/check-ins?from=2025-01-01&to=2026-01-01", nil))
		e.Fails(404, "NOT_FOUND", e.Call(k, "POST", "/trainees/trn_missing/check-ins", map[string]any{"readiness": 5}))
	})
}

func TestStudioTimeZone(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		e := lanetest.New(t, st)
		s, key, _ := e.Studio("zone", "pro")
		var info struct{ TimeZone string }
		e.OK(200, e.Call(key, "GET", "/validate", nil)).Into(t, &info)
		if info.TimeZone != "Asia/Jerusalem" {
			t.Fatalf("validate timeZone = %q, want the default Asia/Jerusalem", info.TimeZone)
		}
		// The assistant's part of the settings survives the change.
		if err := st.UpdateStudioSettings(context.Background(), s.ID, json.RawMessage(`{"agent":{"keyId":"key_x"},"other":1}`)); err != nil {
			t.Fatal(err)
		}
		for _, body := range []map[string]any{{"timeZone": "Mars/Olympus"}, {"timeZone": "Local"}, {"timeZone": ""}, {}, {"timeZone": 3}} {
			e.Refused("timeZone", e.Call(key, "PATCH", "/studio/settings", body))
		}
		var set struct{ TimeZone string }
		e.OK(200, e.Call(key, "PATCH", "/studio/settings", map[string]any{"timeZone": " Europe/London "})).Into(t, &set)
		if set.TimeZone != "Europe/London" {
			t.Fatalf("PATCH answered %+v", set)
		}
		got, err := st.StudioByID(context.Background(), s.ID)
		if err != nil {
			t.Fatal(err)
		}
		var settings map[string]json.RawMessage
		if err := json.Unmarshal(got.Settings, &settings); err != nil || string(settings["timeZone"]) != `"Europe/London"` ||
			string(settings["agent"]) != `{"keyId":"key_x"}` || string(settings["other"]) != "1" {
			t.Fatalf("stored settings %s", got.Settings)
		}
		e.OK(200, e.Call(key, "GET", "/validate", nil)).Into(t, &info)
		e.OK(200, e.Call(key, "GET", "/studio/settings", nil)).Into(t, &set)
		if info.TimeZone != "Europe/London" || set.TimeZone != "Europe/London" {
			t.Fatalf("after the change: validate %q, settings %q", info.TimeZone, set.TimeZone)
		}
		// The zone is the studio's own apps' to set, never a tool's.
		coach := e.KeyWith(s.ID, "studio:read", "studio:write")
		e.Fails(403, "FORBIDDEN", e.Call(coach, "PATCH", "/studio/settings", map[string]any{"timeZone": "Asia/Tokyo"}))
	})
}

type bodyAnalysisOut struct {
	TraineeID string                  `json:"traineeId"`
	From      string                  `json:"from"`
	To        string                  `json:"to"`
	Metrics   []training.MetricChange `json:"metrics"`
}

func TestMeasurementsAndBodyAnalysis(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		e, _, f, tp := healthEnv(t, st, time.Date(2026, 7, 10, 9, 0, 0, 0, time.UTC))
		k := f.Key
		for _, c := range []struct {
			field string
			body  map[string]any
		}{
			{"bodyFatPct", map[string]any{}},
			{"bodyFatPct", map[string]any{"notes": "only a note"}},
			{"bodyFatPct", map[string]any{"bodyFatPct": 1}},
			{"waistCm", map[string]any{"waistCm": 10}},
			{"hipsCm", map[string]any{"hipsCm": 300}},
			{"chestCm", map[string]any{"chestCm": nil}},
			{"armCm", map[string]any{"armCm": 90}},
			{"thighCm", map[string]any{"thighCm": 5}},
			{"restingHr", map[string]any{"restingHr": 300}},
			{"restingHr", map[string]any{"restingHr": 60.5}},
			{"recordedAt", map[string]any{"waistCm": 80, "recordedAt": "2026-07-11T09:00:00Z"}},
		} {
			e.Refused(c.field, e.Call(k, "POST", tp+"/measurements", c.body))
		}

		post := func(body map[string]any) domain.Measurement {
			var m domain.Measurement
			e.OK(201, e.Call(k, "POST", tp+"/measurements", body)).Into(t, &m)
			return m
		}
		// 23:30 on 30 April in Israel (20:30Z): before the range; 01:30 on
		// 1 May (22:30Z on 30 April): inside it.
		post(map[string]any{"recordedAt": "2026-04-30T20:30:00Z", "waistCm": 99})
		post(map[string]any{"recordedAt": "2026-04-30T22:30:00Z", "waistCm": 90, "bodyFatPct": 25})
		post(map[string]any{"recordedAt": "2026-05-15T06:00:00Z", "waistCm": 88, "restingHr": 60})
		last := post(map[string]any{"recordedAt": "2026-06-01T06:00:00Z", "waistCm": 86.5, "bodyFatPct": 23.5, "notes": "after the cut"})
		if *last.WaistCm != 86.5 || last.HipsCm != nil || *last.Notes != "after the cut" || !strings.HasPrefix(last.ID, "msr_") {
			t.Fatalf("recorded %+v", last)
		}
		e.OK(201, e.Call(k, "POST", tp+"/weights", map[string]any{"weightKg": 82, "recordedAt": "2026-05-02T06:00:00Z"}))
		e.OK(201, e.Call(k, "POST", tp+"/weights", map[string]any{"weightKg": 80.4, "recordedAt": "2026-06-02T06:00:00Z"}))
		e.OK(201, e.Call(k, "POST", tp+"/weights", map[string]any{"weightKg": 79, "recordedAt": "2026-07-01T06:00:00Z"})) // after the range

		var page kit.List[domain.Measurement]
		e.OK(200, e.Call(k, "GET", tp+"/measurements?limit=2", nil)).Into(t, &page)
		if page.Total != 4 || len(page.Items) != 2 || page.Items[0].ID != last.ID || *page.Items[1].WaistCm != 88 || page.NextOffset == nil || *page.NextOffset != 2 {
			t.Fatalf("measurements page = %+v", page)
		}

		var ba bodyAnalysisOut
		e.OK(200, e.Call(k, "GET", tp+"/body-analysis?from=2026-05-01&to=2026-06-30", nil)).Into(t, &ba)
		// By hand, 1 May to 30 June in Israel: weight 82 → 80.4 (−1.6, 2
		// values); body fat 25 → 23.5 (−1.5); waist 90 → 86.5 (−3.5, 3
		// values; the 99 of 30 April is outside); resting HR 60 once.
		type row struct {
			metric        string
			count         int
			first, latest float64
			change        float64
		}
		want := []row{{"weightKg", 2, 82, 80.4, -1.6}, {"bodyFatPct", 2, 25, 23.5, -1.5}, {"waistCm", 3, 90, 86.5, -3.5}, {"restingHr", 1, 60, 60, 0}}
		var got []row
		for _, m := range ba.Metrics {
			got = append(got, row{m.Metric, m.Count, m.First.Value, m.Latest.Value, m.Change})
		}
		if !slices.Equal(got, want) || ba.From != "2026-05-01" || ba.To != "2026-06-30" {
			t.Fatalf("body analysis = %+v\nwant %+v", got, want)
		}
		e.Refused("from", e.Call(k, "GET", tp+"/body-analysis?from=2026-06-30&to=2026-05-01", nil))
		e.Refused("to", e.Call(k, "GET", tp+"/body-analysis?from=2025-01-01&to=2026-06-30", nil))
		e.Refused("to", e.Call(k, "GET", tp+"/body-analysis?to=2026-13-01", nil))
		e.Fails(404, "NOT_FOUND", e.Call(k, "GET", "/trainees/trn_missing/body-analysis", nil))
	})
}

type injuryOut struct {
	domain.Injury
	Guidance *training.Guidance `json:"guidance"`
}

func TestInjuries(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		// 22:30Z on 1 July is 01:30 on 2 July in Israel: today is 2 July there.
		e, _, f, tp := healthEnv(t, st, time.Date(2026, 7, 1, 22, 30, 0, 0, time.UTC))
		k := f.Key
		for _, c := range []struct {
			field string
			body  map[string]any
		}{
			{"area", map[string]any{"severity": 2}},
			{"area", map[string]any{"area": "toe", "severity": 2}},
			{"severity", map[string]any{"area": "knee"}},
			{"severity", map[string]any{"area": "knee", "severity": 6}},
			{"side", map[string]any{"area": "knee", "severity": 2, "side": "middle"}},
			{"status", map[string]any{"area": "knee", "severity": 2, "status": "resolved"}},
			{"onsetOn", map[string]any{"area": "knee", "severity": 2, "onsetOn": "2026-07-03"}},
			{"onsetOn", map[string]any{"area": "knee", "severity": 2, "onsetOn": "2001-01-01"}},
			{"affectedExercises", map[string]any{"area": "knee", "severity": 2, "affectedExercises": []string{"no-such-lift"}}},
			{"affectedExercises", map[string]any{"area": "knee", "severity": 2, "affectedExercises": []string{""}}},
			{"notes", map[string]any{"area": "knee", "severity": 2, "notes": strings.Repeat("x", 2001)}},
		} {
			e.Refused(c.field, e.Call(k, "POST", tp+"/injuries", c.body))
		}

		var knee injuryOut
		e.OK(201, e.Call(k, "POST", tp+"/injuries", map[string]any{"area": "knee", "side": "left", "severity": 3, "affectedExercises": []string{"back-squat", "back-squat"}, "notes": "stairs hurt"})).Into(t, &knee)
		if knee.Status != "active" || knee.OnsetOn != "2026-07-02" || knee.Side != "left" || !slices.Equal(knee.AffectedExercises, []string{"back-squat"}) || knee.ResolvedOn != nil {
			t.Fatalf("recorded %+v", knee.Injury)
		}
		if g := knee.Guidance; g == nil || g.Area != "knee" || g.From != "2026-07-02" || g.To != "2026-07-15" || g.AtRisk == nil {
			t.Fatalf("guidance %+v; want the knee from today (Israel) for 14 days", knee.Guidance)
		}
		var wrist injuryOut
		e.OK(201, e.Call(k, "POST", tp+"/injuries", map[string]any{"area": "wrist", "severity": 1, "status": "recovering", "onsetOn": "2026-06-01"})).Into(t, &wrist)
		if wrist.Side != "none" || wrist.OnsetOn != "2026-06-01" {
			t.Fatalf("recorded %+v", wrist.Injury)
		}

		var injuries kit.List[domain.Injury]
		e.OK(200, e.Call(k, "GET", tp+"/injuries", nil)).Into(t, &injuries)
		if injuries.Total != 2 || injuries.Items[0].ID != knee.ID || injuries.Items[1].ID != wrist.ID {
			t.Fatalf("injuries = %+v; want newest onset first", injuries)
		}
		e.OK(200, e.Call(k, "GET", tp+"/injuries?status=recovering", nil)).Into(t, &injuries)
		if injuries.Total != 1 || injuries.Items[0].ID != wrist.ID {
			t.Fatalf("recovering injuries = %+v", injuries)
		}
		e.Refused("status", e.Call(k, "GET", tp+"/injuries?status=healed", nil))

		ip := "/injuries/" + knee.ID
		for _, c := range []struct {
			field string
			body  map[string]any
		}{
			{"resolvedOn", map[string]any{"resolvedOn": "2026-07-01"}}, // still active
			{"resolvedOn", map[string]any{"status": "resolved", "resolvedOn": "2026-07-01"}},
			{"resolvedOn", map[string]any{"status": "resolved", "resolvedOn": "2026-07-05"}},
			{"severity", map[string]any{"severity": 0}},
			{"severity", map[string]any{"severity": nil}},
			{"status", map[string]any{"status": "healed"}},
		} {
			e.Refused(c.field, e.Call(k, "PATCH", ip, c.body))
		}
		var resolved injuryOut
		e.OK(200, e.Call(k, "PATCH", ip, map[string]any{"status": "resolved", "notes": nil})).Into(t, &resolved)
		if resolved.Status != "resolved" || resolved.ResolvedOn == nil || *resolved.ResolvedOn != "2026-07-02" || resolved.Notes != nil || resolved.Guidance != nil {
			t.Fatalf("resolved: %+v guidance %v; want resolvedOn today in Israel, no guidance", resolved.Injury, resolved.Guidance)
		}
		var back injuryOut
		e.OK(200, e.Call(k, "PATCH", ip, map[string]any{"status": "recovering", "severity": 2})).Into(t, &back)
		if back.Status != "recovering" || back.ResolvedOn != nil || back.Severity != 2 || back.Guidance == nil {
			t.Fatalf("back to recovering: %+v", back)
		}
		e.Fails(404, "NOT_FOUND", e.Call(k, "PATCH", "/injuries/inj_missing", map[string]any{"severity": 1}))
		e.Fails(404, "NOT_FOUND", e.Call(k, "PATCH", "/injuries/"+f.Goal.ID, map[string]any{"severity": 1}))
	})
}

// TestInjuryGuidance: the planned exercises of the next 14 days that load
// the area, and their alternatives that do not, from the built-in catalogue.
func TestInjuryGuidance(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		e, _, f, tp := healthEnv(t, st, time.Date(2026, 7, 1, 6, 0, 0, 0, time.UTC))
		sessions := st.Studio(f.Studio.ID)
		traineeID := strings.TrimPrefix(tp, "/trainees/")
		planned := func(id, date, title, status string, exercises ...string) *domain.Session {
			s := &domain.Session{ID: id, TraineeID: traineeID, Date: date, Sport: "strength", Title: title, Status: status, Source: domain.SessionFromCoach}
			for _, x := range exercises {
				s.Exercises = append(s.Exercises, domain.SessionExercise{ExerciseID: x, Sets: []domain.SetEntry{}})
			}
			return s
		}
		if err := sessions.CreateSessions(context.Background(), []*domain.Session{
			planned("ses_guide1", "2026-07-02", "Legs", domain.SessionPlanned, "back-squat", "bench-press", "leg-press"),
			planned("ses_guide2", "2026-07-04", "Run", domain.SessionPlanned, "running"),
			planned("ses_guide3", "2026-07-16", "Too far", domain.SessionPlanned, "back-squat"),
			planned("ses_guide4", "2026-06-30", "Past", domain.SessionPlanned, "goblet-squat"),
		}); err != nil {
			t.Fatal(err)
		}
		var knee injuryOut
		e.OK(201, e.Call(f.Key, "POST", tp+"/injuries", map[string]any{"area": "knee", "severity": 3})).Into(t, &knee)
		// By hand from the catalogue, 1 to 14 July: Legs (2 July) and Run (4
		// July) are planned. back-squat loads the knee, and so do all its
		// alternatives (front-squat, goblet-squat, leg-press, hack-squat,
		// smith-machine-squat, box-squat). bench-press does not load it.
		// leg-press loads it, as do back-squat, goblet-squat and hack-squat.
		// running loads it, as do treadmill-running, cycling, elliptical and
		// trail-running. No alternative spares the knee.
		type risk struct{ session, exercise string }
		var got []risk
		for _, r := range knee.Guidance.AtRisk {
			got = append(got, risk{r.SessionID, r.ExerciseID})
			if len(r.Alternatives) != 0 {
				t.Errorf("%s: alternatives %v, want none that spare the knee", r.ExerciseID, r.Alternatives)
			}
		}
		want := []risk{{"ses_guide1", "back-squat"}, {"ses_guide1", "leg-press"}, {"ses_guide2", "running"}}
		if knee.Guidance.PlannedSessions != 2 || !slices.Equal(got, want) {
			t.Fatalf("knee guidance = %+v, want %v of 2 planned", knee.Guidance, want)
		}
		// The lower back: only back-squat loads it; of its alternatives
		// box-squat and front-squat load it too, the other four spare it.
		var back injuryOut
		e.OK(201, e.Call(f.Key, "POST", tp+"/injuries", map[string]any{"area": "lower_back", "severity": 2})).Into(t, &back)
		if len(back.Guidance.AtRisk) != 1 || back.Guidance.AtRisk[0].ExerciseID != "back-squat" {
			t.Fatalf("lower back guidance = %+v", back.Guidance)
		}
		var alts []string
		for _, a := range back.Guidance.AtRisk[0].Alternatives {
			alts = append(alts, a.ID)
		}
		if want := []string{"goblet-squat", "leg-press", "hack-squat", "smith-machine-squat"}; !slices.Equal(alts, want) {
			t.Fatalf("lower back alternatives = %v, want %v", alts, want)
		}
	})
}

type goalOut struct {
	domain.Goal
	Progress *training.GoalProgress `json:"progress"`
}

func TestGoals(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		e, clk, f, tp := healthEnv(t, st, time.Date(2026, 7, 1, 3, 0, 0, 0, time.UTC))
		k := f.Key
		for _, c := range []struct {
			field string
			body  map[string]any
		}{
			{"title", map[string]any{"kind": "text"}},
			{"title", map[string]any{"title": "", "kind": "text"}},
			{"kind", map[string]any{"title": "x", "kind": "dream"}},
			{"benchmarkId", map[string]any{"title": "x", "kind": "benchmark", "targetValue": 100}},
			{"measure", map[string]any{"title": "x", "kind": "measurement", "targetValue": 70}},
			{"measure", map[string]any{"title": "x", "kind": "consistency", "measure": "weightKg", "targetValue": 3}},
			{"measure", map[string]any{"title": "x", "kind": "measurement", "measure": "bicepsCm", "targetValue": 40}},
			{"benchmarkId", map[string]any{"title": "x", "kind": "text", "benchmarkId": "bmk_x"}},
			{"targetValue", map[string]any{"title": "x", "kind": "consistency"}},
			{"targetValue", map[string]any{"title": "x", "kind": "consistency", "targetValue": 20}},
			{"targetValue", map[string]any{"title": "x", "kind": "measurement", "measure": "weightKg", "targetValue": -1}},
			{"targetDate", map[string]any{"title": "x", "kind": "text", "targetDate": "2020-01-01"}},
		} {
			e.Refused(c.field, e.Call(k, "POST", tp+"/goals", c.body))
		}

		// Weigh-ins: 82 on 20 June, 81 on 30 June (the value when the goal is set).
		e.OK(201, e.Call(k, "POST", tp+"/weights", map[string]any{"weightKg": 82, "recordedAt": "2026-06-20T06:00:00Z"}))
		e.OK(201, e.Call(k, "POST", tp+"/weights", map[string]any{"weightKg": 81, "recordedAt": "2026-06-30T06:00:00Z"}))
		var weight, often, free goalOut
		e.OK(201, e.Call(k, "POST", tp+"/goals", map[string]any{"title": "Reach 77 kg", "kind": "measurement", "measure": "weightKg", "targetValue": 77, "targetDate": "2026-10-01"})).Into(t, &weight)
		if *weight.Unit != "kg" || weight.Status != "active" || weight.Progress == nil || *weight.Progress.Start != 81 || *weight.Progress.Current != 81 || weight.Progress.Percent != 0 {
			t.Fatalf("new weight goal %+v progress %+v", weight.Goal, weight.Progress)
		}
		clk.Advance(time.Minute) // goals list by creation
		e.OK(201, e.Call(k, "POST", tp+"/goals", map[string]any{"title": "Train 3 times a week", "kind": "consistency", "targetValue": 3})).Into(t, &often)
		if *often.Unit != "sessions/week" || often.Progress == nil || len(often.Progress.Weeks) != 4 {
			t.Fatalf("consistency goal %+v progress %+v", often.Goal, often.Progress)
		}
		clk.Advance(time.Minute)
		e.OK(201, e.Call(k, "POST", tp+"/goals", map[string]any{"title": "Feel strong", "kind": "text"})).Into(t, &free)
		if free.Progress != nil {
			t.Fatalf("a text goal has progress %+v", free.Progress)
		}

		// Ten days on, 79 kg: by hand, 2 of the 4 kg from 81 to 77 is 50 %.
		clk.Set(time.Date(2026, 7, 10, 6, 0, 0, 0, time.UTC))
		e.OK(201, e.Call(k, "POST", tp+"/weights", map[string]any{"weightKg": 79}))
		var goals kit.List[goalOut]
		e.OK(200, e.Call(k, "GET", tp+"/goals", nil)).Into(t, &goals)
		if goals.Total != 3 || goals.Items[0].ID != weight.ID || goals.Items[1].ID != often.ID || goals.Items[2].ID != free.ID {
			t.Fatalf("goals = %+v; want oldest first", goals)
		}
		if p := goals.Items[0].Progress; *p.Start != 81 || *p.Current != 79 || p.Percent != 50 || p.Reached {
			t.Fatalf("weight progress %+v", p)
		}

		gp := "/goals/" + often.ID
		for _, c := range []struct {
			field string
			body  map[string]any
		}{
			{"title", map[string]any{"title": ""}},
			{"title", map[string]any{"title": nil}},
			{"targetValue", map[string]any{"targetValue": 15}},
			{"status", map[string]any{"status": "done"}},
			{"kind", map[string]any{"kind": "text"}},
		} {
			e.Refused(c.field, e.Call(k, "PATCH", gp, c.body))
		}
		var done goalOut
		e.OK(200, e.Call(k, "PATCH", gp, map[string]any{"status": "completed", "targetValue": 4})).Into(t, &done)
		if done.Status != "completed" || done.CompletedAt == nil || !done.CompletedAt.Equal(clk.Now()) || *done.TargetValue != 4 {
			t.Fatalf("completed: %+v", done.Goal)
		}
		e.OK(200, e.Call(k, "PATCH", "/goals/"+free.ID, map[string]any{"status": "abandoned", "unit": nil}))
		e.OK(200, e.Call(k, "GET", tp+"/goals?status=active", nil)).Into(t, &goals)
		if goals.Total != 1 || goals.Items[0].ID != weight.ID {
			t.Fatalf("active goals = %+v", goals)
		}
		var reopened goalOut
		e.OK(200, e.Call(k, "PATCH", gp, map[string]any{"status": "active"})).Into(t, &reopened)
		if reopened.CompletedAt != nil {
			t.Fatalf("reopened goal keeps completedAt %v", reopened.CompletedAt)
		}
		e.OK(200, e.Call(k, "GET", tp+"/goals?limit=1&offset=1", nil)).Into(t, &goals)
		if goals.Total != 3 || len(goals.Items) != 1 || goals.Items[0].ID != often.ID || goals.NextOffset == nil || *goals.NextOffset != 2 {
			t.Fatalf("a page of goals = %+v", goals)
		}
		e.Refused("status", e.Call(k, "GET", tp+"/goals?status=won", nil))
		e.Fails(404, "NOT_FOUND", e.Call(k, "PATCH", "/goals/gol_missing", map[string]any{"status": "abandoned"}))
	})
}

type profileOut struct {
	domain.TrainingProfile
	OnboardingStatus training.OnboardingStatus `json:"onboardingStatus"`
}

func TestTrainingProfile(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		e, _, f, tp := healthEnv(t, st, time.Date(2026, 7, 1, 3, 0, 0, 0, time.UTC))
		k := f.Key
		var p profileOut
		e.OK(200, e.Call(k, "GET", tp+"/training-profile", nil)).Into(t, &p)
		if p.Units != "metric" || p.OnboardingStatus.Complete || len(p.OnboardingStatus.Done) != 0 || len(p.OnboardingStatus.Missing) != 5 || p.Equipment == nil {
			t.Fatalf("before any: %+v", p)
		}
		for _, c := range []struct {
			field string
			body  map[string]any
		}{
			{"availability", map[string]any{"availability": []int{0}}},
			{"availability", map[string]any{"availability": []int{8}}},
			{"sessionMinutes", map[string]any{"sessionMinutes": 5}},
			{"experience", map[string]any{"experience": "pro"}},
			{"units", map[string]any{"units": "stones"}},
			{"equipment", map[string]any{"equipment": []string{""}}},
		} {
			e.Refused(c.field, e.Call(k, "PUT", tp+"/training-profile", c.body))
		}
		e.OK(200, e.Call(k, "PUT", tp+"/training-profile", map[string]any{"equipment": []string{"barbell", "dumbbell", "barbell"}, "availability": []int{5, 1, 3, 1},
			"sessionMinutes": 60, "experience": "intermediate", "units": "imperial"})).Into(t, &p)
		if !slices.Equal(p.Equipment, []string{"barbell", "dumbbell"}) || !slices.Equal(p.Availability, []int{1, 3, 5}) || *p.SessionMinutes != 60 || p.Units != "imperial" {
			t.Fatalf("put: %+v", p)
		}
		if !slices.Equal(p.OnboardingStatus.Done, []string{"profile", "availability", "equipment"}) || p.OnboardingStatus.Complete {
			t.Fatalf("onboarding after the profile: %+v", p.OnboardingStatus)
		}
		// A goal completes that part; an abandoned one would not.
		e.OK(201, e.Call(k, "POST", tp+"/goals", map[string]any{"title": "Run 5 km", "kind": "text"}))
		e.OK(200, e.Call(k, "GET", tp+"/training-profile", nil)).Into(t, &p)
		if !slices.Equal(p.OnboardingStatus.Done, []string{"profile", "availability", "equipment", "goals"}) || len(p.OnboardingStatus.Missing) != 1 || p.OnboardingStatus.Missing[0].Part != "benchmarks" {
			t.Fatalf("onboarding after a goal: %+v", p.OnboardingStatus)
		}
		// PUT replaces the whole profile.
		e.OK(200, e.Call(k, "PUT", tp+"/training-profile", map[string]any{"availability": []int{2}})).Into(t, &p)
		if len(p.Equipment) != 0 || p.SessionMinutes != nil || p.Units != "metric" || slices.Contains(p.OnboardingStatus.Done, "profile") {
			t.Fatalf("second put: %+v", p)
		}
		e.Fails(404, "NOT_FOUND", e.Call(k, "PUT", "/trainees/trn_missing/training-profile", map[string]any{}))
	})
}

// Progress and onboarding that read the sessions and benchmarks areas.
func TestGoalsReadSessionsAndBenchmarks(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		e, clk, f, tp := healthEnv(t, st, time.Date(2026, 7, 1, 3, 0, 0, 0, time.UTC))
		ss := st.Studio(f.Studio.ID)
		sessions, benchmarks := ss, ss
		ctx := context.Background()
		traineeID := strings.TrimPrefix(tp, "/trainees/")
		var rows []*domain.Session
		for i, d := range []struct{ date, status string }{
			{"2026-06-03", domain.SessionCompleted}, // before the 4 weeks
			{"2026-06-04", domain.SessionCompleted}, {"2026-06-10", domain.SessionCompleted},
			{"2026-06-17", domain.SessionCompleted},
			{"2026-06-18", domain.SessionCompleted}, {"2026-06-24", domain.SessionCompleted},
			{"2026-06-25", domain.SessionPlanned}, {"2026-07-01", domain.SessionCompleted},
		} {
			s := &domain.Session{TraineeID: traineeID, Date: d.date, Sport: "strength", Title: "Session " + d.date, Status: d.status, Source: domain.SessionFromCoach, Exercises: []domain.SessionExercise{}}
			if d.status == domain.SessionCompleted {
				at := time.Date(2026, 6, 1+i, 8, 0, 0, 0, time.UTC)
				s.CompletedAt = &at
			}
			rows = append(rows, s)
		}
		if err := sessions.CreateSessions(ctx, rows); err != nil {
			t.Fatal(err)
		}
		b := domain.Benchmark{TraineeID: traineeID, Name: "Back squat 1RM", Unit: "kg", Direction: domain.HigherIsBetter,
			Entries: []domain.BenchmarkEntry{{Value: 100, RecordedAt: time.Date(2026, 6, 20, 8, 0, 0, 0, time.UTC), Source: domain.BenchmarkFromCoach}}}
		if err := benchmarks.CreateBenchmark(ctx, &b); err != nil {
			t.Fatal(err)
		}

		var often, squat goalOut
		e.OK(201, e.Call(f.Key, "POST", tp+"/goals", map[string]any{"title": "3 a week", "kind": "consistency", "targetValue": 3})).Into(t, &often)
		// By hand, the 7-day windows ending 1 July: 4–10 June 2 sessions,
		// 11–17 June 1, 18–24 June 2, 25 June–1 July 1 (the 25th is only
		// planned): 6 in 4 weeks is 1.5 a week, half of 3.
		if p := often.Progress; !slices.Equal(p.Weeks, []int{2, 1, 2, 1}) || *p.Current != 1.5 || p.Percent != 50 || p.Reached {
			t.Fatalf("consistency progress %+v", p)
		}
		clk.Advance(time.Second) // goals list by creation
		e.OK(201, e.Call(f.Key, "POST", tp+"/goals", map[string]any{"title": "Squat 120", "kind": "benchmark", "benchmarkId": b.ID, "targetValue": 120})).Into(t, &squat)
		if *squat.Unit != "kg" || *squat.Progress.Start != 100 || *squat.Progress.Current != 100 || squat.Progress.Percent != 0 {
			t.Fatalf("benchmark goal %+v progress %+v", squat.Goal, squat.Progress)
		}
		clk.Set(time.Date(2026, 7, 10, 8, 0, 0, 0, time.UTC))
		if err := benchmarks.AddBenchmarkEntry(ctx, b.ID, &domain.BenchmarkEntry{Value: 110, RecordedAt: time.Date(2026, 7, 5, 8, 0, 0, 0, time.UTC), Source: domain.BenchmarkFromCoach}); err != nil {
			t.Fatal(err)
		}
		var goals kit.List[goalOut]
		e.OK(200, e.Call(f.Key, "GET", tp+"/goals?status=active", nil)).Into(t, &goals)
		// 100 → 110 of the way to 120 is 50 %.
		if goals.Total != 2 || goals.Items[1].ID != squat.ID || *goals.Items[1].Progress.Current != 110 || goals.Items[1].Progress.Percent != 50 {
			t.Fatalf("goals %+v", goals)
		}
		// Another trainee's benchmark is refused; a missing one is not found.
		e.Refused("benchmarkId", e.Call(f.Key, "POST", "/trainees/"+f.Trainee.ID+"/goals", map[string]any{"title": "x", "kind": "benchmark", "benchmarkId": b.ID, "targetValue": 1}))
		e.Fails(404, "NOT_FOUND", e.Call(f.Key, "POST", tp+"/goals", map[string]any{"title": "x", "kind": "benchmark", "benchmarkId": "bmk_missing", "targetValue": 1}))

		var p profileOut
		e.OK(200, e.Call(f.Key, "GET", tp+"/training-profile", nil)).Into(t, &p)
		if !slices.Equal(p.OnboardingStatus.Done, []string{"benchmarks", "goals"}) {
			t.Fatalf("onboarding with a benchmark and goals: %+v", p.OnboardingStatus)
		}
	})
}
