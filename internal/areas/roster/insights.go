package roster

import (
	"fmt"
	"slices"
	"strings"

	"github.com/otherwise/perform/internal/answers"
	"github.com/otherwise/perform/internal/areas/health"
	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/training"
	"github.com/otherwise/perform/internal/views"
)

// The read models: computed here from the store's rows by internal/training,
// deterministic, no model call.

// insightRoutes: the read models (overview, debrief, insights, roster triage).
func (a *Area) insightRoutes(rs *lane.Routes) {
	lane.Add(rs, "GET", "/trainees/{id}/overview", "A trainee's training at a glance, summary first: the active program's week and phase, the last 14 days of sessions (no sets), completion against plan, the latest check-ins, active injuries, active goals with progress.", a.traineeOverview, lane.Tool("get_trainee_overview"),
		lane.Trainee(auth.ScopeTrainingRead), lane.TraineeTool("get_training_overview"),
		lane.Allow("summary", "from", "to", "program", "sessions", "completion", "more"),
		lane.Allow(lane.Under("activeGoals.goal", health.GoalFields...)...), lane.Allow("activeGoals.progress"),
		lane.Allow(lane.Under("latestCheckIns", health.CheckInFields...)...),
		lane.Allow("activeInjuries.id", "activeInjuries.area", "activeInjuries.side", "activeInjuries.severity", "activeInjuries.status", "activeInjuries.onsetOn", "activeInjuries.notes", "activeInjuries.affectedExercises"))
	lane.Add(rs, "GET", "/trainees/{id}/debrief", "One ISO week of a trainee in the studio's time zone, summary first: planned against completed, volume and minutes against the week before, PRs, check-in averages, flags, next week's planned sessions.", a.weeklyDebrief, lane.Tool("get_weekly_debrief"),
		lane.Trainee(auth.ScopeCoachRead), lane.TraineeTool("get_weekly_debrief"), lane.View(views.WeekAdherence),
		lane.Allow("summary", "week", "from", "to", "planned", "completed", "skipped", "missed", "remaining", "volumeKg", "minutes", "prs", "checkIns", "flags", "sessions", "nextWeek"))
	lane.Add(rs, "GET", "/trainees/{id}/insights", "Coaching insights, each observation with its numbers: consistency (4-week completion, streaks), fatigue (readiness, soreness and session RPE, last 7 days against the 21 before), progress (benchmark trends, lifts whose best e1RM has not improved for 3 weeks).", a.coachingInsights, lane.Tool("get_coaching_insights"),
		lane.Trainee(auth.ScopeCoachRead), lane.TraineeTool("get_coach_insight"),
		lane.Allow("summary", "observations", "consistency", "fatigue", "benchmarks", "stalledLifts"))
	lane.Add(rs, "GET", "/trainees/needs-attention", "The studio's active trainees who need a coach now, most urgent first, each with its reasons and the numbers behind them.", a.needsAttention, lane.Tool("needs_attention"), lane.View(views.Triage),
		lane.ReasonFilter("reason")) // and every reason the areas add
}

type needsAttentionQuery struct {
	CoachID string `json:"coachId,omitempty" jsonschema:"Whose trainees: a coach id from list_coaches, me or all; left out, yours when a coach signed in, else all." lane:"maxLength=100" ref:"coachScope"`
	Tag     string `json:"tag,omitempty" jsonschema:"Only this tag's trainees (list_tags); the rest of them are listed under fine." lane:"maxLength=100" ref:"tagName"`
	Reason  string `json:"reason,omitempty" jsonschema:"Only trainees with this reason: low_readiness (readiness 4 or lower 3 days running, the last today or yesterday), active_injury, plan_ended (the plan's last day passed with no renewal), no_recent_session (a program is active and no session was completed in 10 days), missed_sessions (2 or more missed this week), plan_ending (the plan ends within 7 days), weight_off_goal (4 weekly weight averages each further from the goal weight), overdue_tasks, form_past_due, feedback (the trainee told the studio something in the last 7 days)." lane:"enum=low_readiness|active_injury|plan_ended|no_recent_session|missed_sessions|plan_ending|weight_off_goal|overdue_tasks|form_past_due|feedback"`
	lane.PageQuery
}

