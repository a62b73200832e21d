package studio

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/otherwise/perform/internal/areas/roster"
	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/phone"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/text"
)

type studioInfo struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Slug   string `json:"slug"`
	Region string `json:"region"`
	Tier   string `json:"tier"`
	// TimeZone is the zone of the studio's local days (PATCH /studio/settings).
	TimeZone string `json:"timeZone"`
	// What the credential is and may do.
	Credential string   `json:"credential"`
	Scopes     []string `json:"scopes"`
	// Caller says who is asking, in a sentence a model can repeat.
	Caller  string `json:"caller"`
	CoachID string `json:"coachId,omitempty"`
}

// callerOf says who the credential speaks for: a coach's own sign-in names
// her (coach filters default to her), a studio key the whole studio.
func callerOf(c *lane.Call) (string, error) {
	id := c.Coach()
	if id == "" {
		return "A studio key: it speaks for the whole studio, no one coach.", nil
	}
	coach, err := c.Studio().GetCoach(c.Ctx, id)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("Coach %s (%s): coach filters default to her own trainees and tasks; coachId all asks about the whole studio.", coach.Name, id), nil
}

// keyScopesInput changes a key's scopes; auth.ScopeChange checks it.
type keyScopesInput struct {
	Add    []string `json:"add,omitempty" jsonschema:"Scopes the key gains: studio:read, studio:write, studio:admin or billing." lane:"maxItems=4"`
	Remove []string `json:"remove,omitempty" jsonschema:"Scopes the key loses; it keeps at least one." lane:"maxItems=4"`
	Scopes []string `json:"scopes,omitempty" jsonschema:"The key's whole new list of scopes, in place of add and remove." lane:"maxItems=4"`
}

type createKeyInput struct {
	Name   string   `json:"name" jsonschema:"What the key is for, e.g. the integration's name." lane:"minLength=1,maxLength=200"`
	Scopes []string `json:"scopes,omitempty" jsonschema:"What the key may do: any of studio:read, studio:write, studio:admin, billing. When omitted the key gets all four." lane:"maxItems=4"`
	Kind   string   `json:"kind,omitempty" jsonschema:"studio (default): for the studio's own integrations; platform: for an agent platform answering the studio's customers, which reads only the studio's public offer and takes no scopes." lane:"enum=studio|platform"`
}

// createdKey is the one answer that carries a key in clear.
type createdKey struct {
	domain.APIKey
	Key string `json:"key"`
}

type coachInput struct {
	Name   string  `json:"name" jsonschema:"The coach's name." lane:"minLength=1,maxLength=200"`
	Phone  *string `json:"phone,omitempty" jsonschema:"Mobile phone; the WhatsApp assistant recognises the coach by it." lane:"maxLength=40"`
	Email  *string `json:"email,omitempty" jsonschema:"Email address." lane:"format=email,maxLength=200"`
	Gender *string `json:"gender,omitempty" jsonschema:"Gender: the pages the coach reads use its word for a coach." lane:"enum=female|male|other"`
	Active *bool   `json:"active,omitempty" jsonschema:"Whether the coach is active; true when omitted."`
}

type updateCoachInput struct {
	Name   *string `json:"name,omitempty" jsonschema:"The coach's name." lane:"minLength=1,maxLength=200,null=false"`
	Phone  *string `json:"phone,omitempty" jsonschema:"Mobile phone; null removes it." lane:"maxLength=40"`
	Email  *string `json:"email,omitempty" jsonschema:"Email address; null removes it." lane:"format=email,maxLength=200"`
	Gender *string `json:"gender,omitempty" jsonschema:"Gender; null removes it." lane:"enum=female|male|other"`
	Active *bool   `json:"active,omitempty" jsonschema:"Whether the coach is active." lane:"null=false"`
}

type tagInput struct {
	Name string `json:"name" jsonschema:"The tag's name." lane:"minLength=1,maxLength=50"`
}

