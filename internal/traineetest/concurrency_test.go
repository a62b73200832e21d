package traineetest

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/domain"
)

// athlete is one seeded trainee and the marker only their records carry.
type athlete struct {
	studio, phone, marker string
	trainee               domain.Trainee
	token                 string
}

// seedAthletes makes perStudio trainees in each of two studios, each with
// a coach, a completed workout and a planned session titled with the
// trainee's own marker, written through the lane with the studio's key.
func seedAthletes(t *testing.T, w *world, perStudio int) []*athlete {
	t.Helper()
	ctx := context.Background()
	var out []*athlete
	for si, letter := range []string{"A", "B"} {
		studio := domain.Studio{Name: "Studio " + letter, Slug: "concurrency-" + strings.ToLower(letter)}
		if err := w.st.CreateStudio(ctx, &studio); err != nil {
			t.Fatal(err)
		}
		ss := w.st.Studio(studio.ID)
		coach := domain.Coach{Name: "Coach " + letter, Phone: ptr(fmt.Sprintf("+97254%07d", 9000000+si)), Active: true}
		if err := ss.CreateCoach(ctx, &coach); err != nil {
			t.Fatal(err)
		}
		key := w.studioKey(studio.ID)
		for i := range perStudio {
			a := &athlete{studio: studio.ID, phone: fmt.Sprintf("+9725%d%07d", 2+si*2, 4000000+i*31), marker: fmt.Sprintf("mk%s%02dz", letter, i)}
			a.trainee = domain.Trainee{FirstName: "Runner", LastName: letter + fmt.Sprint(i), Phone: a.phone, CoachIDs: []string{coach.ID}}
			if err := ss.CreateTrainee(ctx, &a.trainee); err != nil {
				t.Fatal(err)
			}
			for _, req := range []struct {
				path string
				body map[string]any
			}{
				{"/workouts", map[string]any{"date": w.clock.Now().AddDate(0, 0, -2).Format(time.DateOnly), "sport": "running", "durationMin": 30 + i,
					"title": "Tempo run " + a.marker, "notes": "Felt good " + a.marker}},
				{"/sessions", map[string]any{"date": w.clock.Now().AddDate(0, 0, 2).Format(time.DateOnly), "sport": "strength", "title": "Squats " + a.marker,
					"exercises": []any{map[string]any{"exerciseId": "back-squat", "sets": 3, "reps": 5}}}},
			} {
				if status, body := w.lane(key, http.MethodPost, "/trainees/"+a.trainee.ID+req.path, req.body); status != http.StatusCreated && status != http.StatusOK {
					t.Fatalf("seeding %s%s: %d %s", a.trainee.ID, req.path, status, body)
				}
			}
			out = append(out, a)
		}
	}
	return out
}

func ptr[T any](v T) *T { return &v }

var anyMarker = regexp.MustCompile(`mk[AB]\d\dz`)
var anyTraineeID = regexp.MustCompile(`trn_[0-9a-z]{26}`)

// 64 trainees of two studios call tools at the same moment, each on their
// own connection: every answer holds the caller's marker or none, never
// another's, and names no other trainee's id.
func TestSixtyFourTraineesAtOnceSeeOnlyTheirOwn(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	athletes := seedAthletes(t, w, 32)
	for _, a := range athletes {
		a.token = w.token(a.phone, "")
	}
	start := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	var problems []string
	for _, a := range athletes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fail := func(format string, args ...any) {
				mu.Lock()
				problems = append(problems, a.marker+": "+fmt.Sprintf(format, args...))
				mu.Unlock()
			}
			cs, err := connectQuiet(w.url, a.token)
			if err != nil {
				fail("connect: %v", err)
				return
			}
			defer cs.Close()
			<-start
			check := func(tool string, args map[string]any, mustHold bool) string {
				r, err := callQuiet(cs, tool, args)
				if err != nil {
					fail("%s: %v", tool, err)
					return ""
				}
				got := answer(r) + text(r)
				if r.IsError {
					fail("%s answered an error: %s", tool, got)
				}
				for _, m := range anyMarker.FindAllString(got, -1) {
					if m != a.marker {
						fail("%s answered another trainee's marker %s", tool, m)
					}
				}
				for _, id := range anyTraineeID.FindAllString(got, -1) {
					if id != a.trainee.ID {
						fail("%s answered another trainee's id %s", tool, id)
					}
				}
				if mustHold && !strings.Contains(got, a.marker) {
					fail("%s did not answer the caller's own marker: %.300s", tool, got)
				}
				return got
			}
			check("get_training_overview", nil, false)
			list := check("list_sessions", nil, true)
			if id := sessionID.FindString(list); id != "" {
				check("get_session_details", map[string]any{"sessionId": id}, true)
			} else {
				fail("list_sessions named no session")
			}
			check("log_workout", map[string]any{"sport": "cycling", "durationMin": 40, "title": "Ride " + a.marker}, true)
			check("get_benchmarks", nil, false)
			check("list_sessions", map[string]any{"status": "planned"}, true)
		}()
	}
	close(start)
	wg.Wait()
	for _, p := range problems {
		t.Error(p)
	}
	// Every workout logged landed with its own trainee.
	for _, a := range athletes {
		sessions, err := w.st.Studio(a.studio).ListSessions(context.Background(), sessionsOf(a.trainee.ID))
		if err != nil {
			t.Fatal(err)
		}
		rides := 0
		for _, s := range sessions.Items {
			if strings.HasPrefix(s.Title, "Ride ") {
				rides++
				if s.Title != "Ride "+a.marker {
					t.Errorf("%s holds %q, another trainee's workout", a.marker, s.Title)
				}
			}
		}
		if rides != 1 {
			t.Errorf("%s has %d rides logged, want 1", a.marker, rides)
		}
	}
}
