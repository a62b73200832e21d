package requests_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
)

// spelled are the demo trainees as a coach names them (a first name, a
// Hebrew name in Latin letters) beside their names as the studio keeps
// them: written here, by hand, so the checks do not take the lane's own
// transliteration as the truth.
var spelled = map[string]string{
	"Tamar":         "תמר אברהם",
	"Tamar Avraham": "תמר אברהם",
	"Noa Cohen":     "נועה כהן",
	"Omer Hadad":    "עומר חדד",
	"Itai Dahan":    "איתי דהן",
	"Yossi":         "Yossi Peretz",
	"Rachel":        "Rachel Adler",
	"Avi Friedman":  "Avi Friedman",
	"Daniel":        "Daniel Levi",
	"Hannah":        "Hannah Baron",
	"Omer Tal":      "Omer Tal",
}

// wordsRequests are asked in the coach's own words: trainees, plans,
// templates, forms, tags and exercises by their names, in Hebrew or in
// Latin letters, groups by a tag, a change over the studio's Sunday week,
// and a message drafted for her to send. Each is one call, and each check
// reads the facts from the store: the trainee the name stands for, her
// records, and what a write left behind. The writes' "before" is read
// here, when the requests are made, before any of them runs.
func wordsRequests(w *world) []request {
	nextWeek := addDays(w.weekStart, 7)
	lastWeek := addDays(w.weekStart, -7)
	one := func(ask, tool string, args map[string]any, check func(w *world, answer string) error) request {
		return request{ask: ask, steps: []step{call(tool, args)}, check: func(w *world, a []string) error { return check(w, a[0]) }}
	}
	tamar, daniel, omer := w.named("Tamar"), w.named("Daniel"), w.named("Omer Tal")
	dayStart := func(day string) time.Time {
		d, _ := time.Parse(time.DateOnly, day)
		return time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, w.zone)
	}
	onToday, err := w.ss.ListAppointments(w.ctx, store.AppointmentFilter{From: dayStart(w.today), To: dayStart(addDays(w.today, 1)), Page: store.Page{Limit: 200}})
	if err != nil {
		w.t.Fatal(err)
	}
	vips := w.tagged("vip")
	squatsNextWeek := w.sessionsWith(tamar.ID, nextWeek, addDays(nextWeek, 6), "back-squat")
	return []request{
		one("Tamar's last workout", "list_trainee_sessions", map[string]any{"traineeId": "Tamar", "status": "completed", "limit": 1, "view": "full"},
			func(w *world, a string) error {
				return sameIDs(a, w.sessionIDs(tamar.ID, "", "", domain.SessionCompleted)[:1])
			}),
		one("How are my rehab trainees doing?", "needs_attention", map[string]any{"tag": "rehab"}, func(w *world, a string) error {
			var got struct {
				Active int `json:"activeTrainees"`
			}
			mine := 0
			for _, tr := range w.tagged("rehab") {
				if slices.Contains(tr.CoachIDs, w.coach.ID) {
					mine++
				}
			}
			if err := decode(a, &got); err != nil || got.Active != mine {
				return fmt.Errorf("activeTrainees %d, want the coach's %d active rehab trainees (%v)", got.Active, mine, err)
			}
			return nil
		}),
		one("Which of my VIPs hasn't trained this week?", "roster", map[string]any{"question": "not_trained", "tag": "vip"}, func(w *world, a string) error {
			var idle []string
			for _, tr := range vips {
				if slices.Contains(tr.CoachIDs, w.coach.ID) && len(w.sessions(tr.ID, w.weekStart, w.today, domain.SessionCompleted)) == 0 {
					idle = append(idle, name(tr))
				}
			}
			return names(a, idle)
		}),
		one("Find Tamar Avraham", "search_trainees", map[string]any{"q": "Tamar Avraham"}, func(w *world, a string) error {
			if id := firstID(a); id != w.named("Tamar Avraham").ID {
				return fmt.Errorf("first found %q, want %s (%s)", id, tamar.ID, name(tamar))
			}
			return nil
		}),
		one("Noa Cohen's weigh-ins", "list_trainee_weights", map[string]any{"traineeId": "Noa Cohen"}, func(w *world, a string) error {
			l, err := w.ss.ListWeights(w.ctx, w.named("Noa Cohen").ID, store.Page{Limit: 1})
			if err != nil {
				return err
			}
			return totalIs(a, l.Total)
		}),
		one("Who is Itai Dahan?", "get_trainee", map[string]any{"traineeId": "Itai Dahan"}, func(w *world, a string) error {
			return idIs(a, w.named("Itai Dahan").ID)
		}),
		one("מה שלום עומר חדד?", "get_trainee_overview", map[string]any{"traineeId": "עומר חדד"}, func(w *world, a string) error {
			return contains(a, w.named("Omer Hadad").ID)
		}),
		one("Yossi's benchmarks", "get_trainee_benchmarks", map[string]any{"traineeId": "Yossi"}, func(w *world, a string) error {
			b, err := w.ss.ListBenchmarks(w.ctx, w.named("Yossi").ID)
			if err != nil {
				return err
			}
			return totalIs(a, len(b))
		}),
		one("What did Rachel do last week?", "list_trainee_sessions", map[string]any{"traineeId": "Rachel", "from": lastWeek, "to": addDays(lastWeek, 6)},
			func(w *world, a string) error {
				return sameIDs(a, w.sessionIDs(w.named("Rachel").ID, lastWeek, addDays(lastWeek, 6), ""))
			}),
		one("מה עשה אבי פרידמן השבוע?", "list_trainee_sessions", map[string]any{"traineeId": "אבי פרידמן", "from": w.weekStart, "to": w.today},
			func(w *world, a string) error {
				return sameIDs(a, w.sessionIDs(w.named("Avi Friedman").ID, w.weekStart, w.today, ""))
			}),
		// Writes come last.
		one("Put Daniel on the Quarterly membership", "assign_plan", map[string]any{"traineeId": "Daniel", "productId": "quarterly membership"},
			func(w *world, a string) error { return w.hasPlan(daniel, "Quarterly membership") }),
		one("Hannah on the strength foundations program", "assign_program", map[string]any{"traineeId": "Hannah", "templateId": "Strength foundations"},
			func(w *world, a string) error {
				ps, err := w.ss.ListPrograms(w.ctx, w.named("Hannah").ID)
				if err != nil {
					return err
				}
				if !slices.ContainsFunc(ps, func(p domain.Program) bool { return p.Name == "Strength foundations" }) {
					return fmt.Errorf("Hannah has no Strength foundations program")
				}
				return nil
			}),
		one("שלחי לתמר את שאלון ההיכרות", "send_form", map[string]any{"traineeId": "תמר", "formTemplateId": "שאלון היכרות", "notify": false},
			func(w *world, a string) error { return w.assigned(a, tamar.ID, "שאלון היכרות") }),
		one("Send the weekly check-in to my VIPs", "send_form_to_group", map[string]any{"tag": "VIP", "formTemplateId": "weekly check-in"},
			func(w *world, a string) error { return w.groupDone(a, vips, "form", "Weekly check-in") }),
		one("Put the morning group on the monthly membership", "assign_plan_to_group", map[string]any{"tag": "morning group", "productId": "monthly-membership"},
			func(w *world, a string) error {
				group := w.tagged("morning group")
				for _, tr := range group {
					if err := w.hasPlan(tr, "Monthly membership"); err != nil {
						return err
					}
				}
				return w.groupDone(a, group, "", "")
			}),
		one("A task for each of my VIPs: call about the new block", "create_task_for_group", map[string]any{"tag": "vip", "title": "Call about the new block"},
			func(w *world, a string) error { return w.groupDone(a, vips, "task", "Call about the new block") }),
		one("Message Omer Tal that his payment is due", "draft_message", map[string]any{"traineeId": "Omer Tal", "purpose": "payment_due"},
			func(w *world, a string) error {
				phone := strings.TrimPrefix(w.named("Omer Tal").Phone, "+")
				return contains(a, "https://wa.me/"+phone+"?text=", `"sent":false`)
			}),
		one("Log Daniel's bench press, 3×5 at 60", "log_workout", map[string]any{"traineeId": "Daniel", "sport": "strength", "exercises": []map[string]any{
			{"exerciseId": "bench press", "sets": []map[string]any{{"reps": 5, "loadKg": 60}, {"reps": 5, "loadKg": 60}, {"reps": 5, "loadKg": 60}}}}},
			func(w *world, a string) error {
				var logged struct {
					Session domain.Session `json:"session"`
				}
				if err := decode(a, &logged); err != nil {
					return err
				}
				s := logged.Session
				got, err := w.ss.GetSession(w.ctx, s.ID)
				if err != nil || got.TraineeID != daniel.ID || len(got.Exercises) != 1 || got.Exercises[0].ExerciseID != "bench-press" || len(got.Exercises[0].Sets) != 3 {
					return fmt.Errorf("the stored session %s is not Daniel's 3 sets of bench press (%v)", s.ID, err)
				}
				for _, set := range got.Exercises[0].Sets {
					if set.Reps == nil || *set.Reps != 5 || set.LoadKg == nil || *set.LoadKg != 60 {
						return fmt.Errorf("a stored set is not 5 × 60 kg: %+v", set)
					}
				}
				return nil
			}),
		one("What's on today?", "list_appointments", map[string]any{}, func(w *world, a string) error {
			if onToday.Total == 0 {
				return fmt.Errorf("the demo has no appointment today: the request tests nothing")
			}
			return totalIs(a, onToday.Total)
		}),
		one("Book Omer Tal Tuesday 18:00", "book_appointment", map[string]any{"traineeId": "Omer Tal", "day": "tuesday", "time": "18:00"},
			func(w *world, a string) error {
				var got struct {
					ID string `json:"id"`
				}
				if err := decode(a, &got); err != nil {
					return err
				}
				stored, err := w.ss.GetAppointment(w.ctx, got.ID)
				local := stored.StartsAt.In(w.zone)
				if err != nil || stored.TraineeID != omer.ID || local.Weekday() != time.Tuesday || local.Hour() != 18 || local.Minute() != 0 ||
					!stored.Live() || !local.After(time.Now()) || local.After(time.Now().AddDate(0, 0, 8)) {
					return fmt.Errorf("the stored appointment %s is not Omer Tal's on the coming Tuesday at 18:00: %+v (%v)", got.ID, stored, err)
				}
				return nil
			}),
		one(fmt.Sprintf("Swap Tamar's back squats for leg press next week (%s)", nextWeek), "swap_exercise_in_range", map[string]any{
			"traineeId": "Tamar", "exerciseId": "back squat", "replacementId": "לג פרס", "from": nextWeek, "to": addDays(nextWeek, 6)},
			func(w *world, a string) error {
				if len(squatsNextWeek) == 0 {
					return fmt.Errorf("the demo plans Tamar no back squat next week: the request tests nothing")
				}
				if left := w.sessionsWith(tamar.ID, nextWeek, addDays(nextWeek, 6), "back-squat"); len(left) > 0 {
					return fmt.Errorf("back squats left in %v", left)
				}
				now := w.sessionsWith(tamar.ID, nextWeek, addDays(nextWeek, 6), "leg-press")
				for _, id := range squatsNextWeek {
					if !slices.Contains(now, id) {
						return fmt.Errorf("session %s had back squats and has no leg press", id)
					}
				}
				return contains(a, squatsNextWeek...)
			}),
	}
}

