package roster

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/otherwise/perform/internal/answers"
	"github.com/otherwise/perform/internal/areas/sessions"
	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/training"
)

type assignProgramInput struct {
	TemplateID      string  `json:"templateId" jsonschema:"The program template: its id from list_program_templates, or its name." lane:"minLength=1,maxLength=100" ref:"template"`
	StartsOn        *string `json:"startsOn,omitempty" jsonschema:"First day of the program; today when omitted." lane:"format=date" when:"start"`
	Notify          *bool   `json:"notify,omitempty" jsonschema:"true tells the trainee; anything else is silent."`
	ReplaceExisting *bool   `json:"replaceExisting,omitempty" jsonschema:"true marks the trainee's current programs replaced; false or omitted keeps them beside the new one."`
}

type assignFormInput struct {
	FormTemplateID string                     `json:"formTemplateId" jsonschema:"The form to send: its id from list_forms, or its name." lane:"minLength=1,maxLength=100" ref:"form"`
	DueAt          *time.Time                 `json:"dueAt,omitempty" jsonschema:"When the answers are due." when:"ahead"`
	Prompt         *string                    `json:"prompt,omitempty" jsonschema:"A note shown with the form." lane:"maxLength=500"`
	Notify         *bool                      `json:"notify,omitempty" jsonschema:"true announces the form now; false never; omitted lets the periodic announcer tell the trainee once within the hour."`
	FieldValues    map[string]json.RawMessage `json:"fieldValues,omitempty" jsonschema:"Answers filled in ahead, by field key; each must fit its field's type (text: a string; number: a number; date: YYYY-MM-DD; choice: one of the options; scale: a whole number from 1 to 10)."`
}

type formResponseInput struct {
	FormTemplateID *string                    `json:"formTemplateId,omitempty" jsonschema:"The form answered (its id from list_forms, or its name); taken from the assignment when assignmentId is given." lane:"maxLength=100" ref:"form"`
	AssignmentID   *string                    `json:"assignmentId,omitempty" jsonschema:"The form assignment this answers, if any." lane:"maxLength=100"`
	Answers        map[string]json.RawMessage `json:"answers" jsonschema:"The answers by field key; each must fit its field's type (text: a string; number: a number; date: YYYY-MM-DD; choice: one of the options; scale: a whole number from 1 to 10)."`
	SubmittedAt    *time.Time                 `json:"submittedAt,omitempty" jsonschema:"When it was submitted; now when omitted." when:"happened"`
}

type messageInput struct {
	Text string `json:"text" jsonschema:"The message to the trainee." lane:"minLength=1,maxLength=4000"`
}

type queued struct {
	NotificationID string `json:"notificationId"`
	TraineeID      string `json:"traineeId"`
	Kind           string `json:"kind"`
}

