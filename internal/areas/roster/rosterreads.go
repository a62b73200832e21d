package roster

import (
	"fmt"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/training"
)

// The roster questions a coach asks of all her trainees at once ("who
// hasn't trained this week?", "whose plan ends this month?"), each one
// call and one query, whatever the roster's size.

type rosterQuestion struct {
	Question string  `json:"question" jsonschema:"What to ask of the roster: trained or not_trained (completed a session in the window, or none; with the last session), plans_ending or plans_starting (an active plan's last or first day in the window), low_readiness (a check-in with readiness 4 or lower), soreness (soreness 6 or more of 10, with the areas), injuries (active or recovering, whatever the window), new_trainees (added in the window), goals_reached (completed in the window), feedback (what trainees told the studio)." lane:"enum=trained|not_trained|plans_ending|plans_starting|low_readiness|soreness|injuries|new_trainees|goals_reached|feedback"`
	From     *string `json:"from,omitempty" jsonschema:"First day of the window, YYYY-MM-DD, inclusive. Default: the first day of this week (the studio's weekStartsOn); today for plans_ending and plans_starting; 30 days ago for new_trainees, goals_reached and feedback." lane:"format=date"`
	To       *string `json:"to,omitempty" jsonschema:"Last day of the window, YYYY-MM-DD, inclusive; at most 366 days after from. Default today; 30 days ahead for plans_ending and plans_starting." lane:"format=date"`
	CoachID  string  `json:"coachId,omitempty" jsonschema:"Whose trainees: a coach id from list_coaches, me or all; left out, yours when a coach signed in, else all." lane:"maxLength=100" ref:"coachScope"`
	Tag      string  `json:"tag,omitempty" jsonschema:"Only this tag's trainees (list_tags)." lane:"maxLength=100" ref:"tagName"`
	lane.PageQuery
}

// rosterAnswer is a page of a roster question's rows with a sentence
// over all of them.
type rosterAnswer struct {
	Summary    string             `json:"summary" jsonschema:"The answer in a sentence: how many of how many active trainees, over which window."`
	Question   string             `json:"question"`
	From       string             `json:"from"`
	To         string             `json:"to"`
	Items      []domain.RosterRow `json:"items" jsonschema:"One row a trainee (a plan, an injury, a goal or a feedback for those questions), only the fields the question is about."`
	Total      int                `json:"total"`
	NextOffset *int               `json:"nextOffset" jsonschema:"The offset of the next page; null on the last page."`
}

func (a *Area) rosterRoutes(rs *lane.Routes) {
	lane.Add(rs, "GET", "/roster", "One question asked of all the studio's active trainees (or one coach's) over a window of local days, answered in one query: who trained or did not, whose plan ends or starts, low readiness, soreness, injuries, new trainees, goals reached, feedback. Summary first, compact rows, total and paging.", a.readRoster, lane.Tool("roster"))
}

// rosterWindow is a question's default window: this week so far for
// what trainees did, the month ahead for plans, the last 30 days for
// what came in.
func rosterWindow(question, today string, first time.Weekday) (from, to string) {
	switch question {
	case domain.RosterPlansEnding, domain.RosterPlansStarting:
		return today, lane.AddDays(today, 30)
	case domain.RosterNewTrainees, domain.RosterGoalsReached, domain.RosterFeedback:
		return lane.AddDays(today, -29), today
	}
	return training.WeekStartOn(today, first), today
}

func (a *Area) readRoster(c *lane.Call, q *rosterQuestion) (rosterAnswer, error) {
	today := c.LocalToday()
	defFrom, defTo := rosterWindow(q.Question, today, c.FirstDay())
	r := lane.DayRange{From: q.From, To: q.To}
	if r.From == nil {
		if r.To != nil && *r.To < defFrom {
			// A window that ends before the default start: a week up to its end.
			defFrom = lane.AddDays(*r.To, -6)
		}
		r.From = &defFrom
	}
	if r.To == nil {
		if *r.From > defTo {
			defTo = lane.AddDays(*r.From, 6)
		}
		r.To = &defTo
	}
	from, to, e := c.Days(r)
	if e != nil {
		return rosterAnswer{}, e
	}
	zone := c.Zone()
	since, _ := time.ParseInLocation(time.DateOnly, from, zone)
	until, _ := time.ParseInLocation(time.DateOnly, lane.AddDays(to, 1), zone)
	ss := c.Studio()
	page := q.Page()
	rows, err := ss.ReadRoster(c.Ctx, store.RosterRead{
		Question: q.Question, From: from, To: to, Since: since, Until: until, Zone: zone, CoachID: q.CoachID, Tag: q.Tag, Page: page,
	})
	if err != nil {
		return rosterAnswer{}, err
	}
	size, err := ss.RosterSize(c.Ctx, q.CoachID, q.Tag)
	if err != nil {
		return rosterAnswer{}, err
	}
	list := lane.PageOf(rows, page)
	return rosterAnswer{
		Summary:  rosterSummary(q.Question, rows.Total, size, from, to, q.CoachID != "", q.Tag),
		Question: q.Question, From: from, To: to,
		Items: list.Items, Total: list.Total, NextOffset: list.NextOffset,
	}, nil
}

// rosterSummary says the answer in a sentence.
func rosterSummary(question string, n, size int, from, to string, oneCoach bool, tag string) string {
	whose := "the studio's"
	if oneCoach {
		whose = "the coach's"
	}
	if tag != "" {
		whose += " " + tag
	}
	window := fmt.Sprintf("from %s to %s", from, to)
	of := fmt.Sprintf("%d of %s %d active trainees", n, whose, size)
	switch question {
	case domain.RosterTrained:
		return fmt.Sprintf("%s completed a session %s.", of, window)
	case domain.RosterNotTrained:
		return fmt.Sprintf("%s completed no session %s; the longest absent first.", of, window)
	case domain.RosterPlansEnding:
		return fmt.Sprintf("%d active plans of %s trainees end %s; soonest first, renewed says whether another plan follows.", n, whose, window)
	case domain.RosterPlansStarting:
		return fmt.Sprintf("%d active plans of %s trainees start %s.", n, whose, window)
	case domain.RosterLowReadiness:
		return fmt.Sprintf("%s checked in with readiness 4 or lower %s; the lowest first.", of, window)
	case domain.RosterSoreness:
		return fmt.Sprintf("%s reported soreness 6 or more of 10 %s; the sorest first.", of, window)
	case domain.RosterInjuries:
		return fmt.Sprintf("%d active or recovering injuries among %s %d active trainees; the most severe first.", n, whose, size)
	case domain.RosterNewTrainees:
		return fmt.Sprintf("%d trainees were added %s; the newest first.", n, window)
	case domain.RosterGoalsReached:
		return fmt.Sprintf("%d goals of %s trainees were completed %s; the latest first.", n, whose, window)
	case domain.RosterFeedback:
		return fmt.Sprintf("%d feedback messages from %s trainees %s; the newest first.", n, whose, window)
	}
	return ""
}
