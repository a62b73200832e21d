package demo

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/store/storetest"
)

// census counts what a studio holds, to compare before and after a reseed.
type census struct {
	Trainees, Coaches, Tags, Products, Templates, Forms, Tasks int
	Weights, Subscriptions, Programs, Responses                int
}

func count(t *testing.T, st store.Store, studioID string) census {
	t.Helper()
	ctx := context.Background()
	ss := st.Studio(studioID)
	all := store.Page{Limit: 200}
	var c census
	trainees, err := ss.SearchTrainees(ctx, store.TraineeFilter{Page: all})
	if err != nil {
		t.Fatal(err)
	}
	c.Trainees = trainees.Total
	for _, tr := range trainees.Items {
		w, err := ss.ListWeights(ctx, tr.ID, all)
		if err != nil {
			t.Fatal(err)
		}
		subs, err := ss.ListSubscriptions(ctx, tr.ID)
		if err != nil {
			t.Fatal(err)
		}
		progs, err := ss.ListPrograms(ctx, tr.ID)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := ss.ListFormResponses(ctx, tr.ID, all)
		if err != nil {
			t.Fatal(err)
		}
		c.Weights += w.Total
		c.Subscriptions += len(subs)
		c.Programs += len(progs)
		c.Responses += resp.Total
	}
	coaches, _ := ss.ListCoaches(ctx, all)
	tags, _ := ss.ListTags(ctx, all)
	products, _ := ss.ListProducts(ctx, "", all)
	templates, _ := ss.ListProgramTemplates(ctx, "", all)
	forms, _ := ss.ListFormTemplates(ctx, "", all)
	tasks, _ := ss.ListTasks(ctx, store.TaskFilter{Page: all})
	c.Coaches, c.Tags, c.Products, c.Templates, c.Forms, c.Tasks = coaches.Total, tags.Total, products.Total, templates.Total, forms.Total, tasks.Total
	return c
}

// seedNow is when seeded seeds the demo: once, at the first test's time.
var seedNow = time.Now()

// seeded is a SQLite store holding the demo seeded at seedNow, seeded once
// for the tests that only read it.
func seeded(t *testing.T) (store.Store, domain.Studio) {
	t.Helper()
	st := storetest.OpenSQLiteSeeded(t, "demo", func(ctx context.Context, st store.Store) error {
		_, err := SeedAt(ctx, st, seedNow)
		return err
	})
	studio, err := st.StudioBySlug(context.Background(), Slug)
	if err != nil {
		t.Fatal(err)
	}
	return st, studio
}

func TestSeedIsRealisticAndIdempotent(t *testing.T) {
	t.Parallel()
	for engine, open := range storetest.Engines(t) {
		t.Run(engine, func(t *testing.T) {
			st := open(t)
			ctx := context.Background()
			now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
			studio, err := SeedAt(ctx, st, now)
			if err != nil {
				t.Fatal(err)
			}
			if studio.Slug != Slug || studio.Name != Name || studio.Tier != "pro" || studio.Region != "IL" {
				t.Fatalf("studio %+v", studio)
			}
			first := count(t, st, studio.ID)
			want := census{Trainees: TraineeCount, Coaches: 2, Tags: len(tagNames), Products: 6, Templates: 3 + len(planTemplates), Forms: 2}
			if first.Trainees != want.Trainees || first.Coaches != want.Coaches || first.Tags != want.Tags ||
				first.Products != want.Products || first.Templates != want.Templates || first.Forms != want.Forms {
				t.Fatalf("census %+v, want at least %+v", first, want)
			}
			if first.Weights < 10*TraineeCount/2 || first.Subscriptions < TraineeCount || first.Programs < TraineeCount/2 ||
				first.Responses < TraineeCount || first.Tasks < 5 {
				t.Fatalf("too little activity: %+v", first)
			}

			again, err := SeedAt(ctx, st, now.Add(24*time.Hour))
			if err != nil {
				t.Fatal(err)
			}
			if again.ID != studio.ID {
				t.Fatalf("reseeding made a new studio %s (first %s)", again.ID, studio.ID)
			}
			if second := count(t, st, studio.ID); second != first {
				t.Fatalf("reseeding changed the data: %+v then %+v", first, second)
			}
			studios, err := st.ListStudios(ctx)
			if err != nil || len(studios) != 1 {
				t.Fatalf("%d studios after two seeds (%v)", len(studios), err)
			}
		})
	}
}