func (a *Area) traineeRecordRoutes(rs *lane.Routes) {
	lane.Add(rs, "GET", "/trainees/{id}/programs", "A trainee's programs.", func(c *lane.Call, _ *lane.NoInput) (lane.ListOf[domain.Program], error) {
		ss := c.Studio()
		if _, err := lane.Lookup(c.Ctx, ids.Trainee, c.ID(), ss.GetTrainee); err != nil {
			return lane.ListOf[domain.Program]{}, err
		}
		progs, err := ss.ListPrograms(c.Ctx, c.ID())
		return lane.PageSlice(progs, store.Page{Limit: max(len(progs), 1)}), err
	}, lane.Tool("list_trainee_programs"), lane.Trainee(auth.ScopeTrainingRead), lane.TraineeTool("list_programs"),
		lane.Allow("items.id", "items.name", "items.status", "items.startsOn", "total", "nextOffset"))
	lane.Add(rs, "POST", "/trainees/{id}/programs/assign", "Assign a program from a template. A template with a structure lays its sessions out as planned sessions from startsOn (each day on its weekday, else the trainee's availability, else Monday/Wednesday/Friday…; days before startsOn in its first week are left out); replaceExisting also removes the replaced programs' planned sessions from today on.", a.assignProgram, lane.Tool("assign_program"), lane.Created())
	lane.Add(rs, "GET", "/trainees/{id}/programs/active", "The trainee's active program: where it stands today (phase, week), this week's sessions with their status, and the whole program's sessions counted by status.", a.activeProgram, lane.Trainee(auth.ScopeTrainingRead),
		lane.TraineeTool("get_active_program"),
		lane.Allow("today", "program.id", "program.name", "program.status", "program.startsOn", "position", "thisWeek", "counts"))

	lane.Add(rs, "GET", "/trainees/{id}/form-responses", "A trainee's form responses, newest first.", func(c *lane.Call, q *lane.PageQuery) (lane.ListOf[domain.FormResponse], error) {
		ss := c.Studio()
		if _, err := lane.Lookup(c.Ctx, ids.Trainee, c.ID(), ss.GetTrainee); err != nil {
			return lane.ListOf[domain.FormResponse]{}, err
		}
		res, err := ss.ListFormResponses(c.Ctx, c.ID(), q.Page())
		return lane.PageOf(res, q.Page()), err
	}, lane.Tool("list_trainee_form_responses"), lane.Trainee(auth.ScopeProfileRead),
		lane.Allow("items.id", "items.formName", "items.submittedAt", "items.answers", "total", "nextOffset"))
	lane.Add(rs, "POST", "/trainees/{id}/forms/assign", "Send a form to a trainee.", a.assignForm, lane.Tool("send_form"), lane.Created())
	lane.Add(rs, "POST", "/trainees/{id}/form-responses", "Record a trainee's answers to a form.", a.recordFormResponse, lane.Admin(), lane.Created(),
		lane.Trainee(auth.ScopeTrainingWrite), lane.TraineeTool("answer_form"),
		lane.Allow("id", "formName", "assignmentId", "submittedAt", "answers"))

	lane.Add(rs, "POST", "/trainees/{id}/messages", "Send a message to the trainee's phone.", func(c *lane.Call, in *messageInput) (queued, error) {
		return queueForTrainee(c, domain.NotifyMessage, map[string]any{"text": strings.TrimSpace(in.Text)})
	}, lane.Admin(), lane.Created())
	lane.Add(rs, "POST", "/trainees/{id}/whatsapp-invite", "Send the trainee the WhatsApp invite.", func(c *lane.Call, _ *lane.NoInput) (queued, error) {
		return queueForTrainee(c, domain.NotifyWhatsAppInvite, nil)
	}, lane.Admin(), lane.Created())
}

func (a *Area) assignProgram(c *lane.Call, in *assignProgramInput) (answers.AssignedProgram, error) {
	var out answers.AssignedProgram
	err := c.InTx(func(ss store.StudioStore) error {
		t, err := lane.Lookup(c.Ctx, ids.Trainee, c.ID(), ss.GetTrainee)
		if err != nil {
			return err
		}
		tmpl, err := lane.Lookup(c.Ctx, ids.ProgramTemplate, in.TemplateID, ss.GetProgramTemplate)
		if err != nil {
			return err
		}
		if lane.IsTrue(in.ReplaceExisting) {
			progs, err := ss.ListPrograms(c.Ctx, t.ID)
			if err != nil {
				return err
			}
			for _, p := range progs {
				if p.Status != domain.ProgramActive {
					continue
				}
				n, err := ss.DeletePlannedSessions(c.Ctx, p.ID, c.LocalToday())
				if err != nil {
					return err
				}
				out.SessionsRemoved += n
			}
			if err := ss.ReplaceActivePrograms(c.Ctx, t.ID); err != nil {
				return err
			}
		}
		out.Program = domain.Program{
			ID:         ids.New(ids.Program),
			TraineeID:  t.ID,
			TemplateID: tmpl.ID,
			Name:       tmpl.Name,
			StartsOn:   c.LocalToday(),
			Status:     domain.ProgramActive,
			CreatedAt:  c.Now().UTC(),
		}
		if in.StartsOn != nil {
			out.StartsOn = *in.StartsOn
		}
		if err := ss.CreateProgram(c.Ctx, &out.Program); err != nil {
			return err
		}
		if err := layOut(c, ss, &out, tmpl); err != nil {
			return err
		}
		if lane.IsTrue(in.Notify) {
			return c.Notify(ss, t.ID, domain.NotifyProgramAssigned, map[string]any{"programId": out.ID, "templateId": tmpl.ID})
		}
		return nil
	})
	return out, err
}

