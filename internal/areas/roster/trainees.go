package roster

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/otherwise/perform/internal/areas/health"
	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/phone"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/text"
)

type searchTraineesQuery struct {
	Q            string     `json:"q,omitempty" jsonschema:"Words of a name, phone number or email, in any order, case-insensitive; each word must match part of the first name, last name, phone or email, and hyphens count as spaces. When nothing matches, nearMatches lists similar names." lane:"maxLength=200"`
	Status       string     `json:"status,omitempty" jsonschema:"Only trainees with this status." lane:"enum=active|paused|archived"`
	CoachID      string     `json:"coachId,omitempty" jsonschema:"Only trainees of this coach: an id from list_coaches, or me (the signed-in coach)." lane:"maxLength=100" ref:"coachFilter"`
	Tag          string     `json:"tag,omitempty" jsonschema:"Only trainees with this tag name (from list_tags)." lane:"maxLength=100" ref:"tagName"`
	CreatedAfter *time.Time `json:"createdAfter,omitempty" jsonschema:"Only trainees created after this instant."`
	UpdatedAfter *time.Time `json:"updatedAfter,omitempty" jsonschema:"Only trainees changed after this instant."`
	View         string     `json:"view,omitempty" jsonschema:"compact (the default): each row is what picking a trainee takes; full: each row also carries the whole profile, as GET /trainees/{id} answers it." lane:"enum=compact|full"`
	lane.PageQuery
}

// traineeRow is one row of a trainee search: what a caller needs to pick a
// trainee, small enough that a page of 50 suits a model. The whole profile
// is GET /trainees/{id}, or the row's profile with view=full (for
// integrations syncing with updatedAfter).
type traineeRow struct {
	ID        string     `json:"id"`
	FirstName string     `json:"firstName"`
	LastName  string     `json:"lastName"`
	Phone     string     `json:"phone"`
	Status    string     `json:"status"`
	Tags      []string   `json:"tags"`
	Coaches   []coachRef `json:"coaches" jsonschema:"The trainee's coaches, by id and name."`
	WeightKg  *float64   `json:"weightKg" jsonschema:"The latest weigh-in in kilograms; null when there is none."`
	// Profile is the whole profile, with view=full only.
	Profile *domain.Trainee `json:"profile,omitempty" jsonschema:"The whole profile; only with view=full."`
}

type coachRef struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// profile is what a trainee create and update share.
type profile struct {
	Email     *string  `json:"email,omitempty" jsonschema:"Email address." lane:"format=email,maxLength=200"`
	BirthDate *string  `json:"birthDate,omitempty" jsonschema:"Date of birth." lane:"format=date" when:"birth"`
	Gender    *string  `json:"gender,omitempty" jsonschema:"Gender." lane:"enum=female|male|other"`
	HeightCm  *float64 `json:"heightCm,omitempty" jsonschema:"Height in centimetres, 100 to 250." lane:"min=100,max=250"`
	WeightKg  *float64 `json:"weightKg,omitempty" jsonschema:"Current weight in kilograms, recorded as a weigh-in dated now. The profile's weightKg is always the latest weigh-in. 20 to 350." lane:"min=20,max=350,null=false"`
	Goal      *string  `json:"goal,omitempty" jsonschema:"The trainee's goal, in their words." lane:"maxLength=2000"`
	StepsGoal *int     `json:"stepsGoal,omitempty" jsonschema:"Daily steps goal." lane:"min=0,max=100000"`
	Tags      []string `json:"tags,omitempty" jsonschema:"Tag names; new names create tags. On update the list replaces the trainee's tags." lane:"minLength=1,maxLength=50,maxItems=50"`
	CoachIDs  []string `json:"coachIds,omitempty" jsonschema:"Coaches, by id from list_coaches or by name; on create, the signed-in coach when omitted. On update the list replaces the trainee's coaches." lane:"maxLength=100,maxItems=20" ref:"coach"`
}

