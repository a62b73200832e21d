package studio

import (
	"fmt"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/lane"
)

// The settings the weekly plan and the model budget read: the studio's
// language, the senior age, and the studio's own model budget below the
// operator's ceilings.

type planSettings struct {
	Language  string `json:"language"`
	SeniorAge int    `json:"seniorAge"`
	// The studio's model budget: its own where set below the operator's
	// ceilings, else the ceilings.
	ModelTokensPerPersonDay  int64 `json:"modelTokensPerPersonDay"`
	ModelTokensPerStudioHour int64 `json:"modelTokensPerStudioHour"`
}

type planSettingsInput struct {
	Language                 *string `json:"language,omitempty" jsonschema:"The studio's language, he (the default) or en: a weekly plan's summary, notes and next step, and the coach's task about it, are written in it." lane:"enum=he|en,null=false"`
	SeniorAge                *int    `json:"seniorAge,omitempty" jsonschema:"The age from which the weekly plan's senior rules apply, 40 to 90 (default 60)." lane:"min=40,max=90,null=false"`
	ModelTokensPerPersonDay  *int64  `json:"modelTokensPerPersonDay,omitempty" jsonschema:"The studio's model budget, tokens per person per day (the assistant's turns and weekly plans together), at most the operator's ceiling; 0 takes the ceiling." lane:"min=0,null=false"`
	ModelTokensPerStudioHour *int64  `json:"modelTokensPerStudioHour,omitempty" jsonschema:"The studio's model budget, tokens per hour for the whole studio, at most the operator's ceiling; 0 takes the ceiling." lane:"min=0,null=false"`
}

func planSettingsOf(st domain.Studio) planSettings {
	return planSettings{Language: st.Language(), SeniorAge: st.SeniorAge()}
}

// patchPlanSettings adds the plan settings in to patch, refusing a budget
// above the operator's ceiling with a sentence that names it.
func (a *Area) patchPlanSettings(c *lane.Call, in *studioSettingsInput, patch map[string]any) error {
	max := a.Budget.Or()
	for _, b := range []struct {
		field   string
		v       *int64
		ceiling int64
	}{{"modelTokensPerPersonDay", in.ModelTokensPerPersonDay, max.PersonDayTokens}, {"modelTokensPerStudioHour", in.ModelTokensPerStudioHour, max.StudioHourTokens}} {
		if b.v == nil {
			continue
		}
		if *b.v > b.ceiling {
			return lane.InvalidField(b.field, fmt.Sprintf("%s may be at most the operator's ceiling, %d tokens; got %d. Send a lower number, or 0 to take the ceiling.", b.field, b.ceiling, *b.v))
		}
		patch[b.field] = *b.v
	}
	if in.Language != nil {
		patch["language"] = *in.Language
	}
	if in.SeniorAge != nil {
		patch["seniorAge"] = *in.SeniorAge
	}
	return nil
}

// withBudget fills the answer's budget: the studio's limits.
func (a *Area) withBudget(s studioSettings, st domain.Studio) studioSettings {
	lim := a.Budget.Limits(st)
	s.ModelTokensPerPersonDay, s.ModelTokensPerStudioHour = lim.PersonDayTokens, lim.StudioHourTokens
	return s
}