// layOut writes the planned sessions of a program whose template has a
// structure.
func layOut(c *lane.Call, ss store.StudioStore, out *answers.AssignedProgram, tmpl domain.ProgramTemplate) error {
	if tmpl.Structure == nil {
		return nil
	}
	// The training profile's weekly availability, when the trainee has one.
	profile, err := ss.GetTrainingProfile(c.Ctx, out.TraineeID)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	days, err := training.Layout(*tmpl.Structure, out.StartsOn, profile.Availability, c.FirstDay())
	if err != nil {
		return err
	}
	now := c.Now().UTC()
	sessions := make([]*domain.Session, len(days))
	for i, d := range days {
		exs := make([]domain.SessionExercise, len(d.Day.Exercises))
		for j, e := range d.Day.Exercises {
			tg := e.Target
			exs[j] = domain.SessionExercise{ExerciseID: e.ExerciseID, Name: e.Name, Target: &tg, Sets: []domain.SetEntry{}, Notes: e.Notes}
		}
		programID := out.ID
		sessions[i] = &domain.Session{
			ID: ids.New(ids.Session), TraineeID: out.TraineeID, ProgramID: &programID, Date: d.Date, Sport: d.Day.Sport, Title: d.Day.Title,
			Status: domain.SessionPlanned, Source: domain.SessionFromProgram, DurationMin: d.Day.DurationMin, Exercises: exs, CreatedAt: now, UpdatedAt: now,
		}
	}
	if err := ss.CreateSessions(c.Ctx, sessions); err != nil {
		return err
	}
	out.SessionsPlanned = len(days)
	if len(days) > 0 {
		out.FirstSessionOn, out.LastSessionOn = &days[0].Date, &days[len(days)-1].Date
	}
	return nil
}

// activeProgramView is where a trainee's active program stands.
type activeProgramView struct {
	// Program is null when the trainee has no active program.
	Program *domain.Program `json:"program"`
	// Position is null for a program whose template has no structure.
	Position *training.Position `json:"position"`
	// ThisWeek is every session of the trainee this week (the studio's
	// week, in its time zone), oldest first, as summary rows.
	ThisWeek []sessions.SessionRow `json:"thisWeek"`
	// Counts are the program's sessions by status, over its whole length.
	Counts map[string]int `json:"counts"`
	Today  string         `json:"today"`
}

// maxProgramSessions bounds the sessions an active program's counts read
// (a structure has at most maxProgramWeeks × 7).
const maxProgramSessions = 1000

func (a *Area) activeProgram(c *lane.Call, _ *lane.NoInput) (activeProgramView, error) {
	ss := c.Studio()
	out := activeProgramView{ThisWeek: []sessions.SessionRow{}, Counts: map[string]int{}, Today: c.LocalToday()}
	if _, err := lane.Lookup(c.Ctx, ids.Trainee, c.ID(), ss.GetTrainee); err != nil {
		return out, err
	}
	program, structure, err := activeProgramOf(c, ss, c.ID(), out.Today)
	if err != nil {
		return out, err
	}
	out.Program = program
	out.ThisWeek, out.Position, out.Counts, err = programWeek(c, ss, c.ID(), program, structure, out.Today)
	return out, err
}

// programWeek is the trainee's sessions this week (the studio's week
// around today) as summary rows, and, for program (nil: none), its position today
// (nil without a structure) and its sessions counted by status.
func programWeek(c *lane.Call, ss store.StudioStore, traineeID string, program *domain.Program, structure *domain.ProgramStructure, today string) ([]sessions.SessionRow, *training.Position, map[string]int, error) {
	rows, counts := []sessions.SessionRow{}, map[string]int{}
	day, _ := time.Parse(time.DateOnly, today)
	first := training.StartOfWeek(day, c.FirstDay())
	weekStart, weekEnd := first.Format(time.DateOnly), first.AddDate(0, 0, 6).Format(time.DateOnly)
	week, err := ss.ListSessions(c.Ctx, store.SessionFilter{TraineeID: traineeID, From: weekStart, To: weekEnd, Ascending: true, Page: store.Page{Limit: 200}})
	if err != nil {
		return rows, nil, counts, err
	}
	for _, x := range week.Items {
		rows = append(rows, sessions.RowOf(x))
	}
	if program == nil {
		return rows, nil, counts, nil
	}
	var position *training.Position
	to := ""
	if structure != nil {
		pos, err := training.ProgramPosition(*structure, program.StartsOn, today, c.FirstDay())
		if err != nil {
			return rows, nil, counts, err
		}
		position, to = &pos, pos.EndsOn
	}
	all, err := ss.ListSessions(c.Ctx, store.SessionFilter{TraineeID: traineeID, From: program.StartsOn, To: to, Page: store.Page{Limit: maxProgramSessions}})
	if err != nil {
		return rows, position, counts, err
	}
	for _, x := range all.Items {
		if x.ProgramID != nil && *x.ProgramID == program.ID {
			counts[x.Status]++
		}
	}
	return rows, position, counts, nil
}

