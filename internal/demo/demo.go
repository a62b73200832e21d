// Package demo seeds a realistic demo studio for `perform demo`: two
// coaches, tags, ~40 trainees with Hebrew and English names and Israeli
// phones, months of weights, plans and subscriptions, program templates
// and assigned programs, forms with responses, and tasks, and a year of
// training (structured programs, sessions with sets, PRs, check-ins,
// injuries, goals, measurements) with trainees meeting each triage reason,
// and the business loop: a package and a membership plan, paid, partly paid
// and owed, with sessions used (billing.go).
//
// Seed is idempotent, keyed on the studio slug "demo": when that studio
// exists nothing is written. Everything is written in one transaction, so
// an interrupted seed leaves no half-made studio behind.
package demo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/money"
	"github.com/otherwise/perform/internal/store"
)

// Slug and Name of the demo studio.
const (
	Slug = "demo"
	Name = "Studio Perform Demo"
)

// TraineeCount is how many trainees the demo studio gets.
const TraineeCount = 40

// Seed creates the demo studio unless it exists, and returns it.
func Seed(ctx context.Context, st store.Store) (domain.Studio, error) {
	return SeedAt(ctx, st, time.Now())
}

// SeedAt is Seed with the clock given: dates (weights over past months,
// subscriptions, due dates) are laid out around now.
func SeedAt(ctx context.Context, st store.Store, now time.Time) (domain.Studio, error) {
	if s, err := st.StudioBySlug(ctx, Slug); err == nil {
		return s, nil
	} else if !errors.Is(err, store.ErrNotFound) {
		return domain.Studio{}, fmt.Errorf("looking for the demo studio: %w", err)
	}
	var studio domain.Studio
	err := st.InTx(ctx, func(tx store.Store) error {
		studio = domain.Studio{Name: Name, Slug: Slug, Region: "IL", Tier: "pro", CreatedAt: now.AddDate(0, -8, 0).UTC()}
		if err := tx.CreateStudio(ctx, &studio); err != nil {
			return err
		}
		return seedStudio(ctx, tx.Studio(studio.ID), now.UTC())
	})
	var conflict *store.ConflictError
	if errors.As(err, &conflict) {
		// Another process seeded the demo at the same moment: use its studio.
		return st.StudioBySlug(ctx, Slug)
	}
	if err != nil {
		return domain.Studio{}, fmt.Errorf("seeding the demo studio: %w", err)
	}
	return studio, nil
}

type person struct{ first, last, gender string }

// Names mix Hebrew and English, as an Israeli studio's list does. Each
// has the gender its first name is usually given to (unisex names are
// spread over both).
var names = []person{
	{"נועה", "כהן", "female"}, {"Daniel", "Levi", "male"}, {"מאיה", "מזרחי", "female"}, {"Yossi", "Peretz", "male"},
	{"שירה", "ביטון", "female"}, {"Avi", "Friedman", "male"}, {"תמר", "אברהם", "female"}, {"Michal", "Shapiro", "female"},
	{"איתי", "דהן", "male"}, {"Sarah", "Goldberg", "female"}, {"יונתן", "אגבריה", "male"}, {"Noam", "Katz", "male"},
	{"רוני", "פרידמן", "female"}, {"Rachel", "Adler", "female"}, {"עומר", "חדד", "male"}, {"Eitan", "Rosen", "male"},
	{"הילה", "אזולאי", "female"}, {"David", "Klein", "male"}, {"ליאור", "עמר", "male"}, {"Yael", "Ben-David", "female"},
	{"גיא", "שלום", "male"}, {"Tom", "Weiss", "male"}, {"אורי", "גבאי", "male"}, {"Lior", "Segal", "female"},
	{"דנה", "יוסף", "female"}, {"Ariel", "Navon", "male"}, {"עדי", "מלכה", "female"}, {"Maya", "Hoffman", "female"},
	{"אלון", "חזן", "male"}, {"Shira", "Stern", "female"}, {"רותם", "סויסה", "female"}, {"Gal", "Mor", "male"},
	{"ניר", "ששון", "male"}, {"Hannah", "Baron", "female"}, {"אביגיל", "לוי", "female"}, {"Omer", "Tal", "male"},
	{"יעל", "קפלן", "female"}, {"Ben", "Carmel", "male"}, {"שחר", "נחום", "male"}, {"Emma", "Dayan", "female"},
}

