package requests_test

import (
	"fmt"
	"slices"
	"strings"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
)

// coachRequests are what a coach asks her AI about her studio, signed in
// as herself: "my trainees" are hers.
func coachRequests(w *world) []request {
	mon, today := w.weekStart, w.today
	planIn := func(from, to string, ends bool) []string {
		return w.mineWhere(func(tr domain.Trainee) bool {
			subs, _ := w.ss.ListSubscriptions(w.ctx, tr.ID)
			return slices.ContainsFunc(subs, func(s domain.Subscription) bool {
				if s.Status == domain.SubCancelled || s.Status == domain.SubFrozen {
					return false
				}
				day := s.StartedOn
				if ends {
					if s.EndsOn == nil {
						return false
					}
					day = *s.EndsOn
				}
				return day >= from && day <= to
			})
		})
	}
	checkIns := func(tr domain.Trainee, keep func(domain.CheckIn) bool) bool {
		l, _ := w.ss.ListCheckIns(w.ctx, tr.ID, mon, today, store.Page{Limit: 20})
		return slices.ContainsFunc(l.Items, keep)
	}
	injured := w.mineWhere(func(tr domain.Trainee) bool {
		a, _ := w.ss.ListInjuries(w.ctx, tr.ID, domain.InjuryActive)
		r, _ := w.ss.ListInjuries(w.ctx, tr.ID, domain.InjuryRecovering)
		return len(a)+len(r) > 0
	})
	other := w.mine[0]
	if other.ID == w.trainee.ID && len(w.mine) > 1 {
		other = w.mine[1]
	}
	tr := w.trainee
	return []request{
		{ask: fmt.Sprintf("Draft next week for %s", tr.FirstName), steps: []step{find(tr), then("draft_weekly_plan", nil)},
			check: func(w *world, a []string) error { return weekDrafted(w, tr.ID, a[1]) }},
		{ask: "Who hasn't trained this week?", steps: []step{call("roster", map[string]any{"question": "not_trained"})},
			check: func(w *world, a []string) error {
				return names(a[0], w.mineWhere(func(tr domain.Trainee) bool { return len(w.sessions(tr.ID, mon, today, domain.SessionCompleted)) == 0 }))
			}},
		{ask: "Who trained this week?", steps: []step{call("roster", map[string]any{"question": "trained"})},
			check: func(w *world, a []string) error {
				return names(a[0], w.mineWhere(func(tr domain.Trainee) bool { return len(w.sessions(tr.ID, mon, today, domain.SessionCompleted)) > 0 }))
			}},
		{ask: "Who didn't train in the last two weeks?", steps: []step{call("roster", map[string]any{"question": "not_trained", "from": "2026-11-20", "to": today})},
			check: func(w *world, a []string) error {
				return names(a[0], w.mineWhere(func(tr domain.Trainee) bool {
					return len(w.sessions(tr.ID, "2026-11-20", today, domain.SessionCompleted)) == 0
				}))
			}},
		{ask: "Who trained last week?", steps: []step{call("roster", map[string]any{"question": "trained", "from": "2026-11-23", "to": "2026-11-29"})},
			check: func(w *world, a []string) error {
				return names(a[0], w.mineWhere(func(tr domain.Trainee) bool {
					return len(w.sessions(tr.ID, "2026-11-23", "2026-11-29", domain.SessionCompleted)) > 0
				}))
			}},
		{ask: "Whose plan ends this month?", steps: []step{call("roster", map[string]any{"question": "plans_ending", "from": today, "to": "2026-12-31"})},
			check: func(w *world, a []string) error { return names(a[0], planIn(today, "2026-12-31", true)) }},
		{ask: "Whose plan ended last month?", steps: []step{call("roster", map[string]any{"question": "plans_ending", "from": "2026-11-01", "to": "2026-11-30"})},
			check: func(w *world, a []string) error { return names(a[0], planIn("2026-11-01", "2026-11-30", true)) }},
		{ask: "Whose plan starts this month?", steps: []step{call("roster", map[string]any{"question": "plans_starting", "from": "2026-12-01", "to": "2026-12-31"})},
			check: func(w *world, a []string) error { return names(a[0], planIn("2026-12-01", "2026-12-31", false)) }},
		{ask: "Who is sore this week?", steps: []step{call("roster", map[string]any{"question": "soreness"})},
			check: func(w *world, a []string) error {
				return names(a[0], w.mineWhere(func(tr domain.Trainee) bool {
					return checkIns(tr, func(c domain.CheckIn) bool { return c.Soreness != nil && *c.Soreness >= 6 })
				}))
			}},
		{ask: "Who checked in tired (low readiness) this week?", steps: []step{call("roster", map[string]any{"question": "low_readiness"})},
			check: func(w *world, a []string) error {
				return names(a[0], w.mineWhere(func(tr domain.Trainee) bool {
					return checkIns(tr, func(c domain.CheckIn) bool { return c.Readiness != nil && *c.Readiness <= 4 })
				}))
			}},
		{ask: "Who is injured?", steps: []step{call("roster", map[string]any{"question": "injuries"})},
			check: func(w *world, a []string) error { return names(a[0], injured) }},
		{ask: "Any new trainees this month?", steps: []step{call("roster", map[string]any{"question": "new_trainees", "from": "2026-12-01"})},
			check: func(w *world, a []string) error {
				return names(a[0], w.mineWhere(func(tr domain.Trainee) bool { return !tr.CreatedAt.In(w.zone).Before(day(w, "2026-12-01")) }))
			}},
		{ask: "Which goals did my trainees reach this month?", steps: []step{call("roster", map[string]any{"question": "goals_reached", "from": "2026-11-03"})},
			check: func(w *world, a []string) error {
				return names(a[0], w.mineWhere(func(tr domain.Trainee) bool {
					gs, _ := w.ss.ListGoals(w.ctx, tr.ID, domain.GoalCompleted)
					return slices.ContainsFunc(gs, func(g domain.Goal) bool { return g.CompletedAt != nil && !g.CompletedAt.Before(day(w, "2026-11-03")) })
				}))
			}},
		{ask: "What feedback did my trainees give lately?", steps: []step{call("roster", map[string]any{"question": "feedback"})},
			check: func(w *world, a []string) error {
				fb, _ := w.ss.ListFeedback(w.ctx, "", store.Page{Limit: 100})
				var want []string
				for _, f := range fb.Items {
					if f.CreatedAt.Before(day(w, "2026-11-04")) {
						continue
					}
					for _, tr := range w.mine {
						if tr.ID == f.TraineeID && !slices.Contains(want, name(tr)) {
							want = append(want, name(tr))
						}
					}
				}
				return names(a[0], want)
			}},
		{ask: "Whose plans end this month, across the studio?", steps: []step{call("roster", map[string]any{"question": "plans_ending", "from": today, "to": "2026-12-31", "coachId": "all"})},
			check: func(w *world, a []string) error { return contains(a[0], `"summary"`, "the studio's") }},
		{ask: "Who needs me today?", steps: []step{call("needs_attention", map[string]any{})},
			check: func(w *world, a []string) error { return contains(a[0], `"summary"`, "active trainees") }},
		{ask: "Who needs attention for an injury?", steps: []step{call("needs_attention", map[string]any{"reason": "active_injury"})},
			check: func(w *world, a []string) error {
				return names(a[0], w.mineWhere(func(tr domain.Trainee) bool {
					a, _ := w.ss.ListInjuries(w.ctx, tr.ID, domain.InjuryActive)
					return len(a) > 0
				}))
			}},
		{ask: "Who missed sessions this week?", steps: []step{call("needs_attention", map[string]any{"reason": "missed_sessions"})},
			check: func(w *world, a []string) error { return contains(a[0], `"summary"`) }},
		{ask: "Whose plan is about to end?", steps: []step{call("needs_attention", map[string]any{"reason": "plan_ending"})},
			check: func(w *world, a []string) error { return names(a[0], planInFuture(w, planIn, today)) }},
		{ask: "Who owes me?", steps: []step{call("needs_attention", map[string]any{"reason": "owes", "coachId": "all"})},
			check: func(w *world, a []string) error {
				return someNames(a[0], w.studioWhere(func(tr domain.Trainee) bool {
					l, _ := w.ss.ListCharges(w.ctx, store.ChargeFilter{TraineeIDs: []string{tr.ID}, OverdueOn: today})
					return l.Total > 0
				}))
			}},
		{ask: "Whose package ends this month?", steps: []step{call("needs_attention", map[string]any{"reason": "package_ends", "coachId": "all"})},
			check: func(w *world, a []string) error {
				return someNames(a[0], w.studioWhere(func(tr domain.Trainee) bool {
					m, _ := w.ss.ListCredits(w.ctx, []string{tr.ID}, now)
					return slices.ContainsFunc(m[tr.ID], func(c domain.Credits) bool {
						return c.Kind == domain.PlanPackage && c.Usable(today) && (*c.Left <= 1 || (c.ExpiresOn != nil && *c.ExpiresOn <= "2026-12-31"))
					})
				}))
			}},
		{ask: "How many sessions does Noa have left?", steps: []step{call("search_trainees", map[string]any{"q": "נועה כהן"}), then("get_trainee_billing", nil)},
			check: func(w *world, a []string) error {
				return contains(a[1], "3 of 10 sessions left", `"paymentState":"paid"`)
			}},
		{ask: "What did trainees tell the studio this week? (whole studio)", steps: []step{call("needs_attention", map[string]any{"reason": "feedback", "coachId": "all"})},
			check: func(w *world, a []string) error { return contains(a[0], "feedback") }},
		{ask: "Which trainees are mine?", steps: []step{call("search_trainees", map[string]any{"coachId": "me", "status": "active"})},
			check: func(w *world, a []string) error {
				return names(a[0], w.mineWhere(func(domain.Trainee) bool { return true }))
			}},
		{ask: "Who are the paused trainees?", steps: []step{call("search_trainees", map[string]any{"status": "paused"})},
			check: func(w *world, a []string) error {
				var want []string
				for _, tr := range w.trainees(store.TraineeFilter{Status: domain.TraineePaused}) {
					want = append(want, name(tr))
				}
				return names(a[0], want)
			}},
		{ask: fmt.Sprintf("Find %s", tr.FirstName), steps: []step{call("search_trainees", map[string]any{"q": tr.FirstName})},
			check: func(w *world, a []string) error { return contains(a[0], tr.ID) }},
		{ask: fmt.Sprintf("What's %s's phone?", name(other)), steps: []step{find(other)},
			check: func(w *world, a []string) error { return contains(a[0], other.Phone) }},
		{ask: "Who has the number " + localPhone(other.Phone) + "?", steps: []step{call("find_trainee_by_phone", map[string]any{"phone": localPhone(other.Phone)})},
			check: func(w *world, a []string) error { return contains(a[0], other.ID, other.LastName) }},
		{ask: fmt.Sprintf("How is %s doing?", name(tr)), steps: []step{find(tr), then("get_trainee_overview", nil)},
			check: func(w *world, a []string) error { return contains(a[1], `"summary"`, `"completion"`) }},
		{ask: fmt.Sprintf("How was %s's last week?", tr.FirstName), steps: []step{find(tr), then("get_weekly_debrief", map[string]any{"week": "last"})},
			check: func(w *world, a []string) error {
				done := len(w.sessions(tr.ID, "2026-11-22", "2026-11-28", domain.SessionCompleted))
				return contains(a[1], `"week":"2026-11-22"`, `"to":"2026-11-28"`, fmt.Sprintf(`"completed":%d`, done))
			}},
		{ask: fmt.Sprintf("How did %s do the week of 16 November?", tr.FirstName), steps: []step{find(tr), then("get_weekly_debrief", map[string]any{"week": "2026-11-18"})},
			check: func(w *world, a []string) error { return contains(a[1], `"week":"2026-11-15"`) }}, // the studio's week holding 16 November
		{ask: fmt.Sprintf("Is %s's squat going up?", tr.FirstName), steps: []step{find(tr), then("get_trainee_benchmarks", nil)},
			check: func(w *world, a []string) error {
				bs, _ := w.ss.ListBenchmarks(w.ctx, tr.ID)
				if len(bs) == 0 {
					return nil
				}
				return contains(a[1], bs[0].Name)
			}},
		{ask: fmt.Sprintf("How is %s's weight going?", tr.FirstName), steps: []step{find(tr), then("get_body_analysis", map[string]any{"from": "2026-09-01"})},
			check: func(w *world, a []string) error { return contains(a[1], `"metrics"`) }},
		{ask: fmt.Sprintf("%s's check-ins this week", tr.FirstName), steps: []step{find(tr), then("list_trainee_checkins", map[string]any{"from": mon})},
			check: func(w *world, a []string) error {
				l, _ := w.ss.ListCheckIns(w.ctx, tr.ID, mon, today, store.Page{Limit: 20})
				return contains(a[1], fmt.Sprintf(`"total":%d`, l.Total))
			}},
		{ask: fmt.Sprintf("What did %s do in November?", tr.FirstName), steps: []step{find(tr), then("list_trainee_sessions", map[string]any{"from": "2026-11-01", "to": "2026-11-30", "status": "completed"})},
			check: func(w *world, a []string) error {
				return contains(a[1], fmt.Sprintf(`"total":%d`, len(w.sessions(tr.ID, "2026-11-01", "2026-11-30", domain.SessionCompleted))))
			}},
		{ask: fmt.Sprintf("What's planned for %s next?", tr.FirstName), steps: []step{find(tr), then("list_trainee_sessions", map[string]any{"status": "planned", "from": today})},
			check: func(w *world, a []string) error {
				return contains(a[1], fmt.Sprintf(`"total":%d`, len(w.sessions(tr.ID, today, "", domain.SessionPlanned))))
			}},
		{ask: fmt.Sprintf("Coaching insights for %s", tr.FirstName), steps: []step{find(tr), then("get_coaching_insights", nil)},
			check: func(w *world, a []string) error { return contains(a[1], `"consistency"`, `"fatigue"`) }},
		{ask: fmt.Sprintf("Which plan is %s on?", tr.FirstName), steps: []step{find(tr), then("list_trainee_subscriptions", nil)},
			check: func(w *world, a []string) error {
				subs, _ := w.ss.ListSubscriptions(w.ctx, tr.ID)
				if len(subs) == 0 {
					return nil
				}
				return contains(a[1], subs[0].ID)
			}},
		{ask: fmt.Sprintf("Which programs does %s have?", tr.FirstName), steps: []step{find(tr), then("list_trainee_programs", nil)},
			check: func(w *world, a []string) error {
				ps, _ := w.ss.ListPrograms(w.ctx, tr.ID)
				return contains(a[1], fmt.Sprintf(`"total":%d`, len(ps)))
			}},
		{ask: fmt.Sprintf("What did %s answer in her forms?", tr.FirstName), steps: []step{find(tr), then("list_trainee_form_responses", nil)},
			check: func(w *world, a []string) error {
				l, _ := w.ss.ListFormResponses(w.ctx, tr.ID, store.Page{Limit: 1})
				return contains(a[1], fmt.Sprintf(`"total":%d`, l.Total))
			}},
		{ask: fmt.Sprintf("%s's weigh-ins", tr.FirstName), steps: []step{find(tr), then("list_trainee_weights", nil)},
			check: func(w *world, a []string) error {
				l, _ := w.ss.ListWeights(w.ctx, tr.ID, store.Page{Limit: 1})
				return contains(a[1], fmt.Sprintf(`"total":%d`, l.Total))
			}},
		{ask: "What plans do we sell?", steps: []step{call("list_plans", nil)},
			check: func(w *world, a []string) error {
				l, _ := w.ss.ListProducts(w.ctx, "", store.Page{Limit: 20})
				return contains(a[0], l.Items[0].Name)
			}},
		{ask: "Which program templates do we have?", steps: []step{call("list_program_templates", nil)},
			check: func(w *world, a []string) error {
				l, _ := w.ss.ListProgramTemplates(w.ctx, "", store.Page{Limit: 20})
				return contains(a[0], l.Items[0].Name)
			}},
		{ask: "Which forms can I send?", steps: []step{call("list_forms", nil)},
			check: func(w *world, a []string) error {
				l, _ := w.ss.ListFormTemplates(w.ctx, "", store.Page{Limit: 20})
				return contains(a[0], l.Items[0].Name)
			}},
		{ask: "Who are the studio's coaches?", steps: []step{call("list_coaches", nil)},
			check: func(w *world, a []string) error { return contains(a[0], w.coach.Name) }},
		{ask: "What are my open tasks?", steps: []step{call("list_tasks", map[string]any{"status": "open"})},
			check: func(w *world, a []string) error {
				l, _ := w.ss.ListTasks(w.ctx, store.TaskFilter{Status: domain.TaskOpen, CoachID: w.coach.ID, Page: store.Page{Limit: 1}})
				return contains(a[0], fmt.Sprintf(`"total":%d`, l.Total))
			}},
		{ask: "Which tags do we use?", steps: []step{call("list_tags", nil)},
			check: func(w *world, a []string) error {
				l, _ := w.ss.ListTags(w.ctx, store.Page{Limit: 20})
				if len(l.Items) == 0 {
					return nil
				}
				return contains(a[0], l.Items[0].Name)
			}},
		{ask: "A squat alternative that spares the knee", steps: []step{call("search_exercises", map[string]any{"muscle": "quadriceps", "area": "knee", "limit": 5})},
			check: func(w *world, a []string) error { return contains(a[0], `"items"`) }},
		// Writes come last: they change what the reads above count.
		{ask: fmt.Sprintf("Remind me to call %s tomorrow", other.FirstName), steps: []step{find(other), step{tool: "create_task", args: func(w *world, prev []string) map[string]any {
			return map[string]any{"title": "Call " + other.FirstName, "clientId": firstID(prev[0]), "dueAt": "2026-12-04T08:00:00Z"}
		}}},
			check: func(w *world, a []string) error { return contains(a[1], w.coach.ID, other.ID) }},
		{ask: fmt.Sprintf("%s weighed 71.4 this morning", other.FirstName), steps: []step{find(other), then("log_weight", map[string]any{"weightKg": 71.4, "recordedAt": "2026-12-03T06:30:00Z"})},
			check: func(w *world, a []string) error { return contains(a[1], "71.4") }},
		{ask: fmt.Sprintf("%s hurt her right shoulder", other.FirstName), steps: []step{find(other), then("record_injury", map[string]any{"area": "shoulder", "side": "right", "severity": 2})},
			check: func(w *world, a []string) error { return contains(a[1], `"guidance"`, `"shoulder"`) }},
	}
}

// planInFuture is the coach's trainees whose plan ends within 7 days with
// no later plan, as the triage reads plan_ending.
func planInFuture(w *world, planIn func(from, to string, ends bool) []string, today string) []string {
	ending := planIn(today, addDays(today, 7), true)
	var out []string
	for _, n := range ending {
		tr := w.mine[slices.IndexFunc(w.mine, func(t domain.Trainee) bool { return name(t) == n })]
		subs, _ := w.ss.ListSubscriptions(w.ctx, tr.ID)
		latest, open := "", false
		for _, s := range subs {
			if s.Status == domain.SubCancelled || s.Status == domain.SubFrozen {
				continue
			}
			if s.EndsOn == nil {
				open = true
			} else if *s.EndsOn > latest {
				latest = *s.EndsOn
			}
		}
		if !open && latest <= addDays(today, 7) {
			out = append(out, n)
		}
	}
	return out
}

// localPhone is an Israeli number as people type it: 050-123-4567.
func localPhone(e164 string) string {
	d := strings.TrimPrefix(e164, "+972")
	if len(d) != 9 {
		return e164
	}
	return "0" + d[:2] + "-" + d[2:5] + "-" + d[5:]
}
