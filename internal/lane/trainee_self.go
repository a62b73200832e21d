package lane

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/text"
	"github.com/otherwise/perform/internal/training"
)

// The routes a trainee's own connection calls about themselves (the
// trainee tools, internal/tools): their goals in one call, a change to
// their training profile, their word on the experience, their plan, the
// forms waiting for them and one of their programs. Studio keys call them
// too, for any trainee of the studio.

func (l *Lane) traineeSelfRoutes(rs *Routes) {
	Add(rs, "POST", "/trainees/{id}/goals/manage", "A trainee's goals in one call: create one, update or complete one (goalId), or list them with their progress. Nothing is sent to the trainee.", l.manageGoals,
		Trainee(auth.ScopeTrainingWrite), TraineeTool("manage_goals"),
		Allow("action"), Allow(Under("goal", goalFields...)...), Allow("goal.progress"),
		Allow(Under("goals.items", goalFields...)...), Allow("goals.items.progress", "goals.total", "goals.nextOffset"))
	Add(rs, "PATCH", "/trainees/{id}/training-profile", "Change only the fields given of a trainee's training profile (equipment, availability, sessionMinutes, experience, units); the answer carries the onboarding status.", l.patchTrainingProfile,
		Trainee(auth.ScopeTrainingWrite), TraineeTool("update_training_profile"),
		Allow("equipment", "availability", "sessionMinutes", "experience", "units", "onboarding", "onboardingStatus"))
	Add(rs, "POST", "/trainees/{id}/feedback", "Record a trainee's feedback on the experience (the coaching, the tools, the app), with an optional rating 1–5; the studio reads it (GET /feedback). Nothing is sent to anyone.", l.logFeedback, Created(),
		Trainee(auth.ScopeTrainingWrite), TraineeTool("log_feedback"),
		Allow("id", "text", "rating", "topic"))
	Add(rs, "GET", "/feedback", "What trainees said about the experience, newest first.", func(c *Call, q *feedbackQuery) (ListOf[domain.Feedback], error) {
		list, err := c.Studio().ListFeedback(c.Ctx, q.TraineeID, q.Page())
		return PageOf(list, q.Page()), err
	})
	Add(rs, "GET", "/trainees/{id}/plan", "A trainee's plan today: its name, since when and until when, days left, and the next plan scheduled after it.", l.traineePlan,
		Trainee(auth.ScopeProfileRead), TraineeTool("get_my_plan"),
		Allow("today", "current", "next"))
	Add(rs, "GET", "/trainees/{id}/forms", "The forms sent to a trainee still waiting for an answer, soonest due first: title, prompt, due and sent dates, and the fields to answer.", l.pendingForms,
		Trainee(auth.ScopeProfileRead), TraineeTool("list_my_forms"),
		Allow("items.id", "items.title", "items.description", "items.prompt", "items.dueAt", "items.sentAt", "items.fields", "items.prefilled", "total", "nextOffset"))
	Add(rs, "GET", "/programs/{id}", "One program of a trainee: its structure summarised, where it stands today (phase, week), its sessions this week and its sessions counted by status.", l.programDetail,
		Trainee(auth.ScopeTrainingRead),
		Allow("program.id", "program.name", "program.startsOn", "program.status", "description", "structure", "position", "thisWeek", "counts", "today"))
}

// Goals in one call.