// Tasks: priority is 0 (none, the default) to 5 (most urgent).
type createTaskInput struct {
	Title    string     `json:"title" jsonschema:"What the coach should do." lane:"minLength=1,maxLength=200"`
	ClientID *string    `json:"clientId,omitempty" jsonschema:"The trainee it concerns: an id from search_trainees, or the trainee's name." lane:"maxLength=100" ref:"trainee"`
	Detail   *string    `json:"detail,omitempty" jsonschema:"More detail." lane:"maxLength=2000"`
	DueAt    *time.Time `json:"dueAt,omitempty" jsonschema:"When it is due." when:"ahead"`
	Priority *int       `json:"priority,omitempty" jsonschema:"0 (none, the default) to 5 (most urgent)." lane:"min=0,max=5"`
	CoachID  *string    `json:"coachId,omitempty" jsonschema:"The coach who should do it (an id from list_coaches, or a name); the signed-in coach when omitted, else nobody in particular." lane:"maxLength=100" ref:"coach"`
}

// groupTaskInput is a task about each trainee of a group.
type groupTaskInput struct {
	roster.Group
	Title    string     `json:"title" jsonschema:"What the coach should do about each." lane:"minLength=1,maxLength=200"`
	Detail   *string    `json:"detail,omitempty" jsonschema:"More detail." lane:"maxLength=2000"`
	DueAt    *time.Time `json:"dueAt,omitempty" jsonschema:"When it is due." when:"ahead"`
	Priority *int       `json:"priority,omitempty" jsonschema:"0 (none, the default) to 5 (most urgent)." lane:"min=0,max=5"`
	CoachID  *string    `json:"coachId,omitempty" jsonschema:"The coach who should do it (an id from list_coaches, or a name); the signed-in coach when omitted." lane:"maxLength=100" ref:"coach"`
}

type updateTaskInput struct {
	Status      *string    `json:"status,omitempty" jsonschema:"open, done or snoozed; snoozed needs snoozeUntil, sent now or already on the task." lane:"enum=open|done|snoozed,null=false"`
	SnoozeUntil *time.Time `json:"snoozeUntil,omitempty" jsonschema:"Until when the task sleeps; sending it alone snoozes the task." when:"ahead"`
	Priority    *int       `json:"priority,omitempty" jsonschema:"0 (none) to 5 (most urgent)." lane:"min=0,max=5,null=false"`
}

type tasksQuery struct {
	Status   string `json:"status,omitempty" jsonschema:"Only tasks with this status." lane:"enum=open|done|snoozed"`
	ClientID string `json:"clientId,omitempty" jsonschema:"Only tasks about this trainee: an id from search_trainees, or a name." lane:"maxLength=100" ref:"trainee"`
	CoachID  string `json:"coachId,omitempty" jsonschema:"Whose tasks: a coach id from list_coaches, me or all; left out, yours when a coach signed in, else all." lane:"maxLength=100" ref:"coachScope"`
	lane.PageQuery
}