var goals = []string{
	"Lose 5 kg before the summer", "לרדת 4 ק\"ג ולהתחזק", "Run 10 km under an hour", "Build strength after a knee injury",
	"שיפור כושר כללי", "Gain muscle mass", "Prepare for a half marathon", "להחזיק שגרת אימונים קבועה",
}

var tagNames = []string{"VIP", "online", "morning group", "rehab", "מתחילים", "marathon"}

// seedStudio writes the studio's data through ss (bound to the seeding transaction).
func seedStudio(ctx context.Context, ss store.StudioStore, now time.Time) error {
	rnd := rand.New(rand.NewPCG(2026, 11)) // fixed: the demo is the same on every machine
	day := func(offsetDays int) string { return now.AddDate(0, 0, offsetDays).Format(time.DateOnly) }
	ptr := func(s string) *string { return &s }

	lastActive := now.Add(-2 * time.Hour)
	coaches := []domain.Coach{
		{Name: "Dana Levi", Phone: ptr("+972501234567"), Email: ptr("dana@perform.example"), Active: true, LastActiveAt: &lastActive},
		{Name: "אורי כהן", Phone: ptr("+972527654321"), Email: ptr("uri@perform.example"), Active: true},
	}
	for i := range coaches {
		if err := ss.CreateCoach(ctx, &coaches[i]); err != nil {
			return fmt.Errorf("coach %s: %w", coaches[i].Name, err)
		}
	}
	for _, name := range tagNames {
		if err := ss.CreateTag(ctx, &domain.Tag{Name: name}); err != nil {
			return fmt.Errorf("tag %s: %w", name, err)
		}
	}

	price := func(shekels int64) *money.Money { return &money.Money{Minor: shekels * 100, Currency: "ILS"} }
	days := func(n int) *int { return &n }
	products := []domain.Product{
		{Name: "Monthly membership", Price: price(450), Currency: "ILS", DurationDays: days(30), Active: true},
		{Name: "Quarterly membership", Price: price(1200), Currency: "ILS", DurationDays: days(90), Active: true},
		{Name: "Personal coaching (priced per trainee)", Price: nil, Currency: "ILS", DurationDays: days(30), Active: true},
		{Name: "Open-ended online coaching", Price: price(299), Currency: "ILS", DurationDays: nil, Active: true},
	}
	for i := range products {
		if err := ss.CreateProduct(ctx, &products[i]); err != nil {
			return fmt.Errorf("plan %s: %w", products[i].Name, err)
		}
	}

	weeks := func(n int) *int { return &n }
	templates := []domain.ProgramTemplate{
		{Name: "Strength foundations", Description: ptr("Three full-body sessions a week, progressive overload."), Weeks: weeks(8)},
		{Name: "Fat loss circuit", Description: ptr("Circuits and steps; two strength days."), Weeks: weeks(6)},
		{Name: "תוכנית ריצה 10 ק\"מ", Description: ptr("Build up to 10 km: three runs a week."), Weeks: weeks(10)},
	}
	for i := range templates {
		if err := ss.CreateProgramTemplate(ctx, &templates[i]); err != nil {
			return fmt.Errorf("program template %s: %w", templates[i].Name, err)
		}
	}

	forms := []domain.FormTemplate{
		{Name: "Weekly check-in", Description: ptr("How the week went."), Fields: []domain.FormField{
			{Key: "energy", Label: "Energy this week (1-10)", Type: "scale", Required: true},
			{Key: "sleep", Label: "Average hours of sleep", Type: "number"},
			{Key: "notes", Label: "Anything your coach should know?", Type: "text"},
		}},
		{Name: "שאלון היכרות", Description: ptr("Onboarding questionnaire."), Fields: []domain.FormField{
			{Key: "injuries", Label: "פציעות או מגבלות", Type: "text"},
			{Key: "experience", Label: "Training experience", Type: "choice", Options: []string{"none", "some", "years"}, Required: true},
		}},
	}
	for i := range forms {
		if err := ss.CreateFormTemplate(ctx, &forms[i]); err != nil {
			return fmt.Errorf("form %s: %w", forms[i].Name, err)
		}
	}

	for i := range TraineeCount {
		if err := seedTrainee(ctx, ss, rnd, i, now, day, coaches, products, templates, forms); err != nil {
			return err
		}
	}
	trainees, err := ss.SearchTrainees(ctx, store.TraineeFilter{Page: store.Page{Limit: 200}})
	if err != nil {
		return fmt.Errorf("reading back the demo trainees: %w", err)
	}
	if err := seedTraining(ctx, ss, trainees.Items, now); err != nil {
		return err
	}
	if err := seedBilling(ctx, ss, trainees.Items, now); err != nil {
		return err
	}
	return seedAppointments(ctx, ss, coaches, trainees.Items, now)
}