func (a *Area) needsAttention(c *lane.Call, q *needsAttentionQuery) (answers.Triage, error) {
	today := c.LocalToday()
	facts, err := c.Studio().RosterFacts(c.Ctx, store.RosterQuery{
		Today: today, WeekStart: training.WeekStartOn(today, c.FirstDay()), Now: c.Now(), Zone: c.Zone(), CoachID: q.CoachID, Tag: q.Tag,
	})
	if err != nil {
		return answers.Triage{}, err
	}
	more, err := moreReasons(c, facts)
	if err != nil {
		return answers.Triage{}, err
	}
	p := q.Page()
	t := training.TriagePageWith(facts, more, today, c.Zone(), q.Reason, p.Offset, p.Limit)
	page := lane.PageOf(store.List[training.Attention]{Items: t.Items, Total: t.Total}, p)
	out := answers.Triage{Summary: triageSummary(t, len(facts)), Active: len(facts), Counts: t.Counts, Items: page.Items, Total: page.Total, NextOffset: page.NextOffset}
	if q.Tag != "" && p.Offset == 0 && q.Reason == "" {
		// A group asked about by its tag: everyone in it has a status.
		needs := map[string]bool{}
		for _, x := range training.TriagePageWith(facts, more, today, c.Zone(), "", 0, len(facts)).Items {
			needs[x.TraineeID] = true
		}
		for _, f := range facts {
			if !needs[f.TraineeID] && len(out.Fine) < p.Limit {
				out.Fine = append(out.Fine, answers.FineTrainee{TraineeID: f.TraineeID, Name: strings.TrimSpace(f.FirstName + " " + f.LastName), LastCompletedOn: f.LastCompletedOn})
			}
		}
	}
	return out, nil
}

// moreReasons are the reasons other areas add (lane.Adds) for the trainees
// of facts, by trainee id.
func moreReasons(c *lane.Call, facts []domain.RosterFacts) (map[string][]training.Reason, error) {
	var more map[string][]training.Reason
	for _, add := range c.Adds() {
		if add.Reasons == nil || len(facts) == 0 {
			continue
		}
		ids := make([]string, len(facts))
		for i, f := range facts {
			ids[i] = f.TraineeID
		}
		got, err := add.Reasons(c, ids)
		if err != nil {
			return nil, err
		}
		if more == nil {
			more = map[string][]training.Reason{}
		}
		for id, rs := range got {
			for _, r := range rs {
				if !slices.ContainsFunc(add.Codes, func(d lane.ReasonCode) bool { return d.Code == r.Code }) {
					// Not in the reason filter: an area's mistake, not the caller's.
					return nil, fmt.Errorf("an area added the reason %q, which its declaration (lane.Adds.Codes) does not list", r.Code)
				}
			}
			more[id] = append(more[id], rs...)
		}
	}
	return more, nil
}

func triageSummary(t training.TriageResult, roster int) string {
	if t.Total == 0 {
		return fmt.Sprintf("None of the %d active trainees asked about needs attention now.", roster)
	}
	var parts []string
	for _, code := range training.Reasons {
		if n := t.Counts[code]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", code, n))
		}
	}
	var more []string // the reasons other areas add, by name
	for code, n := range t.Counts {
		if !slices.Contains(training.Reasons, code) {
			more = append(more, fmt.Sprintf("%s %d", code, n))
		}
	}
	slices.Sort(more)
	parts = append(parts, more...)
	return fmt.Sprintf("%d of %d active trainees need attention (%s).", t.Total, roster, strings.Join(parts, ", "))
}

// Bounds of what the read models read, whatever the history holds.
const (
	readModelSessions = 200 // a window's sessions (3 weeks of the debrief, 2 of the overview)
	overviewGoalsRead = 10
	insightCheckIns   = 28
)

// activeProgramOf is the trainee's active program that has started
// latest, else the next to start, with its template's structure (nil when
// it has none); nil without one.
func activeProgramOf(c *lane.Call, ss store.StudioStore, traineeID, today string) (*domain.Program, *domain.ProgramStructure, error) {
	progs, err := ss.ListPrograms(c.Ctx, traineeID)
	if err != nil {
		return nil, nil, err
	}
	var p *domain.Program
	for i := range progs {
		q := &progs[i]
		if q.Status == domain.ProgramActive && (p == nil || q.StartsOn <= today && (p.StartsOn > today || q.StartsOn > p.StartsOn)) {
			p = q
		}
	}
	if p == nil {
		return nil, nil, nil
	}
	tmpl, err := ss.GetProgramTemplate(c.Ctx, p.TemplateID)
	if err != nil {
		return nil, nil, err
	}
	return p, tmpl.Structure, nil
}

