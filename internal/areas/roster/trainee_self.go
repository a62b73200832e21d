package roster

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/otherwise/perform/internal/areas/catalog"
	"github.com/otherwise/perform/internal/areas/sessions"
	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/training"
)

// The routes a trainee's own connection calls about themselves (the
// trainee tools, internal/tools): their word on the experience, their plan, the
// forms waiting for them and one of their programs. Studio keys call them
// too, for any trainee of the studio.

func (a *Area) traineeSelfRoutes(rs *lane.Routes) {
	lane.Add(rs, "POST", "/trainees/{id}/feedback", "Record a trainee's feedback on the experience (the coaching, the tools, the app), with an optional rating 1–5; the studio reads it (GET /feedback). Nothing is sent to anyone.", a.logFeedback, lane.Created(),
		lane.Trainee(auth.ScopeTrainingWrite), lane.TraineeTool("log_feedback"),
		lane.Allow("id", "text", "rating", "topic"))
	lane.Add(rs, "GET", "/feedback", "What trainees said about the experience, newest first.", func(c *lane.Call, q *feedbackQuery) (lane.ListOf[domain.Feedback], error) {
		list, err := c.Studio().ListFeedback(c.Ctx, q.TraineeID, q.Page())
		return lane.PageOf(list, q.Page()), err
	})
	lane.Add(rs, "GET", "/trainees/{id}/plan", "A trainee's plan today: its name, since when and until when, days left, and the next plan scheduled after it.", a.traineePlan,
		lane.Trainee(auth.ScopeProfileRead), lane.TraineeTool("get_my_plan"),
		lane.Allow("today", "current", "next"))
	lane.Add(rs, "GET", "/trainees/{id}/forms", "The forms sent to a trainee still waiting for an answer, soonest due first: title, prompt, due and sent dates, and the fields to answer.", a.pendingForms,
		lane.Trainee(auth.ScopeProfileRead), lane.TraineeTool("list_my_forms"),
		lane.Allow("items.id", "items.title", "items.description", "items.prompt", "items.dueAt", "items.sentAt", "items.fields", "items.prefilled", "total", "nextOffset"))
	lane.Add(rs, "GET", "/programs/{id}", "One program of a trainee: its structure summarised, where it stands today (phase, week), its sessions this week and its sessions counted by status.", a.programDetail,
		lane.Trainee(auth.ScopeTrainingRead),
		lane.Allow("program.id", "program.name", "program.startsOn", "program.status", "description", "structure", "position", "thisWeek", "counts", "today"))
}

type feedbackInput struct {
	Text   string  `json:"text" jsonschema:"What the trainee says about the experience (the coaching, the tools, the app), in their words." lane:"minLength=1,maxLength=2000"`
	Rating *int    `json:"rating,omitempty" jsonschema:"1 (poor) to 5 (excellent), when the trainee gives one." lane:"min=1,max=5,null=false"`
	Topic  *string `json:"topic,omitempty" jsonschema:"What it is about, in a word or two: coaching, tools, plan, app…" lane:"minLength=1,maxLength=50,null=false"`
}

type feedbackQuery struct {
	TraineeID string `json:"traineeId,omitempty" jsonschema:"Only this trainee's feedback." lane:"maxLength=100" ref:"trainee"`
	lane.PageQuery
}

func (a *Area) logFeedback(c *lane.Call, in *feedbackInput) (domain.Feedback, error) {
	f := domain.Feedback{ID: ids.New(ids.Feedback), TraineeID: c.ID(), Text: strings.TrimSpace(in.Text), Rating: in.Rating, Topic: lane.Trimmed(in.Topic),
		Source: c.P.Source, CreatedAt: c.Now().UTC()}
	if f.Text == "" {
		return f, lane.InvalidField("text", "text is only spaces; send what the trainee said.")
	}
	if f.Topic != nil && *f.Topic == "" {
		f.Topic = nil
	}
	if f.Source == "" {
		f.Source = domain.SourceAPI
	}
	if _, err := lane.Lookup(c.Ctx, ids.Trainee, c.ID(), c.Studio().GetTrainee); err != nil {
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

func (a *Area) traineePlan(c *lane.Call, _ *lane.NoInput) (planAnswer, error) {
	ss := c.Studio()
	out := planAnswer{Today: c.Today()}
	if _, err := lane.Lookup(c.Ctx, ids.Trainee, c.ID(), ss.GetTrainee); err != nil {
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

func (a *Area) pendingForms(c *lane.Call, q *pendingFormsQuery) (lane.ListOf[pendingForm], error) {
	ss := c.Studio()
	list, err := ss.ListPendingForms(c.Ctx, c.ID(), q.page())
	if err != nil {
		return lane.ListOf[pendingForm]{}, err
	}
	templates := map[string]domain.FormTemplate{}
	rows := store.List[pendingForm]{Items: make([]pendingForm, len(list.Items)), Total: list.Total}
	for i, a := range list.Items {
		tmpl, seen := templates[a.FormTemplateID]
		if !seen {
			if tmpl, err = ss.GetFormTemplate(c.Ctx, a.FormTemplateID); err != nil {
				return lane.ListOf[pendingForm]{}, err
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
	return lane.PageOf(rows, q.page()), nil
}

// One program.

// programDetailView is one program and where it stands.
type programDetailView struct {
	Program     domain.Program            `json:"program"`
	Description *string                   `json:"description" jsonschema:"The template's description."`
	Structure   *catalog.StructureSummary `json:"structure" jsonschema:"The phases summarised; null for a program whose template is only a name."`
	Position    *training.Position        `json:"position" jsonschema:"Where it stands today (phase, week); null without a structure."`
	ThisWeek    []sessions.SessionRow     `json:"thisWeek" jsonschema:"The program's sessions this week (the studio's week, from its first day, in its time zone), oldest first, as summary rows."`
	Counts      map[string]int            `json:"counts" jsonschema:"The program's sessions by status, over its whole length."`
	Today       string                    `json:"today"`
}

func (a *Area) programDetail(c *lane.Call, _ *lane.NoInput) (programDetailView, error) {
	ss := c.Studio()
	out := programDetailView{ThisWeek: []sessions.SessionRow{}, Counts: map[string]int{}, Today: c.LocalToday()}
	p, err := lane.Lookup(c.Ctx, ids.Program, c.ID(), ss.GetProgram)
	if err != nil {
		return out, err
	}
	// The lane's trainee policy checks the owner; a trainee's own program
	// is the only one this answers them, whatever reaches the handler.
	if c.P.IsTrainee() && p.TraineeID != c.P.Subject {
		return out, lane.NotFound(ids.Program, c.ID())
	}
	out.Program = p
	tmpl, err := ss.GetProgramTemplate(c.Ctx, p.TemplateID)
	if err != nil {
		return out, err
	}
	out.Description = tmpl.Description
	out.Structure = catalog.TemplateRowOf(tmpl).Structure
	week, pos, counts, err := programWeek(c, ss, p.TraineeID, &p, tmpl.Structure, out.Today)
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
