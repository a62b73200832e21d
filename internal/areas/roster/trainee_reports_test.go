package roster_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/areas"
	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/store/storetest"
)

func TestTraineeReportsReachTheirCoaches(t *testing.T) {
	for name, open := range storetest.Engines(t) {
		t.Run(name, func(t *testing.T) {
			st := open(t)
			ctx := context.Background()
			s := domain.Studio{Name: "Injury studio", Slug: "injury-" + name}
			if err := st.CreateStudio(ctx, &s); err != nil {
				t.Fatal(err)
			}
			ss := st.Studio(s.ID)
			coaches := make([]domain.Coach, 3)
			for i, n := range []string{"Avi", "Bat", "Gone"} {
				coaches[i] = domain.Coach{Name: "Coach " + n, Active: n != "Gone"}
				if err := ss.CreateCoach(ctx, &coaches[i]); err != nil {
					t.Fatal(err)
				}
			}
			coached := domain.Trainee{FirstName: "Dana", LastName: "Levi", Phone: "+972501230001", CoachIDs: []string{coaches[0].ID, coaches[1].ID, coaches[2].ID}}
			alone := domain.Trainee{FirstName: "Noa", LastName: "Alone", Phone: "+972501230002", CoachIDs: []string{coaches[2].ID}}
			for _, tr := range []*domain.Trainee{&coached, &alone} {
				if err := ss.CreateTrainee(ctx, tr); err != nil {
					t.Fatal(err)
				}
			}
			l := lane.New(lane.Options{Store: st, Areas: areas.All(areas.Options{})})
			studioKey := &auth.Principal{StudioID: s.ID, Kind: auth.KindStudioKey, Scopes: auth.StudioScopes, Source: domain.SourceAPI, TimeZone: time.UTC}
			as := func(tr domain.Trainee) *auth.Principal {
				return &auth.Principal{StudioID: s.ID, Kind: auth.KindOAuthGrant, Subject: tr.ID, Scopes: auth.TraineeScopes, Source: domain.SourceMCP, TimeZone: time.UTC}
			}
			tasksOf := func(tr domain.Trainee) []domain.Task {
				list, err := ss.ListTasks(ctx, store.TaskFilter{ClientID: tr.ID, Page: store.Page{Limit: 50}})
				if err != nil {
					t.Fatal(err)
				}
				return list.Items
			}
			outbox := func() int {
				list, err := ss.ListNotifications(ctx, store.Page{Limit: 50})
				if err != nil {
					t.Fatal(err)
				}
				return list.Total
			}

			// A studio key records an injury: the coach is the one writing, no task.
			if _, err := l.Handle(studioKey, "POST", "/trainees/{id}/injuries", coached.ID, `{"area":"knee","side":"left","severity":2}`); err != nil {
				t.Fatal(err)
			}
			if got := tasksOf(coached); len(got) != 0 {
				t.Fatalf("a studio key's injury opened tasks: %+v", got)
			}

			// The trainee reports it: one task for each active coach, in the same write.
			if _, err := l.Handle(as(coached), "POST", "/trainees/{id}/injuries", coached.ID, `{"area":"knee","side":"left","severity":3,"notes":"Hurts on stairs"}`); err != nil {
				t.Fatal(err)
			}
			got := tasksOf(coached)
			if len(got) != 2 {
				t.Fatalf("want a task for each of the 2 active coaches, got %+v", got)
			}
			assigned := map[string]bool{}
			for _, task := range got {
				if task.Title != "Dana reported a left knee injury, severity 3" || task.Status != domain.TaskOpen || task.Priority != 3 ||
					task.Detail == nil || !strings.Contains(*task.Detail, "Hurts on stairs") || task.CoachID == nil {
					t.Fatalf("task %+v", task)
				}
				assigned[*task.CoachID] = true
			}
			if !assigned[coaches[0].ID] || !assigned[coaches[1].ID] {
				t.Fatalf("tasks went to %v", assigned)
			}

			// No active coach: one task for the studio.
			if _, err := l.Handle(as(alone), "POST", "/trainees/{id}/injuries", alone.ID, `{"area":"ankle","severity":4}`); err != nil {
				t.Fatal(err)
			}
			lone := tasksOf(alone)
			if len(lone) != 1 || lone[0].CoachID != nil || lone[0].Title != "Noa reported an ankle injury, severity 4" {
				t.Fatalf("studio task: %+v", lone)
			}
			// A refused report opens nothing.
			if _, err := l.Handle(as(alone), "POST", "/trainees/{id}/injuries", alone.ID, `{"area":"ankle","severity":9}`); err == nil {
				t.Fatal("severity 9 was taken")
			}
			if n := len(tasksOf(alone)); n != 1 {
				t.Fatalf("a refused report opened tasks: %d", n)
			}
			// Nothing was sent to a trainee.
			if n := outbox(); n != 0 {
				t.Fatalf("the outbox holds %d rows", n)
			}

			// What a trainee plans or logs is theirs; what a studio key does is the coach's.
			for _, c := range []struct {
				p    *auth.Principal
				want string
			}{{studioKey, domain.SessionFromCoach}, {as(coached), domain.SessionFromTrainee}} {
				planned, err := l.Handle(c.p, "POST", "/trainees/{id}/sessions", coached.ID, `{"date":"`+time.Now().UTC().Format(time.DateOnly)+`","sport":"running"}`)
				if err != nil {
					t.Fatal(err)
				}
				if s := planned.(domain.Session); s.Source != c.want {
					t.Fatalf("planned by %s: source %s, want %s", c.p.Kind, s.Source, c.want)
				}
				logged, err := l.Handle(c.p, "POST", "/trainees/{id}/workouts", coached.ID, `{"sport":"cycling","durationMin":`+map[string]string{domain.SessionFromCoach: "41", domain.SessionFromTrainee: "42"}[c.want]+`}`)
				if err != nil {
					t.Fatal(err)
				}
				var w struct{ Session domain.Session }
				if b, _ := json.Marshal(logged); json.Unmarshal(b, &w) != nil {
					t.Fatalf("logged answered %T", logged)
				}
				if s := w.Session; s.Source != c.want {
					t.Fatalf("logged by %s: source %s, want %s", c.p.Kind, s.Source, c.want)
				}
			}
			if n := outbox(); n != 0 {
				t.Fatalf("sessions wrote %d outbox rows", n)
			}
		})
	}
}