type manageGoalsInput struct {
	Action      string   `json:"action" jsonschema:"create: set a new goal (title, kind, and targetValue unless kind is text); update: change one (goalId and the fields to change); complete: mark one completed (goalId); list: the goals with their progress (status narrows)." lane:"enum=create|update|complete|list"`
	GoalID      *string  `json:"goalId,omitempty" jsonschema:"The goal (gol_…) to update or complete; list gives the ids." lane:"maxLength=100,null=false"`
	Title       *string  `json:"title,omitempty" jsonschema:"The goal in a few words." lane:"minLength=1,maxLength=200,null=false"`
	Kind        *string  `json:"kind,omitempty" jsonschema:"create only. benchmark: a benchmark reaching targetValue (benchmarkId); measurement: a body measure reaching targetValue (measure); consistency: targetValue completed sessions a week; text: free text, no computed progress." lane:"enum=benchmark|measurement|consistency|text,null=false"`
	BenchmarkID *string  `json:"benchmarkId,omitempty" jsonschema:"create only, benchmark goals: the trainee's benchmark (bmk_…)." lane:"maxLength=100,null=false"`
	Measure     *string  `json:"measure,omitempty" jsonschema:"create only, measurement goals: what is measured. weightKg reads the weigh-ins." lane:"enum=weightKg|bodyFatPct|waistCm|hipsCm|chestCm|armCm|thighCm|restingHr,null=false"`
	TargetValue *float64 `json:"targetValue,omitempty" jsonschema:"The target: in the benchmark's unit, the measure's unit, or sessions a week (1 to 14)." lane:"gt=0,max=100000,null=false"`
	Unit        *string  `json:"unit,omitempty" jsonschema:"The target's unit, for display; null removes it on update." lane:"maxLength=20"`
	TargetDate  *string  `json:"targetDate,omitempty" jsonschema:"The day to reach it by; null removes it on update." lane:"format=date" when:"ahead"`
	Status      *string  `json:"status,omitempty" jsonschema:"update: completed, abandoned, or active to reopen; list: only goals with this status." lane:"enum=active|completed|abandoned,null=false"`
	PageQuery
}

type manageGoalsAnswer struct {
	Action string              `json:"action"`
	Goal   *goalAnswer         `json:"goal,omitempty" jsonschema:"The goal created, updated or completed, with its progress."`
	Goals  *ListOf[goalAnswer] `json:"goals,omitempty" jsonschema:"list: the goals, oldest first, each with its progress."`
}

// goalFieldsOf are the fields each action takes besides action itself.
var goalFieldsOf = map[string][]string{
	"create":   {"title", "kind", "benchmarkId", "measure", "targetValue", "unit", "targetDate"},
	"update":   {"goalId", "title", "targetValue", "unit", "targetDate", "status"},
	"complete": {"goalId"},
	"list":     {"status", "limit", "offset"},
}