func (a *Area) studioRoutes(rs *lane.Routes) {
	lane.Add(rs, "GET", "/studio/settings", "The studio's settings: its time zone, the first day of its week, whether its trainees may use the WhatsApp assistant, the WhatsApp template of the coaches' morning digest, its currency, its language, the weekly plan's senior age and its model budget.", func(c *lane.Call, _ *lane.NoInput) (studioSettings, error) {
		st, err := c.DB().StudioByID(c.Ctx, c.P.StudioID)
		return a.withBudget(settingsOf(st), st), err
	}, lane.Admin())
	lane.Add(rs, "PATCH", "/studio/settings", "Change the studio's settings given: its time zone (the zone its local days, session dates, check-in days and weeks are in), the first day of its week (weekStartsOn), whether its trainees may use the WhatsApp assistant, the approved WhatsApp template of the coaches' morning digest, its currency (new plans' default), its language (he or en: what Perform writes for it), the age from which the weekly plan's senior rules apply, and its model budget below the operator's ceilings.", a.updateStudioSettings, lane.Admin())
	lane.Add(rs, "GET", "/validate", "Check the credential: the studio it belongs to, and who is asking.", func(c *lane.Call, _ *lane.NoInput) (studioInfo, error) {
		info := studioInfo{ID: c.P.StudioID, Name: c.P.StudioName, Slug: c.P.StudioSlug, Region: c.P.Region, Tier: c.P.Tier, TimeZone: c.Zone().String(),
			Credential: string(c.P.Kind), Scopes: c.P.Scopes, CoachID: c.Coach()}
		if !c.P.IsTrainee() {
			caller, err := callerOf(c)
			if err != nil {
				return studioInfo{}, err
			}
			info.Caller = caller
		}
		return info, nil
	}, lane.AnyScope(), lane.Allow("id", "name", "slug", "region", "tier", "timeZone", "credential", "scopes"))

	lane.Add(rs, "GET", "/rpc/coaches", "The studio's coaches.", func(c *lane.Call, q *lane.PageQuery) (lane.ListOf[domain.Coach], error) {
		res, err := c.Studio().ListCoaches(c.Ctx, q.Page())
		return lane.PageOf(res, q.Page()), err
	}, lane.Tool("list_coaches"))
	lane.Add(rs, "POST", "/coaches", "Add a coach.", a.createCoach, lane.Admin(), lane.Created())
	lane.Add(rs, "PATCH", "/coaches/{id}", "Change a coach.", a.updateCoach, lane.Admin())

	lane.Add(rs, "GET", "/rpc/tags", "The studio's tags.", func(c *lane.Call, q *lane.PageQuery) (lane.ListOf[domain.Tag], error) {
		res, err := c.Studio().ListTags(c.Ctx, q.Page())
		return lane.PageOf(res, q.Page()), err
	}, lane.Tool("list_tags"))
	lane.Add(rs, "POST", "/tags", "Create a tag.", func(c *lane.Call, in *tagInput) (domain.Tag, error) {
		t := domain.Tag{ID: ids.New(ids.Tag), Name: strings.TrimSpace(in.Name), CreatedAt: c.Now().UTC()}
		if err := c.Studio().CreateTag(c.Ctx, &t); err != nil {
			return t, err
		}
		c.SetResource(t.ID)
		return t, nil
	}, lane.Admin(), lane.Created())
	lane.Add(rs, "DELETE", "/tags/{id}", "Delete a tag (trainees lose it).", func(c *lane.Call, _ *lane.NoInput) (lane.Deleted, error) {
		if !ids.Is(c.ID(), ids.Tag) {
			return lane.Deleted{}, lane.NotFound(ids.Tag, c.ID())
		}
		if err := c.Studio().DeleteTag(c.Ctx, c.ID()); err != nil {
			return lane.Deleted{}, err
		}
		return lane.Deleted{ID: c.ID(), Deleted: true}, nil
	}, lane.Admin())

	lane.Add(rs, "GET", "/tasks", "The coaches' tasks, with filters and paging.", func(c *lane.Call, q *tasksQuery) (lane.ListOf[domain.Task], error) {
		f := store.TaskFilter{Status: q.Status, ClientID: q.ClientID, CoachID: q.CoachID, Page: q.Page()}
		res, err := c.Studio().ListTasks(c.Ctx, f)
		return lane.PageOf(res, f.Page), err
	}, lane.Tool("list_tasks"))
	lane.Add(rs, "POST", "/tasks", "Create a task for a coach; it never reaches the trainee.", a.createTask, lane.Tool("create_task"), lane.Created())
	lane.Add(rs, "POST", "/groups/tasks", "Create one task about each trainee of a tag or a list (up to 200): each one's create_task, idempotent, audited and dry-runnable on its own; the answer says per trainee what was done or why not.",
		func(c *lane.Call, in *groupTaskInput) (lane.GroupAnswer, error) {
			return roster.ForGroup(c, in.Group, "POST", "/tasks", func(trainee string) any {
				return createTaskInput{Title: in.Title, ClientID: &trainee, Detail: in.Detail, DueAt: in.DueAt, Priority: in.Priority, CoachID: in.CoachID}
			})
		}, lane.Tool("create_task_for_group"), lane.Fanout())
	lane.Add(rs, "PATCH", "/tasks/{id}", "Change a task's status, snooze or priority.", a.updateTask, lane.Tool("update_task"))

	lane.Add(rs, "GET", "/keys", "The studio's API keys (never the keys themselves).", func(c *lane.Call, q *lane.PageQuery) (lane.ListOf[domain.APIKey], error) {
		keys, err := c.DB().ListAPIKeys(c.Ctx, c.P.StudioID)
		return lane.PageSlice(keys, q.Page()), err
	}, lane.Admin())
	lane.Add(rs, "POST", "/keys", "Create an API key with the scopes given; the answer is the only time the key is shown.", a.createKey, lane.Admin(), lane.Created())
	lane.Add(rs, "PATCH", "/keys/{id}", "Change a live API key's scopes: add and remove, or set the whole list (a key keeps at least one). The key holds them from its next request; the assistant's own key (GET /keys) changes the same way.", a.changeKeyScopes, lane.Admin())
	lane.Add(rs, "DELETE", "/keys/{id}", "Revoke an API key; it stops working on the next request.", func(c *lane.Call, _ *lane.NoInput) (domain.APIKey, error) {
		k, err := c.DB().FindAPIKey(c.Ctx, c.P.StudioID, c.ID())
		if errors.Is(err, store.ErrNotFound) || (err == nil && k.StudioID != c.P.StudioID) {
			return k, lane.NotFound(ids.APIKey, c.ID())
		}
		if err != nil {
			return k, err
		}
		c.SetResource(k.ID)
		if k.RevokedAt != nil {
			return k, nil // revoking twice is harmless
		}
		now := c.Now().UTC()
		if err := c.DB().RevokeAPIKey(c.Ctx, k.ID, now); err != nil {
			return k, err
		}
		k.RevokedAt = &now
		return k, nil
	}, lane.Admin())

	lane.Add(rs, "GET", "/notifications", "The outbox: every notification that would reach a trainee, newest first.", func(c *lane.Call, q *lane.PageQuery) (lane.ListOf[domain.Notification], error) {
		res, err := c.Studio().ListNotifications(c.Ctx, q.Page())
		return lane.PageOf(res, q.Page()), err
	}, lane.Admin())
}

