package planbar_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/areas"
	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/demo/demotest"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/planbar"
	"github.com/otherwise/perform/internal/store"
)

// TestDemoTraineesLoads drafts next week, through the lane and with the
// rules alone, for every active trainee of a freshly seeded demo studio,
// and holds every prescribed load to what her own logged sets allow by the
// checker's load table (not the generator's): her best set's one-rep
// maximum of that exercise, times the chart's share for the prescription's
// reps and reserve, with the bar's tolerance.
func TestDemoTraineesLoads(t *testing.T) {
	now := time.Date(2026, 12, 6, 8, 0, 0, 0, time.UTC) // a Sunday: the demo studio's week begins
	st, studio, post := demoLane(t, now)
	ss := st.Studio(studio.ID)
	trainees, err := ss.SearchTrainees(t.Context(), store.TraineeFilter{Status: domain.TraineeActive, Page: store.Page{Limit: 200}})
	if err != nil {
		t.Fatal(err)
	}
	drafted, loads := 0, 0
	for _, tr := range trainees.Items {
		// Her best one-rep maximum of each exercise, by the chart, over
		// everything she logged.
		best := map[string]float64{}
		sessions, err := ss.SessionsBetween(t.Context(), tr.ID, "2025-01-01", "2026-12-06")
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range sessions {
			for _, e := range s.Exercises {
				for _, set := range e.Sets {
					if !set.Done || set.Reps == nil || set.LoadKg == nil || *set.Reps <= 0 {
						continue
					}
					rir := 1.0 // the generator's reading of a set with no effort given; the chart's is no lower
					if set.RIR != nil {
						rir = *set.RIR
					} else if set.RPE != nil {
						rir = 10 - *set.RPE
					}
					best[e.ExerciseID] = max(best[e.ExerciseID], planbar.E1RM(*set.LoadKg, *set.Reps, rir))
				}
			}
		}
		status, data, raw := post("/trainees/"+tr.ID+"/plan-drafts", map[string]any{"week": "next", "fresh": true})
		if status == http.StatusUnprocessableEntity {
			continue // no profile to plan from: refused with a sentence, nothing prescribed
		}
		var d struct {
			Plan struct {
				WeekStart string `json:"weekStart"`
				Sessions  []struct {
					Date  string `json:"date"`
					Items []struct {
						ExerciseID string   `json:"exerciseId"`
						Reps       int      `json:"reps"`
						LoadKg     *float64 `json:"loadKg"`
						RIR        *int     `json:"rir"`
						RPE        *float64 `json:"rpe"`
					} `json:"exercises"`
				} `json:"sessions"`
			} `json:"plan"`
		}
		if status != http.StatusCreated || json.Unmarshal(data, &d) != nil {
			t.Fatalf("%s %s: %d %s", tr.FirstName, tr.LastName, status, raw)
		}
		drafted++
		if d.Plan.WeekStart != "2026-12-13" {
			t.Errorf("%s: next week starts %s; the demo studio's week starts on Sunday 13 December", tr.FirstName, d.Plan.WeekStart)
		}
		for _, s := range d.Plan.Sessions {
			for _, it := range s.Items {
				if it.LoadKg == nil || *it.LoadKg <= 20 || it.Reps == 0 {
					continue // body weight, time, or an empty bar's worth
				}
				loads++
				rir := 2.0
				switch {
				case it.RIR != nil:
					rir = float64(*it.RIR)
				case it.RPE != nil:
					rir = 10 - *it.RPE
				}
				e1rm, ok := best[it.ExerciseID]
				if !ok {
					t.Errorf("%s %s on %s: %s at %.1f kg, an exercise she never logged a load of", tr.FirstName, tr.LastName, s.Date, it.ExerciseID, *it.LoadKg)
					continue
				}
				allowed := e1rm*planbar.Share(it.Reps, rir)*1.10 + 2.5
				if *it.LoadKg > allowed {
					t.Errorf("%s %s on %s: %s %d reps at %.1f kg (%.0f in reserve); her sets show a 1RM of %.0f kg, so at most %.1f",
						tr.FirstName, tr.LastName, s.Date, it.ExerciseID, it.Reps, *it.LoadKg, rir, e1rm, allowed)
				}
			}
		}
	}
	t.Logf("demo studio: %d trainees drafted, %d loads checked against their own sets", drafted, loads)
	if drafted < 10 || loads == 0 {
		t.Fatalf("only %d drafts and %d loads: the check read almost nothing", drafted, loads)
	}
}