type createTraineeInput struct {
	FirstName string  `json:"firstName" jsonschema:"First name." lane:"minLength=1,maxLength=100"`
	LastName  string  `json:"lastName" jsonschema:"Last name." lane:"minLength=1,maxLength=100"`
	Phone     string  `json:"phone" jsonschema:"Mobile phone in any usual form; numbers without a country code are read in the studio's region." lane:"minLength=1,maxLength=40"`
	Status    *string `json:"status,omitempty" jsonschema:"active (the default), paused or archived." lane:"enum=active|paused|archived"`
	profile
	ProductID          *string `json:"productId,omitempty" jsonschema:"A plan to start with the trainee, on startedOn: its id from list_plans, or its name." lane:"maxLength=100" ref:"product"`
	StartedOn          *string `json:"startedOn,omitempty" jsonschema:"The day the trainee starts, and the plan with them; today (UTC) when omitted, and the answer shows the day." lane:"format=date" when:"start"`
	SendWhatsappInvite *bool   `json:"sendWhatsappInvite,omitempty" jsonschema:"true sends the WhatsApp invite; anything else sends nothing."`
	Notify             *bool   `json:"notify,omitempty" jsonschema:"true sends the welcome message; anything else sends nothing."`
}

type updateTraineeInput struct {
	FirstName *string `json:"firstName,omitempty" jsonschema:"First name." lane:"minLength=1,maxLength=100,null=false"`
	LastName  *string `json:"lastName,omitempty" jsonschema:"Last name." lane:"minLength=1,maxLength=100,null=false"`
	Phone     *string `json:"phone,omitempty" jsonschema:"Mobile phone in any usual form." lane:"minLength=1,maxLength=40,null=false"`
	Status    *string `json:"status,omitempty" jsonschema:"active, paused or archived." lane:"enum=active|paused|archived,null=false"`
	StartedOn *string `json:"startedOn,omitempty" jsonschema:"The day the trainee started; every trainee has one, so it cannot be cleared." lane:"format=date,null=false" when:"start"`
	profile
}

type traineeCreated struct {
	domain.Trainee
	Subscription *domain.Subscription `json:"subscription,omitempty"`
}

// byPhonePath's second segment is a word where the trainees' other
// routes take an {id} (lane.Word).
const byPhonePath = "/trainees/by-phone/{phone}"

func (a *Area) traineeRoutes(rs *lane.Routes) {
	lane.Add(rs, "GET", "/trainees/search", "Search trainees by name, phone or email, with filters and paging. Rows are compact (id, name, phone, status, tags, coaches, latest weight); view=full adds each whole profile.", a.searchTrainees, lane.Tool("search_trainees"))
	lane.Add(rs, "GET", byPhonePath, "Find a trainee by phone number in any usual form.", a.traineeByPhone, lane.Tool("find_trainee_by_phone"), lane.Word())
	lane.Add(rs, "GET", "/trainees/{id}", "One trainee.", func(c *lane.Call, _ *lane.NoInput) (domain.Trainee, error) {
		return lane.Lookup(c.Ctx, ids.Trainee, c.ID(), c.Studio().GetTrainee)
	}, lane.Tool("get_trainee"), lane.Trainee(auth.ScopeProfileRead),
		lane.Allow("id", "status", "goal", "birthDate", "gender", "heightCm", "weightKg", "stepsGoal", "startedOn"))
	lane.Add(rs, "POST", "/trainees", "Create a trainee, optionally starting a plan.", a.createTrainee, lane.Tool("create_trainee"), lane.Created())
	lane.Add(rs, "PATCH", "/trainees/{id}", "Change a trainee's profile; tags and coachIds replace the whole list.", a.updateTrainee, lane.Tool("update_trainee"))
	lane.Add(rs, "DELETE", "/trainees/{id}", "Delete a trainee and their whole history.", func(c *lane.Call, _ *lane.NoInput) (lane.Deleted, error) {
		ss := c.Studio()
		if _, err := lane.Lookup(c.Ctx, ids.Trainee, c.ID(), ss.GetTrainee); err != nil {
			return lane.Deleted{}, err
		}
		if err := ss.DeleteTrainee(c.Ctx, c.ID()); err != nil {
			return lane.Deleted{}, err
		}
		return lane.Deleted{ID: c.ID(), Deleted: true}, nil
	}, lane.Admin())
}