func TestSeedContents(t *testing.T) {
	t.Parallel()
	st, studio := seeded(t)
	ctx := context.Background()
	ss := st.Studio(studio.ID)
	all := store.Page{Limit: 200}

	coaches, _ := ss.ListCoaches(ctx, all)
	for _, c := range coaches.Items {
		if !c.Active || c.Phone == nil {
			t.Errorf("coach %s must be active with a phone", c.Name)
		}
	}
	products, _ := ss.ListProducts(ctx, "", all)
	var unpriced, openEnded bool
	for _, p := range products.Items {
		unpriced = unpriced || p.Price == nil
		openEnded = openEnded || p.DurationDays == nil
	}
	if !unpriced || !openEnded {
		t.Errorf("want a plan with no list price and an open-ended plan: %+v", products.Items)
	}

	hebrew, err := ss.SearchTrainees(ctx, store.TraineeFilter{Q: "נועה", Page: all})
	if err != nil || hebrew.Total != 1 {
		t.Errorf("searching a Hebrew first name: %d (%v)", hebrew.Total, err)
	}
	trainees, _ := ss.SearchTrainees(ctx, store.TraineeFilter{Page: all})
	byPhone, err := ss.TraineeByPhone(ctx, trainees.Items[0].Phone)
	if err != nil || byPhone.ID != trainees.Items[0].ID {
		t.Errorf("phone lookup of %s: %v", trainees.Items[0].Phone, err)
	}

	// Weights span months for someone who started long ago.
	var longest time.Duration
	for _, tr := range trainees.Items {
		w, _ := ss.ListWeights(ctx, tr.ID, all)
		if n := len(w.Items); n > 1 {
			longest = max(longest, w.Items[0].RecordedAt.Sub(w.Items[n-1].RecordedAt))
		}
	}
	if longest < 90*24*time.Hour {
		t.Errorf("the longest weight history covers %v, want months", longest)
	}

	// Each profile's weight is its latest weigh-in, as the lane keeps it.
	for _, tr := range trainees.Items {
		w, _ := ss.ListWeights(ctx, tr.ID, store.Page{Limit: 1})
		if len(w.Items) == 0 || tr.WeightKg == nil || *tr.WeightKg != w.Items[0].WeightKg {
			t.Errorf("trainee %s: profile weight %v, latest weigh-in %+v", tr.ID, tr.WeightKg, w.Items)
		}
	}

	var live int
	today := time.Now().UTC().Format(time.DateOnly)
	for _, tr := range trainees.Items {
		subs, _ := ss.ListSubscriptions(ctx, tr.ID)
		for _, s := range subs {
			s.Derive(today)
			if s.Status == domain.SubLive {
				live++
			}
		}
	}
	if live < TraineeCount/2 {
		t.Errorf("%d live plans, want most trainees on one", live)
	}

	resp, _ := ss.ListFormResponses(ctx, trainees.Items[0].ID, all)
	if resp.Total == 0 || !json.Valid(resp.Items[0].Answers) {
		t.Errorf("form responses of the first trainee: %+v", resp)
	}
}

// A trainee's gender fits the first name, as a coach reading the list
// expects (names that are clearly one or the other are checked).
func TestSeedGendersFitNames(t *testing.T) {
	t.Parallel()
	st, studio := seeded(t)
	ctx := context.Background()
	want := map[string]string{
		"Sarah": "female", "Rachel": "female", "Michal": "female", "Hannah": "female", "Emma": "female",
		"נועה": "female", "תמר": "female", "יעל": "female", "דנה": "female",
		"Daniel": "male", "David": "male", "Yossi": "male", "Avi": "male", "Ben": "male",
		"יונתן": "male", "אלון": "male", "ניר": "male", "עומר": "male",
	}
	trainees, err := st.Studio(studio.ID).SearchTrainees(ctx, store.TraineeFilter{Page: store.Page{Limit: 200}})
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, tr := range trainees.Items {
		g, ok := want[tr.FirstName]
		if !ok {
			continue
		}
		checked++
		if tr.Gender == nil || *tr.Gender != g {
			t.Errorf("%s %s has gender %v, want %s", tr.FirstName, tr.LastName, tr.Gender, g)
		}
	}
	if checked != len(want) {
		t.Errorf("checked %d of %d names; is the search returning every trainee?", checked, len(want))
	}
}