func (l *Lane) manageGoals(c *Call, in *manageGoalsInput) (manageGoalsAnswer, error) {
	out := manageGoalsAnswer{Action: in.Action}
	takes := goalFieldsOf[in.Action]
	for field := range c.present {
		if field != "action" && !containsString(takes, field) {
			return out, InvalidField(field, fmt.Sprintf("%s does not go with action %s, which takes %s; drop it.", field, in.Action, strings.Join(takes, ", ")))
		}
	}
	needsGoal := in.Action == "update" || in.Action == "complete"
	if needsGoal && in.GoalID == nil {
		return out, InvalidField("goalId", fmt.Sprintf("goalId is required to %s a goal; action list answers the trainee's goals with their ids.", in.Action))
	}
	switch in.Action {
	case "create":
		for _, f := range []struct {
			name, hint string
			given      bool
		}{{"title", "the goal in a few words", in.Title != nil}, {"kind", "benchmark, measurement, consistency or text", in.Kind != nil}} {
			if !f.given {
				return out, InvalidField(f.name, fmt.Sprintf("%s is required to create a goal: %s.", f.name, f.hint))
			}
		}
		g, err := c.newGoal(c.ID(), &goalInput{Title: *in.Title, Kind: *in.Kind, BenchmarkID: in.BenchmarkID, Measure: in.Measure,
			TargetValue: in.TargetValue, Unit: in.Unit, TargetDate: in.TargetDate})
		if err != nil {
			return out, err
		}
		c.status = http.StatusCreated
		out.Goal = &g
	case "update", "complete":
		change := &updateGoalInput{Title: in.Title, TargetValue: in.TargetValue, Unit: in.Unit, TargetDate: in.TargetDate, Status: in.Status}
		if in.Action == "complete" {
			done := domain.GoalCompleted
			change = &updateGoalInput{Status: &done}
		} else if len(c.present) == 2 { // action and goalId: nothing to change
			return out, InvalidField("goalId", "update needs at least one of title, targetValue, unit, targetDate or status to change; to complete the goal use action complete.")
		}
		// The goal must be this trainee's: another's is not found.
		if _, err := Lookup(c.Ctx, ids.Trainee, c.ID(), c.Studio().GetTrainee); err != nil {
			return out, err
		}
		g, err := c.changeGoal(*in.GoalID, c.ID(), change)
		if err != nil {
			return out, err
		}
		c.SetResource(g.ID)
		out.Goal = &g
	case "list":
		q := goalsQuery{PageQuery: in.PageQuery}
		if in.Status != nil {
			q.Status = *in.Status
		}
		list, err := c.traineeGoals(c.ID(), &q)
		if err != nil {
			return out, err
		}
		out.Goals = &list
	}
	return out, nil
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// The training profile, in part.

func (l *Lane) patchTrainingProfile(c *Call, in *trainingProfileInput) (trainingProfileAnswer, error) {
	if len(c.present) == 0 {
		return trainingProfileAnswer{}, InvalidField("equipment", "Send at least one of equipment, availability, sessionMinutes, experience or units; the fields not sent keep their values.")
	}
	return c.saveTrainingProfile(in, true)
}

// Feedback.

type feedbackInput struct {
	Text   string  `json:"text" jsonschema:"What the trainee says about the experience (the coaching, the tools, the app), in their words." lane:"minLength=1,maxLength=2000"`
	Rating *int    `json:"rating,omitempty" jsonschema:"1 (poor) to 5 (excellent), when the trainee gives one." lane:"min=1,max=5,null=false"`
	Topic  *string `json:"topic,omitempty" jsonschema:"What it is about, in a word or two: coaching, tools, plan, app…" lane:"minLength=1,maxLength=50,null=false"`
}

type feedbackQuery struct {
	TraineeID string `json:"traineeId,omitempty" jsonschema:"Only this trainee's feedback." lane:"maxLength=100" ref:"trainee"`
	PageQuery
}

func (l *Lane) logFeedback(c *Call, in *feedbackInput) (domain.Feedback, error) {
	f := domain.Feedback{ID: ids.New(ids.Feedback), TraineeID: c.ID(), Text: strings.TrimSpace(in.Text), Rating: in.Rating, Topic: trimmed(in.Topic),
		Source: c.P.Source, CreatedAt: l.now().UTC()}
	if f.Text == "" {
		return f, InvalidField("text", "text is only spaces; send what the trainee said.")
	}
	if f.Topic != nil && *f.Topic == "" {
		f.Topic = nil
	}
	if f.Source == "" {
		f.Source = domain.SourceAPI
	}
	if _, err := Lookup(c.Ctx, ids.Trainee, c.ID(), c.Studio().GetTrainee); err != nil {
		return f, err
	}
	if err := c.Studio().CreateFeedback(c.Ctx, &f); err != nil {
		return f, err
	}
	c.SetResource(f.ID)
	return f, nil
}

// The plan.

type planAnswer struct {
	Today   string    `json:"today" jsonschema:"The day the answer is about, YYYY-MM-DD (UTC, as plans are)."`
	Current *planTerm `json:"current" jsonschema:"The plan in force today: a live one, else a frozen one whose dates cover today; null when none."`
	Next    *planTerm `json:"next" jsonschema:"The next plan scheduled to start after today; null when none."`
}

type planTerm struct {
	ID        string  `json:"id"`
	Name      string  `json:"name"`
	Status    string  `json:"status" jsonschema:"live, frozen or scheduled."`
	StartedOn string  `json:"startedOn" jsonschema:"Its first day."`
	EndsOn    *string `json:"endsOn" jsonschema:"Its last day (inclusive); null: open-ended, until cancelled."`
	// DaysLeft counts today: 1 on the last day.
	DaysLeft     *int `json:"daysLeft" jsonschema:"The current plan's days left, today included (1 on its last day); null when open-ended or for the next plan."`
	StartsInDays *int `json:"startsInDays,omitempty" jsonschema:"The next plan only: days from today to its first day."`
	SessionsLeft *int `json:"sessionsLeft" jsonschema:"Always null: Perform's plans are by dates and carry no session allowance."`
}

func (l *Lane) traineePlan(c *Call, _ *NoInput) (planAnswer, error) {
	ss := c.Studio()
	out := planAnswer{Today: l.today()}
	if _, err := Lookup(c.Ctx, ids.Trainee, c.ID(), ss.GetTrainee); err != nil {
		return out, err
	}
	subs, err := ss.ListSubscriptions(c.Ctx, c.ID())
	if err != nil {
		return out, err
	}
	var live, frozen, next *domain.Subscription
	for i := range subs { // newest first
		s := &subs[i]
		s.Derive(out.Today)
		switch {
		case s.Status == domain.SubLive && live == nil:
			live = s
		case s.Status == domain.SubFrozen && frozen == nil && s.StartedOn <= out.Today && (s.EndsOn == nil || *s.EndsOn >= out.Today):
			frozen = s
		case s.Status == domain.SubScheduled && (next == nil || s.StartedOn < next.StartedOn):
			next = s
		}
	}
	if live == nil {
		live = frozen
	}
	if live != nil {
		t := termOf(*live)
		if live.EndsOn != nil {
			n := daysBetween(out.Today, *live.EndsOn) + 1
			t.DaysLeft = &n
		}
		out.Current = &t
	}
	if next != nil {
		t := termOf(*next)
		n := daysBetween(out.Today, next.StartedOn)
		t.StartsInDays = &n
		out.Next = &t
	}
	return out, nil
}

func termOf(s domain.Subscription) planTerm {
	return planTerm{ID: s.ID, Name: s.ProductName, Status: s.Status, StartedOn: s.StartedOn, EndsOn: s.EndsOn}
}

// daysBetween is to minus from, both YYYY-MM-DD.
func daysBetween(from, to string) int {
	a, _ := time.Parse(time.DateOnly, from)
	b, _ := time.Parse(time.DateOnly, to)
	return int(b.Sub(a).Hours() / 24)
}

// The forms waiting for an answer.

type pendingFormsQuery struct {
	Limit  int `json:"limit,omitempty" jsonschema:"How many forms to return, 1 to 20; 10 when omitted." lane:"min=1,max=20"`
	Offset int `json:"offset,omitempty" jsonschema:"How many to skip; pass the previous answer's nextOffset." lane:"min=0"`
}

func (q pendingFormsQuery) page() store.Page {
	if q.Limit == 0 {
		q.Limit = 10
	}
	return store.Page{Limit: q.Limit, Offset: q.Offset}
}

type pendingForm struct {
	ID          string             `json:"id" jsonschema:"The form sent (fas_…)."`
	Title       string             `json:"title" jsonschema:"The form's name."`
	Description *string            `json:"description"`
	Prompt      *string            `json:"prompt" jsonschema:"The note the studio sent with it."`
	DueAt       *time.Time         `json:"dueAt"`
	SentAt      time.Time          `json:"sentAt"`
	Fields      []domain.FormField `json:"fields" jsonschema:"The questions to answer: key, label, type (text, number, date, choice, scale 1–10), required, options."`
	Prefilled   json.RawMessage    `json:"prefilled,omitempty" jsonschema:"Answers the studio filled in ahead, by field key."`
}

func (l *Lane) pendingForms(c *Call, q *pendingFormsQuery) (ListOf[pendingForm], error) {
	ss := c.Studio()
	list, err := ss.ListPendingForms(c.Ctx, c.ID(), q.page())
	if err != nil {
		return ListOf[pendingForm]{}, err
	}
	templates := map[string]domain.FormTemplate{}
	rows := store.List[pendingForm]{Items: make([]pendingForm, len(list.Items)), Total: list.Total}
	for i, a := range list.Items {
		tmpl, seen := templates[a.FormTemplateID]
		if !seen {
			if tmpl, err = ss.GetFormTemplate(c.Ctx, a.FormTemplateID); err != nil {
				return ListOf[pendingForm]{}, err
			}
			templates[a.FormTemplateID] = tmpl
		}
		fields := tmpl.Fields
		if fields == nil {
			fields = []domain.FormField{}
		}
		rows.Items[i] = pendingForm{ID: a.ID, Title: a.FormName, Description: tmpl.Description, Prompt: a.Prompt, DueAt: a.DueAt, SentAt: a.CreatedAt,
			Fields: fields, Prefilled: a.FieldValues}
	}
	return PageOf(rows, q.page()), nil
}

// One program.

// programDetailView is one program and where it stands.
type programDetailView struct {
	Program     domain.Program     `json:"program"`
	Description *string            `json:"description" jsonschema:"The template's description."`
	Structure   *structureSummary  `json:"structure" jsonschema:"The phases summarised; null for a program whose template is only a name."`
	Position    *training.Position `json:"position" jsonschema:"Where it stands today (phase, week); null without a structure."`
	ThisWeek    []sessionRow       `json:"thisWeek" jsonschema:"The program's sessions this week (Monday to Sunday, the studio's time zone), oldest first, as summary rows."`
	Counts      map[string]int     `json:"counts" jsonschema:"The program's sessions by status, over its whole length."`
	Today       string             `json:"today"`
}

func (l *Lane) programDetail(c *Call, _ *NoInput) (programDetailView, error) {
	ss := c.Studio()
	out := programDetailView{ThisWeek: []sessionRow{}, Counts: map[string]int{}, Today: c.LocalToday()}
	p, err := Lookup(c.Ctx, ids.Program, c.ID(), ss.GetProgram)
	if err != nil {
		return out, err
	}
	// The lane's trainee policy checks the owner; a trainee's own program
	// is the only one this answers them, whatever reaches the handler.
	if isTraineePrincipal(c.P) && p.TraineeID != c.P.Subject {
		return out, NotFound(ids.Program, c.ID())
	}
	out.Program = p
	tmpl, err := ss.GetProgramTemplate(c.Ctx, p.TemplateID)
	if err != nil {
		return out, err
	}
	out.Description = tmpl.Description
	out.Structure = templateRowOf(tmpl).Structure
	week, pos, counts, err := c.programWeek(ss, p.TraineeID, &p, tmpl.Structure, out.Today)
	if err != nil {
		return out, err
	}
	for _, x := range week {
		if x.ProgramID != nil && *x.ProgramID == p.ID {
			out.ThisWeek = append(out.ThisWeek, x)
		}
	}
	out.Position, out.Counts = pos, counts
	return out, nil
}

// What a trainee's own connection changes about their records.

// sessionSource is who a session planned or logged now comes from.
func (c *Call) sessionSource() string {
	if isTraineePrincipal(c.P) {
		return domain.SessionFromTrainee
	}
	return domain.SessionFromCoach
}

// tellCoachesOfInjury opens a task for each active coach of trainee t about
// the injury they reported themselves, or one studio task when t has no
// active coach. Tasks never reach the trainee; nothing goes to the outbox.
func (c *Call) tellCoachesOfInjury(ss store.StudioStore, t domain.Trainee, inj domain.Injury) error {
	title := fmt.Sprintf("%s reported %s, severity %d", t.FirstName, injuryPhrase(inj), inj.Severity)
	detail := "Onset " + inj.OnsetOn + "; status " + inj.Status + "."
	if len(inj.AffectedExercises) > 0 {
		detail += " Affected exercises: " + strings.Join(inj.AffectedExercises, ", ") + "."
	}
	if inj.Notes != nil {
		detail += " Their note: " + text.Truncate(*inj.Notes, 500)
	}
	var coaches []*string
	for _, id := range t.CoachIDs {
		co, err := ss.GetCoach(c.Ctx, id)
		if err != nil {
			return err
		}
		if co.Active {
			coaches = append(coaches, &co.ID)
		}
	}
	if len(coaches) == 0 {
		coaches = []*string{nil} // the studio's own task: no coach to give it to
	}
	now := c.l.now().UTC()
	for _, coachID := range coaches {
		task := domain.Task{ID: ids.New(ids.Task), Title: title, ClientID: &t.ID, Detail: &detail, Priority: inj.Severity, CoachID: coachID,
			Status: domain.TaskOpen, Source: c.P.Source, CreatedAt: now, UpdatedAt: now}
		if err := ss.CreateTask(c.Ctx, &task); err != nil {
			return err
		}
	}
	return nil
}

// injuryPhrase is "a left knee injury", "an ankle injury", "a hip injury on both sides".
func injuryPhrase(inj domain.Injury) string {
	what := strings.ReplaceAll(inj.Area, "_", " ")
	if inj.Side == "left" || inj.Side == "right" {
		what = inj.Side + " " + what
	}
	article := "a"
	if strings.ContainsRune("aeiou", rune(what[0])) {
		article = "an"
	}
	phrase := article + " " + what + " injury"
	if inj.Side == "both" {
		phrase += " on both sides"
	}
	return phrase
}