// traineeSearch is the search answer: items match every word of q; only
// when none does are the closest names listed apart, in nearMatches.
type traineeSearch struct {
	lane.ListOf[traineeRow]
	SoundsLike  bool         `json:"soundsLike,omitempty" jsonschema:"True when no name holds q as written and the items are the names q sounds like, in Hebrew or Latin letters (Tamar: תמר; Avraham: Abraham)."`
	NearMatches []traineeRow `json:"nearMatches,omitempty" jsonschema:"Only when q matched nobody: up to 5 trainees whose names are like q (a typo, a spelling), closest first. They are not matches; check the name before using one."`
}

// nearMatchLimit is how many near matches an empty search answers.
const nearMatchLimit = 5

func (a *Area) searchTrainees(c *lane.Call, q *searchTraineesQuery) (traineeSearch, error) {
	f := store.TraineeFilter{
		Q:            strings.TrimSpace(q.Q),
		Status:       q.Status,
		CoachID:      q.CoachID,
		Tag:          q.Tag,
		CreatedAfter: q.CreatedAfter,
		UpdatedAfter: q.UpdatedAfter,
		Page:         q.Page(),
	}
	ss := c.Studio()
	res, err := ss.SearchTrainees(c.Ctx, f)
	if err != nil {
		return traineeSearch{}, err
	}
	sounds := false
	if res.Total == 0 && f.Q != "" {
		// Not as written: the names it sounds like, in either script.
		f.Sounds = true
		if res, err = ss.SearchTrainees(c.Ctx, f); err != nil {
			return traineeSearch{}, err
		}
		sounds = res.Total > 0
		f.Sounds = false
	}
	var near []domain.Trainee
	if res.Total == 0 && f.Q != "" {
		if near, err = ss.NearTrainees(c.Ctx, f, nearMatchLimit); err != nil {
			return traineeSearch{}, err
		}
	}
	names, err := coachNames(c, ss, slices.Concat(res.Items, near))
	if err != nil {
		return traineeSearch{}, err
	}
	rows := store.List[traineeRow]{Items: traineeRows(res.Items, names, q.View == "full"), Total: res.Total}
	out := traineeSearch{ListOf: lane.PageOf(rows, f.Page), SoundsLike: sounds}
	if len(near) > 0 {
		out.NearMatches = traineeRows(near, names, q.View == "full")
	}
	return out, nil
}

// traineeRows are the compact rows of ts, each with its whole profile when full.
func traineeRows(ts []domain.Trainee, coachNames map[string]string, full bool) []traineeRow {
	rows := make([]traineeRow, len(ts))
	for i, t := range ts {
		r := traineeRow{ID: t.ID, FirstName: t.FirstName, LastName: t.LastName, Phone: t.Phone, Status: t.Status,
			Tags: t.Tags, Coaches: make([]coachRef, 0, len(t.CoachIDs)), WeightKg: t.WeightKg}
		if r.Tags == nil {
			r.Tags = []string{}
		}
		for _, id := range t.CoachIDs {
			r.Coaches = append(r.Coaches, coachRef{ID: id, Name: coachNames[id]})
		}
		if full {
			r.Profile = &ts[i]
		}
		rows[i] = r
	}
	return rows
}

// coachNames maps the coach ids of the trainees to the coaches' names.
func coachNames(c *lane.Call, ss store.StudioStore, ts []domain.Trainee) (map[string]string, error) {
	names := map[string]string{}
	for _, t := range ts {
		for _, id := range t.CoachIDs {
			if _, seen := names[id]; seen {
				continue
			}
			co, err := ss.GetCoach(c.Ctx, id)
			if err != nil && !errors.Is(err, store.ErrNotFound) {
				return nil, err
			}
			names[id] = co.Name
		}
	}
	return names, nil
}

func (a *Area) traineeByPhone(c *lane.Call, _ *lane.NoInput) (domain.Trainee, error) {
	raw := c.Req.PathValue("phone")
	e164, err := phone.Normalize(raw, c.P.Region)
	if err != nil {
		return domain.Trainee{}, lane.InvalidField("phone", fmt.Sprintf("phone must be a phone number such as 050-123-4567 or +972 50 123 4567 (got %q).", text.Truncate(raw, 40)))
	}
	t, err := c.Studio().TraineeByPhone(c.Ctx, e164)
	if errors.Is(err, store.ErrNotFound) {
		return t, &lane.Error{Status: http.StatusNotFound, Code: lane.CodeNotFound,
			Message: fmt.Sprintf("No trainee with phone %s exists in this studio. Use search_trainees to look by name.", e164)}
	}
	if err == nil {
		c.SetResource(t.ID)
	}
	return t, err
}