func coachPhone(c *lane.Call, raw *string) (*string, *lane.Error) {
	if raw == nil || strings.TrimSpace(*raw) == "" {
		return nil, nil
	}
	e164, err := phone.Normalize(*raw, c.P.Region)
	if err != nil {
		return nil, lane.InvalidField("phone", fmt.Sprintf("phone must be a mobile number such as 050-123-4567 or +972 50 123 4567 (got %q).", text.Truncate(*raw, 40)))
	}
	return &e164, nil
}

func (a *Area) createCoach(c *lane.Call, in *coachInput) (domain.Coach, error) {
	p, perr := coachPhone(c, in.Phone)
	if perr != nil {
		return domain.Coach{}, perr
	}
	co := domain.Coach{ID: ids.New(ids.Coach), Name: strings.TrimSpace(in.Name), Phone: p, Email: in.Email, Gender: in.Gender, Active: in.Active == nil || *in.Active, CreatedAt: c.Now().UTC()}
	if err := c.Studio().CreateCoach(c.Ctx, &co); err != nil {
		return co, err
	}
	c.SetResource(co.ID)
	return co, nil
}

func (a *Area) updateCoach(c *lane.Call, in *updateCoachInput) (domain.Coach, error) {
	ss := c.Studio()
	co, err := lane.Lookup(c.Ctx, ids.Coach, c.ID(), ss.GetCoach)
	if err != nil {
		return co, err
	}
	if in.Name != nil {
		co.Name = strings.TrimSpace(*in.Name)
	}
	if c.Has("phone") {
		p, perr := coachPhone(c, in.Phone)
		if perr != nil {
			return co, perr
		}
		co.Phone = p
	}
	if c.Has("email") {
		co.Email = in.Email
	}
	if c.Has("gender") {
		co.Gender = in.Gender
	}
	if in.Active != nil {
		co.Active = *in.Active
	}
	return co, ss.UpdateCoach(c.Ctx, &co)
}