// named is the one trainee a coach's words stand for (spelled).
func (w *world) named(words string) domain.Trainee {
	full, ok := spelled[words]
	if !ok {
		w.t.Fatalf("no spelling for %q", words)
	}
	var found []domain.Trainee
	for _, tr := range w.trainees(store.TraineeFilter{}) {
		if name(tr) == full {
			found = append(found, tr)
		}
	}
	if len(found) != 1 {
		w.t.Fatalf("%d demo trainees are %s", len(found), full)
	}
	return found[0]
}

// tagged are the studio's active trainees with the tag.
func (w *world) tagged(tag string) []domain.Trainee {
	var out []domain.Trainee
	for _, tr := range w.trainees(store.TraineeFilter{Status: domain.TraineeActive}) {
		if slices.ContainsFunc(tr.Tags, func(t string) bool { return strings.EqualFold(t, tag) }) {
			out = append(out, tr)
		}
	}
	if len(out) == 0 {
		w.t.Fatalf("no demo trainee has the tag %s", tag)
	}
	return out
}

func (w *world) sessionIDs(traineeID, from, to, status string) []string {
	var out []string
	for _, s := range w.sessions(traineeID, from, to, status) {
		out = append(out, s.ID)
	}
	return out
}

// sessionsWith are the ids of the trainee's planned sessions in the range
// that hold the exercise.
func (w *world) sessionsWith(traineeID, from, to, exercise string) []string {
	var out []string
	for _, s := range w.sessions(traineeID, from, to, domain.SessionPlanned) {
		full, err := w.ss.GetSession(w.ctx, s.ID)
		if err != nil {
			w.t.Fatal(err)
		}
		if slices.ContainsFunc(full.Exercises, func(e domain.SessionExercise) bool { return e.ExerciseID == exercise }) {
			out = append(out, s.ID)
		}
	}
	return out
}