func seedTrainee(ctx context.Context, ss store.StudioStore, rnd *rand.Rand, i int, now time.Time, day func(int) string,
	coaches []domain.Coach, products []domain.Product, templates []domain.ProgramTemplate, forms []domain.FormTemplate) error {
	p := names[i%len(names)]
	startedDaysAgo := 20 + rnd.IntN(220)
	height := float64(155 + rnd.IntN(40))
	weight := float64(55+rnd.IntN(45)) + float64(rnd.IntN(10))/10
	goal := goals[rnd.IntN(len(goals))]
	steps := 6000 + 1000*rnd.IntN(7)
	gender := p.gender
	birth := day(-365*(20+rnd.IntN(35)) - rnd.IntN(365))
	started := day(-startedDaysAgo)
	status := domain.TraineeActive
	switch i % 13 {
	case 5:
		status = domain.TraineePaused
	case 11:
		status = domain.TraineeArchived
	}
	t := domain.Trainee{
		FirstName: p.first,
		LastName:  p.last,
		// 050/052/054 mobile numbers, unique per trainee.
		Phone:     fmt.Sprintf("+9725%d%07d", []int{0, 2, 4}[i%3], 3000000+i*7919),
		BirthDate: &birth,
		Gender:    &gender,
		HeightCm:  &height,
		WeightKg:  &weight,
		Goal:      &goal,
		StepsGoal: &steps,
		Status:    status,
		Tags:      pick(rnd, tagNames, rnd.IntN(3)),
		CoachIDs:  []string{coaches[i%2].ID},
		StartedOn: &started,
		CreatedAt: now.AddDate(0, 0, -startedDaysAgo),
	}
	if i%4 == 0 {
		email := fmt.Sprintf("trainee%02d@mail.example", i+1)
		t.Email = &email
	}
	// A weigh-in about every ten days since the start, drifting toward the
	// goal; the profile's weight is the latest of them, as the lane keeps it.
	var weighIns []domain.Weight
	w := weight + 3
	for d := startedDaysAgo; d >= 0; d -= 7 + rnd.IntN(7) {
		w += -0.4 + rnd.Float64()*0.6
		weighIns = append(weighIns, domain.Weight{WeightKg: round1(w), RecordedAt: now.AddDate(0, 0, -d).Add(-time.Duration(rnd.IntN(12)) * time.Hour)})
	}
	latest := weighIns[len(weighIns)-1].WeightKg
	t.WeightKg = &latest
	if err := ss.CreateTrainee(ctx, &t); err != nil {
		return fmt.Errorf("trainee %s %s: %w", t.FirstName, t.LastName, err)
	}
	for _, entry := range weighIns {
		entry.TraineeID = t.ID
		if err := ss.CreateWeight(ctx, &entry); err != nil {
			return fmt.Errorf("weight of %s: %w", t.ID, err)
		}
	}

	// Plans: an ended one behind most trainees, a live one now; the
	// per-trainee-priced plan gets its price on the subscription.
	prod := products[i%len(products)]
	sub := domain.Subscription{TraineeID: t.ID, ProductID: prod.ID, StartedOn: day(-rnd.IntN(25))}
	if prod.DurationDays != nil {
		end := addDays(sub.StartedOn, *prod.DurationDays-1)
		sub.EndsOn = &end
	}
	if prod.Price == nil {
		sub.Price = &money.Money{Minor: int64(800+50*rnd.IntN(10)) * 100, Currency: prod.Currency}
	} else {
		sub.Price = prod.Price
	}
	if status == domain.TraineeArchived {
		sub.Status = domain.SubCancelled
	}
	if status == domain.TraineePaused {
		sub.Status = domain.SubFrozen
	}
	if i%3 == 0 && startedDaysAgo > 60 {
		old := domain.Subscription{TraineeID: t.ID, ProductID: products[0].ID, StartedOn: day(-startedDaysAgo), Price: products[0].Price}
		end := addDays(old.StartedOn, 29)
		old.EndsOn = &end
		if err := ss.CreateSubscription(ctx, &old); err != nil {
			return fmt.Errorf("past plan of %s: %w", t.ID, err)
		}
	}
	if err := ss.CreateSubscription(ctx, &sub); err != nil {
		return fmt.Errorf("plan of %s: %w", t.ID, err)
	}

	// Programs: most trainees follow one; some moved on from an earlier one.
	if i%5 != 4 {
		if i%6 == 0 {
			prev := domain.Program{TraineeID: t.ID, TemplateID: templates[(i+1)%len(templates)].ID, StartsOn: started, Status: domain.ProgramReplaced}
			if err := ss.CreateProgram(ctx, &prev); err != nil {
				return fmt.Errorf("earlier program of %s: %w", t.ID, err)
			}
		}
		prog := domain.Program{TraineeID: t.ID, TemplateID: templates[i%len(templates)].ID, StartsOn: day(-rnd.IntN(30))}
		if err := ss.CreateProgram(ctx, &prog); err != nil {
			return fmt.Errorf("program of %s: %w", t.ID, err)
		}
	}

	// Forms: everyone answered the onboarding form; half have a weekly
	// check-in answered and a third one pending.
	off := false
	answered, _ := json.Marshal(map[string]any{"injuries": []string{"none", "כאב בברך שמאל", "lower back, 2024"}[i%3], "experience": []string{"none", "some", "years"}[i%3]})
	onboarding := domain.FormResponse{TraineeID: t.ID, FormTemplateID: forms[1].ID, Answers: answered, SubmittedAt: t.CreatedAt.Add(26 * time.Hour)}
	if err := ss.CreateFormResponse(ctx, &onboarding); err != nil {
		return fmt.Errorf("onboarding answers of %s: %w", t.ID, err)
	}
	if i%2 == 0 {
		sent := domain.FormAssignment{TraineeID: t.ID, FormTemplateID: forms[0].ID, Notify: &off, CreatedAt: now.AddDate(0, 0, -8)}
		if err := ss.CreateFormAssignment(ctx, &sent); err != nil {
			return fmt.Errorf("check-in of %s: %w", t.ID, err)
		}
		checkin, _ := json.Marshal(map[string]any{"energy": 4 + rnd.IntN(6), "sleep": 5 + rnd.IntN(4), "notes": []string{"", "Busy week at work", "הרגשתי מצוין"}[i%3]})
		resp := domain.FormResponse{TraineeID: t.ID, FormTemplateID: forms[0].ID, AssignmentID: &sent.ID, Answers: checkin, SubmittedAt: now.AddDate(0, 0, -6)}
		if err := ss.CreateFormResponse(ctx, &resp); err != nil {
			return fmt.Errorf("check-in answers of %s: %w", t.ID, err)
		}
	}
	if i%3 == 1 {
		due := now.AddDate(0, 0, 2).Truncate(time.Hour)
		pending := domain.FormAssignment{TraineeID: t.ID, FormTemplateID: forms[0].ID, DueAt: &due, Prompt: strPtr("Your weekly check-in, please"), Notify: &off}
		if err := ss.CreateFormAssignment(ctx, &pending); err != nil {
			return fmt.Errorf("pending check-in of %s: %w", t.ID, err)
		}
	}

	// Tasks for the coach about some trainees.
	if i%4 == 1 {
		due := now.AddDate(0, 0, 1+rnd.IntN(5)).Truncate(time.Hour)
		task := domain.Task{
			Title:    []string{"Call about renewing the plan", "לבדוק התקדמות במשקל", "Adjust the program after the knee check", "Send the nutrition guide"}[(i/4)%4],
			ClientID: &t.ID, DueAt: &due, Priority: rnd.IntN(6), CoachID: &coaches[i%2].ID,
		}
		if i%8 == 5 {
			task.Status = domain.TaskDone
		}
		if err := ss.CreateTask(ctx, &task); err != nil {
			return fmt.Errorf("task about %s: %w", t.ID, err)
		}
	}
	return nil
}

// pick returns n distinct items of from, in a random order.
func pick(rnd *rand.Rand, from []string, n int) []string {
	out := make([]string, 0, n)
	for _, i := range rnd.Perm(len(from))[:n] {
		out = append(out, from[i])
	}
	return out
}

func addDays(date string, n int) string {
	d, _ := time.Parse(time.DateOnly, date)
	return d.AddDate(0, 0, n).Format(time.DateOnly)
}

func round1(v float64) float64 { return float64(int(v*10+0.5)) / 10 }

func strPtr(s string) *string { return &s }
