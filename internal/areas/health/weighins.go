package health

import (
	"time"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/store"
)

// Weigh-ins: a trainee's weight, logged by her or the studio; the latest
// one (by recordedAt) is her profile's weightKg. A fresh one is withdrawn
// through withdraw.go.

func (a *Area) weighInRoutes(rs *lane.Routes) {
	lane.Add(rs, "GET", "/trainees/{id}/weights", "A trainee's weights, newest first.", func(c *lane.Call, q *lane.PageQuery) (lane.ListOf[domain.Weight], error) {
		ss := c.Studio()
		if _, err := lane.Lookup(c.Ctx, ids.Trainee, c.ID(), ss.GetTrainee); err != nil {
			return lane.ListOf[domain.Weight]{}, err
		}
		res, err := ss.ListWeights(c.Ctx, c.ID(), q.Page())
		return lane.PageOf(res, q.Page()), err
	}, lane.Tool("list_trainee_weights"), lane.Trainee(auth.ScopeHealthRead),
		lane.Allow("items.id", "items.recordedAt", "items.weightKg", "total", "nextOffset"))
	lane.Add(rs, "POST", "/trainees/{id}/weights", "Log a trainee's weight.", a.logWeight, lane.Tool("log_weight"), lane.Created(),
		lane.Trainee(auth.ScopeHealthWrite), lane.TraineeTool("log_weight"), lane.Allow("id", "recordedAt", "weightKg"))
}

type logWeightInput struct {
	WeightKg   float64    `json:"weightKg" jsonschema:"Weight in kilograms, 20 to 350. When it is the latest weigh-in (by recordedAt) it becomes the profile's weightKg." lane:"min=20,max=350"`
	RecordedAt *time.Time `json:"recordedAt,omitempty" jsonschema:"When it was measured; now when omitted." when:"happened"`
}

func (a *Area) logWeight(c *lane.Call, in *logWeightInput) (domain.Weight, error) {
	var out domain.Weight
	err := c.InTx(func(ss store.StudioStore) error {
		t, err := lane.Lookup(c.Ctx, ids.Trainee, c.ID(), ss.GetTrainee)
		if err != nil {
			return err
		}
		now := c.Now().UTC()
		out = domain.Weight{ID: ids.New(ids.Weight), TraineeID: t.ID, WeightKg: in.WeightKg, RecordedAt: now, CreatedAt: now, LoggedBy: c.Author()}
		if in.RecordedAt != nil {
			out.RecordedAt = in.RecordedAt.UTC()
		}
		if err := ss.CreateWeight(c.Ctx, &out); err != nil {
			return err
		}
		return SyncProfileWeight(c, ss, t)
	})
	return out, err
}

// SyncProfileWeight makes the profile's weightKg the trainee's latest
// weigh-in (by recordedAt), which is what it means everywhere.
func SyncProfileWeight(c *lane.Call, ss store.StudioStore, t domain.Trainee) error {
	latest, err := ss.ListWeights(c.Ctx, t.ID, store.Page{Limit: 1})
	if err != nil || len(latest.Items) == 0 {
		return err
	}
	w := latest.Items[0].WeightKg
	if t.WeightKg != nil && *t.WeightKg == w {
		return nil
	}
	t.WeightKg = &w
	t.UpdatedAt = c.Now().UTC()
	return ss.UpdateTrainee(c.Ctx, &t)
}

// RecordProfileWeight logs the weight a create or update set on the
// profile as a weigh-in dated now, so the profile and the weigh-ins agree.
func RecordProfileWeight(c *lane.Call, ss store.StudioStore, traineeID string, kg *float64) error {
	if kg == nil {
		return nil
	}
	now := c.Now().UTC()
	return ss.CreateWeight(c.Ctx, &domain.Weight{ID: ids.New(ids.Weight), TraineeID: traineeID, WeightKg: *kg, RecordedAt: now, CreatedAt: now, LoggedBy: c.Author()})
}