func (a *Area) traineeOverview(c *lane.Call, _ *lane.NoInput) (training.Overview, error) {
	ss, id := c.Studio(), c.ID()
	if _, err := lane.Lookup(c.Ctx, ids.Trainee, id, ss.GetTrainee); err != nil {
		return training.Overview{}, err
	}
	today := c.LocalToday()
	in := training.OverviewInput{Today: today, FirstDay: c.FirstDay()}
	var err error
	if in.Program, in.Structure, err = activeProgramOf(c, ss, id, today); err != nil {
		return training.Overview{}, err
	}
	sessions, err := ss.ListSessions(c.Ctx, store.SessionFilter{TraineeID: id, From: lane.AddDays(today, -(training.OverviewDays - 1)), To: today, Page: store.Page{Limit: readModelSessions}})
	if err != nil {
		return training.Overview{}, err
	}
	in.Sessions = sessions.Items
	// The latest check-ins of the window: an open range would count the whole history.
	checkIns, err := ss.ListCheckIns(c.Ctx, id, lane.AddDays(today, -(training.OverviewDays-1)), today, store.Page{Limit: 3})
	if err != nil {
		return training.Overview{}, err
	}
	in.CheckIns = checkIns.Items
	if in.Injuries, err = ss.ListInjuries(c.Ctx, id, domain.InjuryActive); err != nil {
		return training.Overview{}, err
	}
	goals, err := ss.ListGoals(c.Ctx, id, domain.GoalActive)
	if err != nil {
		return training.Overview{}, err
	}
	answers, err := health.GoalAnswers(c, ss, id, goals[:min(len(goals), overviewGoalsRead)])
	if err != nil {
		return training.Overview{}, err
	}
	for _, a := range answers {
		in.Goals = append(in.Goals, training.GoalLine{Goal: a.Goal, Progress: a.Progress})
	}
	o := training.BuildOverview(in)
	for _, add := range c.Adds() { // what other areas say about her
		if add.Overview != nil {
			lines, err := add.Overview(c, id)
			if err != nil {
				return training.Overview{}, err
			}
			o.More = append(o.More, lines...)
		}
	}
	return o, nil
}

type debriefQuery struct {
	Week string `json:"week,omitempty" jsonschema:"this, last or next; a day in the week (YYYY-MM-DD); or an ISO week (2026-W48: the studio's week holding its Monday). Weeks start on the studio's first day (weekStartsOn), in its time zone; this week when omitted." lane:"maxLength=10"`
}

func (a *Area) weeklyDebrief(c *lane.Call, q *debriefQuery) (training.Debrief, error) {
	ss, id := c.Studio(), c.ID()
	today := c.LocalToday()
	monday, err := training.ParseWeek(q.Week, today, c.FirstDay())
	if err != nil {
		return training.Debrief{}, lane.InvalidField("week", err.Error()+".")
	}
	if _, err := lane.Lookup(c.Ctx, ids.Trainee, id, ss.GetTrainee); err != nil {
		return training.Debrief{}, err
	}
	in := training.DebriefInput{WeekStart: monday, Today: today}
	// The week before, the week, the week after: summary rows carry the totals.
	sessions, err := ss.ListSessions(c.Ctx, store.SessionFilter{TraineeID: id, From: lane.AddDays(monday, -7), To: lane.AddDays(monday, 13), Ascending: true, Page: store.Page{Limit: readModelSessions}})
	if err != nil {
		return training.Debrief{}, err
	}
	in.Sessions = sessions.Items
	checkIns, err := ss.ListCheckIns(c.Ctx, id, monday, lane.AddDays(monday, 6), store.Page{Limit: 7})
	if err != nil {
		return training.Debrief{}, err
	}
	in.CheckIns = checkIns.Items
	if in.Injuries, err = ss.ListInjuries(c.Ctx, id, domain.InjuryActive); err != nil {
		return training.Debrief{}, err
	}
	if in.Benchmarks, err = ss.ListBenchmarks(c.Ctx, id); err != nil {
		return training.Debrief{}, err
	}
	return training.BuildDebrief(in), nil
}

func (a *Area) coachingInsights(c *lane.Call, _ *lane.NoInput) (training.Insights, error) {
	ss, id := c.Studio(), c.ID()
	if _, err := lane.Lookup(c.Ctx, ids.Trainee, id, ss.GetTrainee); err != nil {
		return training.Insights{}, err
	}
	today := c.LocalToday()
	in := training.InsightsInput{Today: today, Zone: c.Zone(), FirstDay: c.FirstDay()}
	var err error
	// Full sessions: the stalled-lift check reads their sets.
	if in.Sessions, err = ss.SessionsBetween(c.Ctx, id, lane.AddDays(today, -(training.InsightDays-1)), today); err != nil {
		return training.Insights{}, err
	}
	checkIns, err := ss.ListCheckIns(c.Ctx, id, lane.AddDays(today, -(insightCheckIns-1)), today, store.Page{Limit: insightCheckIns})
	if err != nil {
		return training.Insights{}, err
	}
	in.CheckIns = checkIns.Items
	if in.Benchmarks, err = ss.ListBenchmarks(c.Ctx, id); err != nil {
		return training.Insights{}, err
	}
	return training.BuildInsights(in), nil
}