// hasPlan checks that tr has a subscription to the plan named plan.
func (w *world) hasPlan(tr domain.Trainee, plan string) error {
	subs, err := w.ss.ListSubscriptions(w.ctx, tr.ID)
	if err != nil {
		return err
	}
	for _, s := range subs {
		p, err := w.ss.GetProduct(w.ctx, s.ProductID)
		if err == nil && p.Name == plan {
			return nil
		}
	}
	return fmt.Errorf("%s has no %s subscription", name(tr), plan)
}

// assigned checks that the answer is an assignment of the form named form
// to the trainee, kept in the store.
func (w *world) assigned(answer, traineeID, form string) error {
	var a struct {
		ID string `json:"id"`
	}
	if err := decode(answer, &a); err != nil {
		return err
	}
	return w.assignedID(a.ID, traineeID, form)
}

func (w *world) assignedID(id, traineeID, form string) error {
	got, err := w.ss.GetFormAssignment(w.ctx, id)
	if err != nil {
		return fmt.Errorf("assignment %q: %v", id, err)
	}
	t, err := w.ss.GetFormTemplate(w.ctx, got.FormTemplateID)
	if err != nil || got.TraineeID != traineeID || t.Name != form {
		return fmt.Errorf("assignment %s is %s to %s, want %s to %s", id, t.Name, got.TraineeID, form, traineeID)
	}
	return nil
}