func (a *Area) createTask(c *lane.Call, in *createTaskInput) (domain.Task, error) {
	ss := c.Studio()
	if in.ClientID != nil {
		if _, err := lane.Lookup(c.Ctx, ids.Trainee, *in.ClientID, ss.GetTrainee); err != nil {
			return domain.Task{}, err
		}
	}
	if me := c.Coach(); in.CoachID == nil && me != "" {
		in.CoachID = &me // a coach's own reminder, unless she names another coach
	} else if in.CoachID != nil {
		if _, err := lane.Lookup(c.Ctx, ids.Coach, *in.CoachID, ss.GetCoach); err != nil {
			return domain.Task{}, err
		}
	}
	now := c.Now().UTC()
	t := domain.Task{
		ID:        ids.New(ids.Task),
		Title:     strings.TrimSpace(in.Title),
		ClientID:  in.ClientID,
		Detail:    in.Detail,
		DueAt:     utcPtr(in.DueAt),
		CoachID:   in.CoachID,
		Status:    domain.TaskOpen,
		Source:    c.P.Source,
		CreatedAt: now,
		UpdatedAt: now,
	}
	if in.Priority != nil {
		t.Priority = *in.Priority
	}
	if err := ss.CreateTask(c.Ctx, &t); err != nil {
		return t, err
	}
	c.SetResource(t.ID)
	return t, nil
}

// updateTask checks the change against the task as it will be: a snoozed
// task needs a snoozeUntil, sent now or already on the task (so a snoozed
// task takes a new priority alone); snoozeUntil alone snoozes; open and done
// clear the snooze.
func (a *Area) updateTask(c *lane.Call, in *updateTaskInput) (domain.Task, error) {
	ss := c.Studio()
	t, err := lane.Lookup(c.Ctx, ids.Task, c.ID(), ss.GetTask)
	if err != nil {
		return t, err
	}
	status, snoozeUntil := t.Status, t.SnoozeUntil
	if c.Has("snoozeUntil") {
		snoozeUntil = utcPtr(in.SnoozeUntil)
	}
	if in.Status != nil {
		status = *in.Status
	} else if in.SnoozeUntil != nil {
		status = domain.TaskSnoozed
	}
	switch status {
	case domain.TaskSnoozed:
		if snoozeUntil == nil {
			return t, lane.InvalidField("snoozeUntil", "snoozeUntil is required when status is snoozed and the task has none; send the date and time the task should wake, like 2026-03-01T09:00:00Z.")
		}
	default:
		if in.SnoozeUntil != nil {
			return t, lane.InvalidField("snoozeUntil", fmt.Sprintf("snoozeUntil only goes with status snoozed, not %s; drop it or send status snoozed.", status))
		}
		snoozeUntil = nil
	}
	t.SnoozeUntil = snoozeUntil
	t.Status = status
	if in.Priority != nil {
		t.Priority = *in.Priority
	}
	t.UpdatedAt = c.Now().UTC()
	return t, ss.UpdateTask(c.Ctx, &t)
}