// normalisePhone answers the 422 naming phone for a number that is not one.
func normalisePhone(c *lane.Call, raw string) (string, *lane.Error) {
	e164, err := phone.Normalize(raw, c.P.Region)
	if err != nil {
		return "", lane.InvalidField("phone", fmt.Sprintf("phone must be a mobile number such as 050-123-4567 or +972 50 123 4567 (got %q).", text.Truncate(raw, 40)))
	}
	return e164, nil
}

// checkCoaches answers the not-found sentence for the first coach id that
// is not this studio's.
func checkCoaches(ctx context.Context, ss store.StudioStore, coachIDs []string) error {
	for _, id := range coachIDs {
		if _, err := lane.Lookup(ctx, ids.Coach, id, ss.GetCoach); err != nil {
			return err
		}
	}
	return nil
}

// checkActiveLimit answers PLAN_LIMIT when one more active trainee would
// exceed the studio's tier.
// It locks the studio (store.ReserveActiveTrainee), so it must run in the
// transaction of the write.
func checkActiveLimit(c *lane.Call, ss store.StudioStore) error {
	tier := domain.Studio{Tier: c.P.Tier}.Limits()
	err := ss.ReserveActiveTrainee(c.Ctx, tier.MaxActiveTrainees)
	var le *store.LimitError
	if errors.As(err, &le) {
		return lane.PlanLimit(fmt.Sprintf("The %s plan allows %d active trainees and this studio has %d. Pause or archive a trainee (update_trainee with status paused), or upgrade the studio's plan.", tier.Name, le.Limit, le.Count))
	}
	return err
}

func (p profile) apply(t *domain.Trainee) {
	t.Email, t.BirthDate, t.Gender, t.Goal = p.Email, p.BirthDate, p.Gender, p.Goal
	t.HeightCm, t.WeightKg, t.StepsGoal = p.HeightCm, p.WeightKg, p.StepsGoal
}

func (a *Area) createTrainee(c *lane.Call, in *createTraineeInput) (traineeCreated, error) {
	e164, perr := normalisePhone(c, in.Phone)
	if perr != nil {
		return traineeCreated{}, perr
	}
	now := c.Now().UTC()
	t := domain.Trainee{
		ID:        ids.New(ids.Trainee),
		FirstName: strings.TrimSpace(in.FirstName),
		LastName:  strings.TrimSpace(in.LastName),
		Phone:     e164,
		Status:    domain.TraineeActive,
		Tags:      lane.CleanStrings(in.Tags),
		CoachIDs:  lane.CleanStrings(in.CoachIDs),
		StartedOn: in.StartedOn,
		CreatedAt: now,
		UpdatedAt: now,
	}
	if me := c.Coach(); len(t.CoachIDs) == 0 && me != "" {
		t.CoachIDs = []string{me} // a coach's own sign-in adds her own trainee, unless she names others
	}
	in.profile.apply(&t)
	if t.StartedOn == nil {
		today := c.Today()
		t.StartedOn = &today
	}
	if in.Status != nil {
		t.Status = *in.Status
	}
	var out traineeCreated
	err := c.InTx(func(ss store.StudioStore) error {
		if err := checkCoaches(c.Ctx, ss, t.CoachIDs); err != nil {
			return err
		}
		var product domain.Product
		if in.ProductID != nil {
			p, err := lane.Lookup(c.Ctx, ids.Product, *in.ProductID, ss.GetProduct)
			if err != nil {
				return err
			}
			if p.Price == nil {
				return lane.InvalidField("productId", fmt.Sprintf("The %s plan is priced per trainee: create the trainee without productId, then assign_plan with its price.", p.Name))
			}
			product = p
		}
		if t.Status == domain.TraineeActive {
			if err := checkActiveLimit(c, ss); err != nil {
				return err
			}
		}
		if err := ss.CreateTrainee(c.Ctx, &t); err != nil {
			return err
		}
		if err := health.RecordProfileWeight(c, ss, t.ID, t.WeightKg); err != nil {
			return err
		}
		if in.ProductID != nil {
			sub, err := startSubscription(c, ss, t.ID, product, planTerms{StartedOn: t.StartedOn})
			if err != nil {
				return err
			}
			out.Subscription = &sub
		}
		if lane.IsTrue(in.Notify) {
			if err := c.Notify(ss, t.ID, domain.NotifyWelcome, nil); err != nil {
				return err
			}
		}
		if lane.IsTrue(in.SendWhatsappInvite) {
			if err := c.Notify(ss, t.ID, domain.NotifyWhatsAppInvite, map[string]any{"phone": t.Phone}); err != nil {
				return err
			}
		}
		got, err := ss.GetTrainee(c.Ctx, t.ID)
		out.Trainee = got
		return err
	})
	if err != nil {
		return traineeCreated{}, phoneConflict(c, err, t.Phone)
	}
	c.SetResource(t.ID)
	return out, nil
}