func (a *Area) assignForm(c *lane.Call, in *assignFormInput) (domain.FormAssignment, error) {
	var out domain.FormAssignment
	err := c.InTx(func(ss store.StudioStore) error {
		t, err := lane.Lookup(c.Ctx, ids.Trainee, c.ID(), ss.GetTrainee)
		if err != nil {
			return err
		}
		form, err := lane.Lookup(c.Ctx, ids.FormTemplate, in.FormTemplateID, ss.GetFormTemplate)
		if err != nil {
			return err
		}
		if e := checkFieldValues("fieldValues", form, in.FieldValues); e != nil {
			return e
		}
		now := c.Now().UTC()
		out = domain.FormAssignment{
			ID:             ids.New(ids.FormAssignment),
			TraineeID:      t.ID,
			FormTemplateID: form.ID,
			FormName:       form.Name,
			DueAt:          utcPtr(in.DueAt),
			Prompt:         in.Prompt,
			Notify:         in.Notify,
			Status:         "pending",
			CreatedAt:      now,
		}
		if len(in.FieldValues) > 0 {
			if out.FieldValues, err = json.Marshal(in.FieldValues); err != nil {
				return err
			}
		}
		if lane.IsTrue(in.Notify) {
			out.AnnouncedAt = &now
		}
		if err := ss.CreateFormAssignment(c.Ctx, &out); err != nil {
			return err
		}
		// notify true announces now; false never; omitted is left to the
		// periodic FormAnnouncer.
		if lane.IsTrue(in.Notify) {
			return c.Notify(ss, t.ID, domain.NotifyFormAssigned, map[string]any{"assignmentId": out.ID, "formTemplateId": form.ID})
		}
		return nil
	})
	return out, err
}

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

func (a *Area) recordFormResponse(c *lane.Call, in *formResponseInput) (domain.FormResponse, error) {
	var out domain.FormResponse
	err := c.InTx(func(ss store.StudioStore) error {
		t, err := lane.Lookup(c.Ctx, ids.Trainee, c.ID(), ss.GetTrainee)
		if err != nil {
			return err
		}
		if in.AssignmentID == nil && c.P.IsTrainee() {
			return lane.InvalidField("assignmentId", "assignmentId is required: answer a form sent to you, its id from list_my_forms.")
		}
		formID := ""
		if in.FormTemplateID != nil {
			formID = *in.FormTemplateID
		}
		if in.AssignmentID != nil {
			a, err := lane.Lookup(c.Ctx, ids.FormAssignment, *in.AssignmentID, ss.GetFormAssignment)
			if err != nil {
				return err
			}
			if a.TraineeID != t.ID {
				return lane.NotFound(ids.FormAssignment, a.ID)
			}
			if formID != "" && formID != a.FormTemplateID {
				return lane.InvalidField("formTemplateId", fmt.Sprintf("formTemplateId %s does not match assignment %s, which is form %s; omit formTemplateId or send that one.", formID, a.ID, a.FormTemplateID))
			}
			formID = a.FormTemplateID
		}
		if formID == "" {
			return lane.InvalidField("formTemplateId", "formTemplateId is required when there is no assignmentId; get one from list_forms.")
		}
		form, err := lane.Lookup(c.Ctx, ids.FormTemplate, formID, ss.GetFormTemplate)
		if err != nil {
			return err
		}
		if e := checkFieldValues("answers", form, in.Answers); e != nil {
			return e
		}
		answers, err := json.Marshal(in.Answers)
		if err != nil {
			return err
		}
		out = domain.FormResponse{
			ID:             ids.New(ids.FormResponse),
			TraineeID:      t.ID,
			FormTemplateID: form.ID,
			FormName:       form.Name,
			AssignmentID:   in.AssignmentID,
			Answers:        answers,
			SubmittedAt:    c.Now().UTC(),
			LoggedBy:       c.Author(),
		}
		if in.SubmittedAt != nil {
			out.SubmittedAt = in.SubmittedAt.UTC()
		}
		return ss.CreateFormResponse(c.Ctx, &out)
	})
	return out, err
}

// queueForTrainee writes the outbox row that is the whole point of the
// request (a message, an invite).
func queueForTrainee(c *lane.Call, kind string, payload map[string]any) (queued, error) {
	var out queued
	err := c.InTx(func(ss store.StudioStore) error {
		t, err := lane.Lookup(c.Ctx, ids.Trainee, c.ID(), ss.GetTrainee)
		if err != nil {
			return err
		}
		n := &domain.Notification{ID: ids.New(ids.Notification), TraineeID: t.ID, Kind: kind, Source: c.P.Source, CreatedAt: c.Now().UTC()}
		if payload != nil {
			if n.Payload, err = json.Marshal(payload); err != nil {
				return err
			}
		}
		out = queued{NotificationID: n.ID, TraineeID: t.ID, Kind: kind}
		return ss.AddNotification(c.Ctx, n)
	})
	return out, err
}