// groupDone checks that a group answer did its write for exactly group,
// and, for a form or a task, that each record is in the store as asked.
func (w *world) groupDone(answer string, group []domain.Trainee, kind, what string) error {
	var a struct {
		Items []struct {
			TraineeID, Result, ID string
		} `json:"items"`
	}
	if err := decode(answer, &a); err != nil {
		return err
	}
	var want, got []string
	for _, tr := range group {
		want = append(want, tr.ID)
	}
	for _, it := range a.Items {
		got = append(got, it.TraineeID)
		if it.Result != "done" && it.Result != "already_done" {
			return fmt.Errorf("%s: %s", it.TraineeID, it.Result)
		}
		switch kind {
		case "form":
			if err := w.assignedID(it.ID, it.TraineeID, what); err != nil {
				return err
			}
		case "task":
			task, err := w.ss.GetTask(w.ctx, it.ID)
			if err != nil || task.Title != what || task.ClientID == nil || *task.ClientID != it.TraineeID {
				return fmt.Errorf("task %s is not %q about %s (%v)", it.ID, what, it.TraineeID, err)
			}
		}
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		return fmt.Errorf("the group reached %v, want %v", got, want)
	}
	return nil
}

// sameIDs checks that a list answer's items are exactly these ids, in order.
func sameIDs(answer string, want []string) error {
	var a struct {
		Items []struct {
			ID string `json:"id"`
		} `json:"items"`
	}
	if err := decode(answer, &a); err != nil {
		return err
	}
	var got []string
	for _, it := range a.Items {
		got = append(got, it.ID)
	}
	if !slices.Equal(got, want) {
		return fmt.Errorf("items %v, want %v", got, want)
	}
	return nil
}

func totalIs(answer string, want int) error {
	var a struct {
		Total *int `json:"total"`
	}
	if err := decode(answer, &a); err != nil || a.Total == nil {
		return fmt.Errorf("no total (%v)", err)
	}
	if *a.Total != want {
		return fmt.Errorf("total %d, want %d", *a.Total, want)
	}
	return nil
}

func idIs(answer, want string) error {
	var a struct {
		ID string `json:"id"`
	}
	if err := decode(answer, &a); err != nil || a.ID != want {
		return fmt.Errorf("id %q, want %s (%v)", a.ID, want, err)
	}
	return nil
}

// decode reads an answer's JSON, before the sentence that may follow it
// (what each name was matched to).
func decode(answer string, v any) error {
	return json.NewDecoder(strings.NewReader(answer)).Decode(v)
}