// demoLane is a demo studio seeded at now, on a lane whose clock stands
// at now, and a POST to it with a key of the studio.
func demoLane(t *testing.T, now time.Time) (store.Store, domain.Studio, func(string, any) (int, json.RawMessage, string)) {
	st, studio := demotest.OpenAt(t, now)
	srv := httptest.NewServer(areas.Lane(lane.Options{Store: st, Now: func() time.Time { return now }}))
	t.Cleanup(srv.Close)
	key := auth.NewKey()
	k := domain.APIKey{ID: ids.New(ids.APIKey), StudioID: studio.ID, Name: "bar", Prefix: auth.Display(key), Hash: auth.Hash(key)}
	if err := st.CreateAPIKey(t.Context(), &k); err != nil {
		t.Fatal(err)
	}
	post := func(path string, body any) (int, json.RawMessage, string) {
		b, _ := json.Marshal(body)
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.URL+"/v1/automation"+path, bytes.NewReader(b))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		raw, _ := io.ReadAll(res.Body)
		var env struct {
			Data json.RawMessage `json:"data"`
		}
		_ = json.Unmarshal(raw, &env)
		return res.StatusCode, env.Data, string(raw)
	}
	return st, studio, post
}

// TestDemoBookedDaysArePlanned drafts this week, through the lane, for
// every demo trainee with an appointment booked in it from today on (the
// demo books a week around today): each booked day holds a session whose
// note gives the appointment's local start, whether or not her days
// include it, and the week's first day (Sunday in the demo's Israeli
// studio) is the first planned.
func TestDemoBookedDaysArePlanned(t *testing.T) {
	now := time.Date(2026, 12, 6, 5, 0, 0, 0, time.UTC) // Sunday 07:00 in Jerusalem, before the day's first appointment
	st, studio, post := demoLane(t, now)
	ss := st.Studio(studio.ID)
	zone := studio.TimeZone()
	list, err := ss.ListAppointments(t.Context(), store.AppointmentFilter{From: now, To: now.AddDate(0, 0, 6),
		Statuses: []string{domain.AppointmentBooked}, Page: store.Page{Limit: 500}})
	if err != nil {
		t.Fatal(err)
	}
	booked := map[string]map[string][]string{} // trainee → local day → starts
	for _, a := range list.Items {
		local := a.StartsAt.In(zone)
		day := local.Format(time.DateOnly)
		if booked[a.TraineeID] == nil {
			booked[a.TraineeID] = map[string][]string{}
		}
		booked[a.TraineeID][day] = append(booked[a.TraineeID][day], local.Format("15:04"))
	}
	drafted, days := 0, 0
	for id, byDay := range booked {
		status, data, raw := post("/trainees/"+id+"/plan-drafts", map[string]any{"week": "this", "fresh": true})
		if status == http.StatusUnprocessableEntity {
			continue // no profile to plan from: refused with a sentence
		}
		var d struct {
			Plan struct {
				WeekStart string `json:"weekStart"`
				Sessions  []struct {
					Date string `json:"date"`
					Note string `json:"note"`
				} `json:"sessions"`
			} `json:"plan"`
			Report struct {
				Valid    bool     `json:"valid"`
				Problems []string `json:"problems"`
			} `json:"report"`
		}
		var kinds struct {
			Plan struct {
				Adjustments []struct {
					Kind string `json:"kind"`
				} `json:"adjustments"`
			} `json:"plan"`
		}
		_ = json.Unmarshal(data, &kinds)
		program := slices.ContainsFunc(kinds.Plan.Adjustments, func(a struct {
			Kind string `json:"kind"`
		}) bool {
			return a.Kind == "program"
		})
		if status != http.StatusCreated || json.Unmarshal(data, &d) != nil {
			t.Fatalf("%s: %d %s", id, status, raw)
		}
		drafted++
		band := func(p string) bool { return strings.HasPrefix(p, "Too many hard sets for a muscle") }
		switch {
		case d.Plan.WeekStart != "2026-12-06":
			t.Errorf("%s: the week of %s", id, d.Plan.WeekStart)
		case !d.Report.Valid && program && !slices.ContainsFunc(d.Report.Problems, func(p string) bool { return !band(p) }):
			// Her program's own sessions over a muscle's band: the
			// program's week keeps every exercise of hers, booked or not.
			t.Logf("%s: her program's week is over a muscle's band: %v", id, d.Report.Problems)
		case !d.Report.Valid:
			t.Errorf("%s: the week is not valid: %v", id, d.Report.Problems)
		}
		for day, starts := range byDay {
			days++
			i := slices.IndexFunc(d.Plan.Sessions, func(s struct {
				Date string `json:"date"`
				Note string `json:"note"`
			}) bool {
				return s.Date == day
			})
			if i < 0 {
				t.Errorf("%s is booked on %s at %v and has no session", id, day, starts)
				continue
			}
			for _, at := range starts {
				if !strings.Contains(d.Plan.Sessions[i].Note, at) {
					t.Errorf("%s on %s: the note %q does not give the booking at %s", id, day, d.Plan.Sessions[i].Note, at)
				}
			}
		}
	}
	t.Logf("demo studio: %d trainees with bookings drafted, %d booked days checked", drafted, days)
	if drafted < 5 || days < 5 {
		t.Fatalf("only %d drafts and %d booked days: the check read almost nothing", drafted, days)
	}
}