func (a *Area) createKey(c *lane.Call, in *createKeyInput) (createdKey, error) {
	kind, err := auth.ParseKeyKind(in.Kind)
	if err != nil {
		return createdKey{}, lane.InvalidField("kind", "kind: "+err.Error()+".")
	}
	scopes := auth.PlatformScopes
	if kind == auth.KindPlatformKey && len(in.Scopes) > 0 {
		return createdKey{}, lane.InvalidField("scopes", "scopes: a platform key reads only the studio's public offer and takes no scopes; leave scopes out.")
	}
	if kind == auth.KindStudioKey {
		if scopes, err = auth.CheckScopes(in.Scopes); err != nil {
			return createdKey{}, lane.InvalidField("scopes", "scopes: "+err.Error()+".")
		}
	}
	studio, err := c.DB().StudioByID(c.Ctx, c.P.StudioID)
	if err != nil {
		return createdKey{}, err
	}
	secret := auth.NewKey()
	k := domain.APIKey{ID: ids.New(ids.APIKey), StudioID: studio.ID, Name: strings.TrimSpace(in.Name), Prefix: auth.Display(secret),
		Hash: auth.Hash(secret), Kind: string(kind), Scopes: slices.Clone(scopes), CreatedAt: c.Now().UTC()}
	// The request's own audit event records the creation.
	if err := c.DB().MintAPIKey(c.Ctx, &k, studio.Limits().MaxAPIKeys, nil); err != nil {
		return createdKey{}, KeyLimitError(studio, err)
	}
	c.SetResource(k.ID)
	return createdKey{APIKey: k, Key: secret}, nil
}

// changeKeyScopes gives a live key of the studio the scopes the change
// makes of its own, under the key's lock (store.SetAPIKeyScopes): the
// credentials epoch moves with them, so the key's next request, on any
// instance, holds them. The request's own audit event records it.
func (a *Area) changeKeyScopes(c *lane.Call, in *keyScopesInput) (domain.APIKey, error) {
	change := auth.ScopeChange{Set: in.Scopes, Add: in.Add, Remove: in.Remove}
	field := "scopes"
	switch {
	case len(in.Scopes) > 0:
	case len(in.Add) > 0:
		field = "add"
	case len(in.Remove) > 0:
		field = "remove"
	}
	k, err := c.DB().SetAPIKeyScopes(c.Ctx, c.P.StudioID, c.ID(), func(k domain.APIKey) ([]string, error) {
		c.SetResource(k.ID)
		if k.Kind == string(auth.KindPlatformKey) {
			return nil, lane.Conflict(fmt.Sprintf("Key %s (%s) is an agent platform's key: it reads only the studio's public offer and takes no scopes. Mint a studio key (POST /keys) for what it should do.", k.Prefix, k.Name))
		}
		next, err := change.Apply(k.Scopes)
		if err != nil {
			return nil, lane.InvalidField(field, field+": "+err.Error()+".")
		}
		return next, nil
	}, nil)
	if errors.Is(err, store.ErrNotFound) {
		return k, lane.NotFound(ids.APIKey, c.ID())
	}
	return k, err
}

// KeyLimitError turns MintAPIKey's *store.LimitError into the lane's
// PLAN_LIMIT answer; other errors pass through.
func KeyLimitError(studio domain.Studio, err error) error {
	var le *store.LimitError
	if !errors.As(err, &le) {
		return err
	}
	tier := studio.Limits()
	return lane.PlanLimit(fmt.Sprintf("The %s plan allows %d live API keys and studio %s has %d. Revoke one (perform key revoke, or DELETE %s/keys/{id}) or upgrade the studio's plan.", tier.Name, le.Limit, studio.Slug, le.Count, lane.Prefix))
}

// utcPtr is t in UTC, or nil.
func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// The studio's settings: its time zone, the first day of its week, and
// whether its trainees may use the WhatsApp assistant.

type studioSettings struct {
	TimeZone string `json:"timeZone"`
	// WeekStartsOn is the first day of every week the studio is answered
	// in ("this week", the debrief, weekly plans and means).
	WeekStartsOn     string `json:"weekStartsOn"`
	TraineeAssistant bool   `json:"traineeAssistant"`
	// DigestTemplate is the approved WhatsApp template the coaches' morning
	// digest goes out as outside the 24-hour window ("" without one).
	DigestTemplate string `json:"digestTemplate"`
	// Currency is the one a new plan is priced in when it names none.
	Currency string `json:"currency"`
	planSettings
}

