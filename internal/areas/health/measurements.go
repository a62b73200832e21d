package health

import (
	"strings"
	"time"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/training"
	"github.com/otherwise/perform/internal/views"
)

// Body measurements beyond weight, and the analysis of both over a range.

func (a *Area) measurementRoutes(rs *lane.Routes) {
	lane.Add(rs, "GET", "/trainees/{id}/measurements", "A trainee's body measurements, newest first.", func(c *lane.Call, q *lane.PageQuery) (lane.ListOf[domain.Measurement], error) {
		res, err := c.Studio().ListMeasurements(c.Ctx, c.ID(), q.Page())
		return lane.PageOf(res, q.Page()), err
	})
	lane.Add(rs, "POST", "/trainees/{id}/measurements", "Record a trainee's body measurements (at least one).", a.recordMeasurement, lane.Created(),
		lane.Trainee(auth.ScopeHealthWrite), lane.TraineeTool("log_measurement"),
		lane.Allow("id", "recordedAt", "bodyFatPct", "waistCm", "hipsCm", "chestCm", "armCm", "thighCm", "restingHr", "notes"))
	lane.Add(rs, "GET", "/trainees/{id}/body-analysis", "A trainee's weight and body measurements over a range: first, latest and change of each.", a.bodyAnalysis, lane.Tool("get_body_analysis"),
		lane.Trainee(auth.ScopeHealthRead), lane.TraineeTool("get_body_analysis"), lane.Allow("from", "to", "metrics"), lane.View(views.BodyTrend))
}

type measurementInput struct {
	RecordedAt *time.Time `json:"recordedAt,omitempty" jsonschema:"When it was measured; now when omitted." when:"happened"`
	BodyFatPct *float64   `json:"bodyFatPct,omitempty" jsonschema:"Body fat, percent, 2 to 70." lane:"min=2,max=70,null=false"`
	WaistCm    *float64   `json:"waistCm,omitempty" jsonschema:"Waist, cm, 30 to 250." lane:"min=30,max=250,null=false"`
	HipsCm     *float64   `json:"hipsCm,omitempty" jsonschema:"Hips, cm, 30 to 250." lane:"min=30,max=250,null=false"`
	ChestCm    *float64   `json:"chestCm,omitempty" jsonschema:"Chest, cm, 30 to 250." lane:"min=30,max=250,null=false"`
	ArmCm      *float64   `json:"armCm,omitempty" jsonschema:"Upper arm, cm, 10 to 80." lane:"min=10,max=80,null=false"`
	ThighCm    *float64   `json:"thighCm,omitempty" jsonschema:"Thigh, cm, 20 to 120." lane:"min=20,max=120,null=false"`
	RestingHR  *int       `json:"restingHr,omitempty" jsonschema:"Resting heart rate, beats per minute, 25 to 150." lane:"min=25,max=150,null=false"`
	Notes      *string    `json:"notes,omitempty" jsonschema:"A note." lane:"maxLength=1000"`
}

func (a *Area) recordMeasurement(c *lane.Call, in *measurementInput) (domain.Measurement, error) {
	if in.BodyFatPct == nil && in.WaistCm == nil && in.HipsCm == nil && in.ChestCm == nil && in.ArmCm == nil && in.ThighCm == nil && in.RestingHR == nil {
		return domain.Measurement{}, lane.InvalidField("bodyFatPct", "Send at least one measurement: bodyFatPct, waistCm, hipsCm, chestCm, armCm, thighCm or restingHr (a weight goes to log_weight).")
	}
	now := c.Now().UTC()
	m := domain.Measurement{ID: ids.New(ids.Measurement), TraineeID: c.ID(), RecordedAt: now, BodyFatPct: in.BodyFatPct, WaistCm: in.WaistCm,
		HipsCm: in.HipsCm, ChestCm: in.ChestCm, ArmCm: in.ArmCm, ThighCm: in.ThighCm, RestingHR: in.RestingHR, Notes: lane.Trimmed(in.Notes), CreatedAt: now,
		LoggedBy: c.Author()}
	if in.RecordedAt != nil {
		m.RecordedAt = in.RecordedAt.UTC()
	}
	return m, c.Studio().CreateMeasurement(c.Ctx, &m)
}

type bodyAnalysisQuery struct {
	lane.DayRange
}

type bodyAnalysis struct {
	TraineeID string `json:"traineeId"`
	Name      string `json:"name" jsonschema:"The trainee's name."`
	From      string `json:"from"`
	To        string `json:"to"`
	training.BodyAnalysis
}

func (a *Area) bodyAnalysis(c *lane.Call, q *bodyAnalysisQuery) (bodyAnalysis, error) {
	from, to, e := c.Days(q.DayRange)
	if e != nil {
		return bodyAnalysis{}, e
	}
	ss := c.Studio()
	t, err := lane.Lookup(c.Ctx, ids.Trainee, c.ID(), ss.GetTrainee)
	if err != nil {
		return bodyAnalysis{}, err
	}
	start, end := dayStart(from, c.Zone()), dayStart(lane.AddDays(to, 1), c.Zone())
	weights, err := ss.WeightsBetween(c.Ctx, c.ID(), start, end)
	if err != nil {
		return bodyAnalysis{}, err
	}
	ms, err := ss.MeasurementsBetween(c.Ctx, c.ID(), start, end)
	if err != nil {
		return bodyAnalysis{}, err
	}
	return bodyAnalysis{TraineeID: c.ID(), Name: strings.TrimSpace(t.FirstName + " " + t.LastName), From: from, To: to, BodyAnalysis: training.AnalyseBody(weights, ms, c.Zone(), c.FirstDay())}, nil
}
