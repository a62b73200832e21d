// Package lanetest is the lane's test harness with every area: a lane of
// areas.All on a migrated store (SQLite, and PostgreSQL when
// PERFORM_TEST_POSTGRES_URL is set), one that also takes OAuth grants, and
// the OpenAPI document of the whole lane. Its core, which links no area,
// is lanetest/kit. For tests only: no area's own code imports it.
package lanetest

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/areas"
	"github.com/otherwise/perform/internal/areas/weekplans"
	"github.com/otherwise/perform/internal/auth/credentials"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/oauth"
	"github.com/otherwise/perform/internal/ratelimit"
	"github.com/otherwise/perform/internal/store"
)

// New is a lane of every area on st (o.Areas, when set, instead), behind a
// server on 127.0.0.1, taking studio keys.
func New(t *testing.T, st store.Store, opts ...kit.Options) *kit.Env {
	t.Helper()
	var o kit.Options
	if len(opts) > 0 {
		o = opts[0]
	}
	if o.Areas == nil {
		o.Areas = areas.All(areas.Options{})
	}
	return kit.New(t, st, o)
}

// TraineeOptions are the person limits of a lane that admits OAuth grants.
type TraineeOptions struct {
	Reads, Writes ratelimit.Limiter
	Now           func() time.Time // the lane's clock; nil: time.Now
	WeekPlans     weekplans.Options
	Limits        map[string]ratelimit.Limiter // the areas' declared limits (lane.Options.Limits)
	// Areas, when set, is handed the areas before the lane serves them
	// (to give the weekly plans their River client).
	Areas func(*areas.Set)
}

// NewTrainee is a lane that takes OAuth access tokens beside studio keys,
// as the server composes it.
func NewTrainee(t *testing.T, st store.Store, o TraineeOptions) *kit.Env {
	t.Helper()
	set := areas.New(areas.Options{WeekPlans: o.WeekPlans})
	if o.Areas != nil {
		o.Areas(set)
	}
	return kit.New(t, st, kit.Options{Now: o.Now, Areas: set.Areas(), TraineeReads: o.Reads, TraineeWrites: o.Writes, Limits: o.Limits,
		Authenticator: credentials.New(credentials.Options{Keys: st, Grants: oauth.New(oauth.Options{Store: st})})})
}

// OpenAPIParam is a parameter of the OpenAPI document.
type OpenAPIParam struct {
	Name        string `json:"name"`
	In          string `json:"in"`
	Required    bool   `json:"required"`
	Description string `json:"description"`
}

// OpenAPIDoc is the whole lane's OpenAPI document, its parameters read.
func OpenAPIDoc(t *testing.T) (doc struct {
	Paths map[string]map[string]struct {
		Parameters []OpenAPIParam `json:"parameters"`
	} `json:"paths"`
}) {
	t.Helper()
	if err := json.Unmarshal(areas.Lane(lane.Options{}).OpenAPI(), &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}