func settingsOf(st domain.Studio) studioSettings {
	return studioSettings{TimeZone: st.TimeZone().String(), WeekStartsOn: domain.WeekdayName(st.FirstDay()), TraineeAssistant: st.TraineeAssistant(), DigestTemplate: st.DigestTemplate(),
		Currency: st.Currency(), planSettings: planSettingsOf(st)}
}

type studioSettingsInput struct {
	TimeZone         *string `json:"timeZone,omitempty" jsonschema:"An IANA time zone name, such as Asia/Jerusalem, Europe/London or America/New_York." lane:"minLength=1,maxLength=100"`
	WeekStartsOn     *string `json:"weekStartsOn,omitempty" jsonschema:"The first day of the studio's week: sunday, monday … saturday. Every this week, next week, weekly plan, debrief and weekly mean starts on it. Null returns to the time zone's custom (Sunday for Asia/Jerusalem, Monday for most of Europe)." lane:"maxLength=20"`
	TraineeAssistant *bool   `json:"traineeAssistant,omitempty" jsonschema:"Whether the studio's trainees may log workouts, check-ins, weigh-ins and measurements by writing to the WhatsApp assistant (off until turned on; each trainee agrees on her first message)."`
	DigestTemplate   *string `json:"digestTemplate,omitempty" jsonschema:"The approved WhatsApp template (its name, such as morning_digest) the coaches' morning digest goes out as when a coach has not written in 24 hours; null or empty removes it, and then such a coach gets no digest." lane:"maxLength=100"`
	Currency         *string `json:"currency,omitempty" jsonschema:"The studio's currency, an ISO 4217 code such as ILS, USD or EUR: a new plan that names none is priced in it (ILS until set); plans already made keep theirs." lane:"minLength=3,maxLength=3,null=false"`
	planSettingsInput
}

func (a *Area) updateStudioSettings(c *lane.Call, in *studioSettingsInput) (studioSettings, error) {
	patch := map[string]any{}
	if in.TimeZone != nil {
		name := strings.TrimSpace(*in.TimeZone)
		loc, err := domain.LoadZone(name)
		if err != nil {
			return studioSettings{}, lane.InvalidField("timeZone", fmt.Sprintf("timeZone must be an IANA time zone name such as Asia/Jerusalem or Europe/London; %q is not one.", text.Truncate(name, 100)))
		}
		patch["timeZone"] = loc.String()
	}
	if slices.Contains(c.Sent(), "weekStartsOn") {
		if in.WeekStartsOn == nil {
			patch["weekStartsOn"] = nil // back to the zone's custom
		} else if d, ok := domain.ParseWeekday(*in.WeekStartsOn); ok {
			patch["weekStartsOn"] = domain.WeekdayName(d)
		} else {
			return studioSettings{}, lane.InvalidField("weekStartsOn", fmt.Sprintf("weekStartsOn must be a day of the week: sunday, monday, tuesday, wednesday, thursday, friday or saturday; %q is not one.", text.Truncate(*in.WeekStartsOn, 20)))
		}
	}
	if in.TraineeAssistant != nil {
		patch["traineeAssistant"] = *in.TraineeAssistant
	}
	if template, ok, err := templateSetting(c, in); err != nil {
		return studioSettings{}, err
	} else if ok {
		patch["digestTemplate"] = template // "" removes it
	}
	if in.Currency != nil {
		code, err := lane.Currency("currency", *in.Currency)
		if err != nil {
			return studioSettings{}, err
		}
		patch["currency"] = code
	}
	if err := a.patchPlanSettings(c, in, patch); err != nil {
		return studioSettings{}, err
	}
	if len(patch) == 0 {
		return studioSettings{}, lane.InvalidField("timeZone", "Send at least one setting: timeZone, weekStartsOn, traineeAssistant, digestTemplate, currency, language, seniorAge, modelTokensPerPersonDay or modelTokensPerStudioHour.")
	}
	// The settings' other keys (the assistant's) are kept as they are.
	st, err := store.PatchStudioSettings(c.Ctx, c.DB(), c.P.StudioID, patch)
	return a.withBudget(settingsOf(st), st), err
}
