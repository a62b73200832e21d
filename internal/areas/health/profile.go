package health

import (
	"errors"
	"net/http"
	"slices"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/training"
)

// Training profile.

type trainingProfileInput struct {
	Equipment      []string `json:"equipment,omitempty" jsonschema:"The equipment the trainee can use, such as barbell, dumbbell, kettlebell, machine, bands, pull-up bar." lane:"minLength=1,maxLength=50,maxItems=50"`
	Availability   []int    `json:"availability,omitempty" jsonschema:"The weekdays the trainee can train, ISO: 1 Monday … 7 Sunday." lane:"min=1,max=7,maxItems=7"`
	SessionMinutes *int     `json:"sessionMinutes,omitempty" jsonschema:"Preferred session length in minutes, 10 to 300." lane:"min=10,max=300"`
	Experience     *string  `json:"experience,omitempty" jsonschema:"Training experience." lane:"enum=beginner|intermediate|advanced"`
	Units          *string  `json:"units,omitempty" jsonschema:"Preferred units for display, metric (the default) or imperial; the lane always stores kg and metres." lane:"enum=metric|imperial"`
	Sport          *string  `json:"sport,omitempty" jsonschema:"Her main sport: strength (the default), running, cycling, swimming, conditioning or general; the weekly plan keeps it in her week." lane:"enum=strength|running|cycling|swimming|conditioning|general"`
	Goal           *string  `json:"goal,omitempty" jsonschema:"Her training goal: strength, hypertrophy, fat_loss, endurance, general (the default) or rehab; it shapes the weekly plan (fat loss gets conditioning)." lane:"enum=strength|hypertrophy|fat_loss|endurance|general|rehab"`
	Conditions     []string `json:"conditions,omitempty" jsonschema:"Her health conditions the weekly plan's rules respect: hypertension, pregnancy, osteoporosis, heart_condition; [] clears them. Health data: a trainee sets them under the health:write scope." lane:"enum=hypertension|pregnancy|osteoporosis|heart_condition,maxItems=4"`
}

type trainingProfileAnswer struct {
	domain.TrainingProfile
	OnboardingStatus training.OnboardingStatus `json:"onboardingStatus"`
}

func (a *Area) getTrainingProfile(c *lane.Call, _ *lane.NoInput) (trainingProfileAnswer, error) {
	ss := c.Studio()
	if _, err := lane.Lookup(c.Ctx, ids.Trainee, c.ID(), ss.GetTrainee); err != nil {
		return trainingProfileAnswer{}, err
	}
	p, err := ss.GetTrainingProfile(c.Ctx, c.ID())
	var stored *domain.TrainingProfile
	switch {
	case errors.Is(err, store.ErrNotFound):
		p = domain.TrainingProfile{TraineeID: c.ID(), Equipment: []string{}, Availability: []int{}, Units: "metric", Onboarding: []string{}}
	case err != nil:
		return trainingProfileAnswer{}, err
	default:
		stored = &p
	}
	status, err := onboarding(c, ss, c.ID(), stored)
	if err != nil {
		return trainingProfileAnswer{}, err
	}
	p.Onboarding = status.Done
	if p.Conditions == nil {
		p.Conditions = []string{}
	}
	if conditionsHidden(c) {
		p.Conditions = nil
	}
	return trainingProfileAnswer{TrainingProfile: p, OnboardingStatus: status}, nil
}

func (a *Area) putTrainingProfile(c *lane.Call, in *trainingProfileInput) (trainingProfileAnswer, error) {
	return saveTrainingProfile(c, in, false)
}

// applyTo sets the fields of p that given reports sent (a PUT sends them
// all: an absent one is its default).
func (in *trainingProfileInput) applyTo(p *domain.TrainingProfile, given func(field string) bool) {
	if given("equipment") {
		p.Equipment = lane.CleanStrings(in.Equipment)
	}
	if given("availability") {
		days := slices.Clone(in.Availability)
		slices.Sort(days)
		p.Availability = slices.Compact(days)
	}
	if p.Availability == nil {
		p.Availability = []int{}
	}
	if given("sessionMinutes") {
		p.SessionMinutes = in.SessionMinutes
	}
	if given("experience") {
		p.Experience = in.Experience
	}
	if given("units") {
		p.Units = "metric"
		if in.Units != nil {
			p.Units = *in.Units
		}
	}
	if given("sport") {
		p.Sport = deref(in.Sport)
	}
	if given("goal") {
		p.Goal = deref(in.Goal)
	}
	if given("conditions") {
		p.Conditions = slices.Compact(slices.Sorted(slices.Values(in.Conditions)))
	}
	if p.Conditions == nil {
		p.Conditions = []string{}
	}
}

