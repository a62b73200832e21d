package domain

import ()

// RosterFacts is what the roster triage reads of one active trainee; the
// read model turns them into reasons. Dates are local days.
type RosterFacts struct {
	TraineeID string   `json:"traineeId"`
	FirstName string   `json:"firstName"`
	LastName  string   `json:"lastName"`
	CoachIDs  []string `json:"coachIds"`
	// PlanEndsOn is the latest last day among the trainee's subscriptions
	// in stored state active: nil when there is none or one is open-ended.
	// A renewal ends later, so a past PlanEndsOn means no renewal.
	PlanEndsOn *string `json:"planEndsOn"`
	// FormsPastDue counts pending form assignments whose dueAt is before now.
	FormsPastDue int `json:"formsPastDue"`
	// ActiveProgram is true when the trainee has a program in state active.
	ActiveProgram bool `json:"activeProgram"`
	// LastCompletedOn is the date of the latest completed session.
	LastCompletedOn *string `json:"lastCompletedOn"`
	// MissedThisWeek counts sessions dated from the first day of the
	// studio's week to yesterday that are missed, or still planned.
	MissedThisWeek int `json:"missedThisWeek"`
	// Readiness is the latest check-ins with a readiness, newest first (at
	// most 3), of today and the 3 days before, read only for a trainee with
	// 3 of them at 4 or lower: a run the triage flags lies there.
	Readiness []DayValue `json:"readiness"`
	// ActiveInjuries is the trainee's injuries in status active (id, area,
	// side, severity, status and onset only).
	ActiveInjuries []Injury `json:"activeInjuries"`
	// WeightWeeks are the weigh-ins of the last 28 local days summed by
	// week, oldest first (week 0 is today−27…−21, week 3 today−6…today),
	// read only when WeightGoalKg is set.
	WeightWeeks [4]WeekWeight `json:"weightWeeks"`
	// WeightGoalKg is the target of an active measurement goal on weightKg.
	WeightGoalKg *float64 `json:"weightGoalKg"`
	// OverdueTasks counts open tasks about the trainee whose dueAt is before now.
	OverdueTasks int `json:"overdueTasks"`
	// Feedback is what the trainee told the studio in the last 7 days,
	// newest first (text, rating, topic and instant only).
	Feedback []Feedback `json:"feedback"`
}

// WeekWeight is one week's weigh-ins: their sum and how many.
type WeekWeight struct {
	SumKg float64 `json:"sumKg"`
	Count int     `json:"count"`
}

// DayValue is one number on one local day.
type DayValue struct {
	Day   string  `json:"day"`
	Value float64 `json:"value"`
}

// Roster questions: what GET /roster answers about the studio's trainees
// over a window, one row a trainee (one a record for plans, injuries and
// feedback).
const (
	RosterTrained       = "trained"        // completed a session in the window
	RosterNotTrained    = "not_trained"    // active, completed none in the window
	RosterPlansEnding   = "plans_ending"   // an active plan's last day in the window
	RosterPlansStarting = "plans_starting" // an active plan's first day in the window
	RosterLowReadiness  = "low_readiness"  // a check-in with readiness 4 or lower
	RosterSoreness      = "soreness"       // a check-in with soreness 6 or more of 10
	RosterInjuries      = "injuries"       // an active or recovering injury, whatever its onset
	RosterNewTrainees   = "new_trainees"   // added to the studio in the window
	RosterGoalsReached  = "goals_reached"  // a goal marked completed in the window
	RosterFeedback      = "feedback"       // feedback given in the window
)

// RosterQuestions lists the questions in the order they are documented.
var RosterQuestions = []string{RosterTrained, RosterNotTrained, RosterPlansEnding, RosterPlansStarting,
	RosterLowReadiness, RosterSoreness, RosterInjuries, RosterNewTrainees, RosterGoalsReached, RosterFeedback}

// RosterRow is one answer row of a roster question: the trainee and the
// few figures that question is about; the others stay empty and out of
// the JSON.
type RosterRow struct {
	TraineeID string `json:"traineeId"`
	Name      string `json:"name"`
	// trained, not_trained
	LastSessionOn *string `json:"lastSessionOn,omitempty"` // the latest completed session (not_trained: ever)
	Sessions      *int    `json:"sessions,omitempty"`      // completed in the window
	Scheduled     *int    `json:"scheduled,omitempty"`     // not_trained: sessions in the window (planned, missed, skipped)
	// plans_ending, plans_starting
	SubscriptionID string  `json:"subscriptionId,omitempty"`
	Plan           string  `json:"plan,omitempty"`
	StartsOn       *string `json:"startsOn,omitempty"`
	EndsOn         *string `json:"endsOn,omitempty"`
	Renewed        *bool   `json:"renewed,omitempty"` // another active plan runs past this one's end
	// low_readiness, soreness
	Days            *int     `json:"days,omitempty"` // check-ins that count in the window
	LowestReadiness *int     `json:"lowestReadiness,omitempty"`
	HighestSoreness *int     `json:"highestSoreness,omitempty"`
	SoreAreas       []string `json:"soreAreas,omitempty"` // of the latest such check-in
	LatestOn        *string  `json:"latestOn,omitempty"`
	// injuries
	InjuryID string  `json:"injuryId,omitempty"`
	Area     string  `json:"area,omitempty"`
	Side     string  `json:"side,omitempty"`
	Severity *int    `json:"severity,omitempty"`
	Status   string  `json:"status,omitempty"` // injuries: active or recovering; new_trainees: the trainee's
	OnsetOn  *string `json:"onsetOn,omitempty"`
	Notes    *string `json:"notes,omitempty"`
	// new_trainees
	JoinedOn *string `json:"joinedOn,omitempty"`
	// goals_reached
	GoalID string `json:"goalId,omitempty"`
	Goal   string `json:"goal,omitempty"`
	// feedback
	FeedbackID string  `json:"feedbackId,omitempty"`
	On         *string `json:"on,omitempty"` // the local day it was given (goals_reached: marked completed)
	Rating     *int    `json:"rating,omitempty"`
	Topic      *string `json:"topic,omitempty"`
	Text       string  `json:"text,omitempty"`
}