// phoneConflict turns a taken phone into a sentence naming the trainee who
// has it. The lookup runs after the transaction rolled back: on Postgres a
// failed statement poisons the rest of its transaction.
func phoneConflict(c *lane.Call, err error, e164 string) error {
	var ce *store.ConflictError
	if !errors.As(err, &ce) {
		return err
	}
	if e164 != "" {
		if existing, lerr := c.Studio().TraineeByPhone(c.Ctx, e164); lerr == nil {
			return lane.Conflict(fmt.Sprintf("Trainee %s already has the phone %s. Use get_trainee or update_trainee with that id instead of creating another.", existing.ID, e164))
		}
	}
	return lane.Conflict(ce.Message)
}

func (a *Area) updateTrainee(c *lane.Call, in *updateTraineeInput) (domain.Trainee, error) {
	var out domain.Trainee
	var newPhone string
	err := c.InTx(func(ss store.StudioStore) error {
		t, err := lane.Lookup(c.Ctx, ids.Trainee, c.ID(), ss.GetTrainee)
		if err != nil {
			return err
		}
		wasActive := t.Status == domain.TraineeActive
		// A field sent as null clears it; an absent field is kept.
		set := func(field string, dst **string, v *string) {
			if c.Has(field) {
				*dst = v
			}
		}
		if in.FirstName != nil {
			t.FirstName = strings.TrimSpace(*in.FirstName)
		}
		if in.LastName != nil {
			t.LastName = strings.TrimSpace(*in.LastName)
		}
		if in.Phone != nil {
			e164, perr := normalisePhone(c, *in.Phone)
			if perr != nil {
				return perr
			}
			t.Phone, newPhone = e164, e164
		}
		if in.Status != nil {
			t.Status = *in.Status
		}
		set("startedOn", &t.StartedOn, in.StartedOn)
		set("email", &t.Email, in.Email)
		set("birthDate", &t.BirthDate, in.BirthDate)
		set("gender", &t.Gender, in.Gender)
		set("goal", &t.Goal, in.Goal)
		if c.Has("heightCm") {
			t.HeightCm = in.HeightCm
		}
		if c.Has("weightKg") {
			t.WeightKg = in.WeightKg
		}
		if c.Has("stepsGoal") {
			t.StepsGoal = in.StepsGoal
		}
		if c.Has("tags") {
			t.Tags = lane.CleanStrings(in.Tags)
		}
		if c.Has("coachIds") {
			t.CoachIDs = lane.CleanStrings(in.CoachIDs)
			if err := checkCoaches(c.Ctx, ss, t.CoachIDs); err != nil {
				return err
			}
		}
		if !wasActive && t.Status == domain.TraineeActive {
			if err := checkActiveLimit(c, ss); err != nil {
				return err
			}
		}
		t.UpdatedAt = c.Now().UTC()
		if err := ss.UpdateTrainee(c.Ctx, &t); err != nil {
			return err
		}
		if c.Has("weightKg") {
			if err := health.RecordProfileWeight(c, ss, t.ID, in.WeightKg); err != nil {
				return err
			}
			if err := health.SyncProfileWeight(c, ss, t); err != nil {
				return err
			}
		}
		out, err = ss.GetTrainee(c.Ctx, t.ID)
		return err
	})
	if err != nil {
		return out, phoneConflict(c, err, newPhone)
	}
	return out, nil
}