func deref(v *string) string {
	if v == nil {
		return ""
	}
	return *v
}

// Health conditions are health data: a trainee reads them under
// health:read and sets them under health:write (her coaches, whose keys
// hold the studio's scopes, see and set them always).

// conditionsHidden reports a reader who may not see the conditions.
func conditionsHidden(c *lane.Call) bool {
	return c.P.IsTrainee() && !c.P.Has(auth.ScopeHealthRead)
}

// checkConditionsWrite refuses a trainee's change of her conditions
// without health:write.
func checkConditionsWrite(c *lane.Call) error {
	if c.P.IsTrainee() && c.Has("conditions") && !c.P.Has(auth.ScopeHealthWrite) {
		return &lane.Error{Status: http.StatusForbidden, Code: lane.CodeForbidden,
			Message: "conditions are health data: changing them needs the health:write scope, which this connection was not granted. Leave conditions out, or ask her coach to set them, or connect again granting health:write."}
	}
	return nil
}

// saveTrainingProfile writes the trainee's profile with its onboarding
// status: the whole of it from in, or with patch only the fields the body
// sent over the profile as stored (read in the write's transaction, so two
// changes do not lose each other's fields).
func saveTrainingProfile(c *lane.Call, in *trainingProfileInput, patch bool) (trainingProfileAnswer, error) {
	var out trainingProfileAnswer
	if err := checkConditionsWrite(c); err != nil {
		return out, err
	}
	err := c.InTx(func(ss store.StudioStore) error {
		if _, err := lane.Lookup(c.Ctx, ids.Trainee, c.ID(), ss.GetTrainee); err != nil {
			return err
		}
		p := domain.TrainingProfile{TraineeID: c.ID(), Equipment: []string{}, Availability: []int{}, Units: "metric"}
		given := func(string) bool { return true }
		if patch {
			given = c.Has
			stored, err := ss.GetTrainingProfile(c.Ctx, c.ID())
			switch {
			case err == nil:
				p = stored
			case !errors.Is(err, store.ErrNotFound):
				return err
			}
		}
		in.applyTo(&p, given)
		p.UpdatedAt = c.Now().UTC()
		status, err := onboarding(c, ss, c.ID(), &p)
		if err != nil {
			return err
		}
		// The stored list is the status as of this write; reads compute it afresh.
		p.Onboarding = status.Done
		out = trainingProfileAnswer{TrainingProfile: p, OnboardingStatus: status}
		return ss.PutTrainingProfile(c.Ctx, &p)
	})
	if conditionsHidden(c) {
		out.Conditions = nil
	}
	return out, err
}

// onboarding is the trainee's onboarding status with profile p (nil: none).
func onboarding(c *lane.Call, ss store.StudioStore, traineeID string, p *domain.TrainingProfile) (training.OnboardingStatus, error) {
	f := training.IntakeFacts{Profile: p}
	goals, err := ss.ListGoals(c.Ctx, traineeID, "")
	if err != nil {
		return training.OnboardingStatus{}, err
	}
	for _, g := range goals {
		if g.Status != domain.GoalAbandoned {
			f.Goals++
		}
	}
	list, err := ss.ListBenchmarks(c.Ctx, traineeID)
	if err != nil {
		return training.OnboardingStatus{}, err
	}
	f.Benchmarks = len(list)
	return training.Onboarding(f), nil
}

// The fields a trainee's answers keep of goals and check-ins (allow lists;
// see lane.Allow).
var (
	GoalFields    = []string{"id", "title", "kind", "measure", "unit", "targetValue", "targetDate", "benchmarkId", "status", "completedAt"}
	CheckInFields = []string{"id", "day", "readiness", "sleepHours", "sleepQuality", "soreness", "soreAreas", "stress", "mood", "note"}
)

// The training profile, in part.

func (a *Area) patchTrainingProfile(c *lane.Call, in *trainingProfileInput) (trainingProfileAnswer, error) {
	if len(c.Sent()) == 0 {
		return trainingProfileAnswer{}, lane.InvalidField("equipment", "Send at least one of equipment, availability, sessionMinutes, experience, units, sport, goal or conditions; the fields not sent keep their values.")
	}
	return saveTrainingProfile(c, in, true)
}
