package studio

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/text"
)

// The coach's morning digest on WhatsApp (internal/agent, digest.go): each
// coach opts in and sets her hour of the studio's day; the studio names the
// approved WhatsApp template that carries the digest outside the 24-hour
// window (PATCH /studio/settings, digestTemplate). No tool sets either.

// DefaultDigestHour is the hour a coach who opts in without one gets.
const DefaultDigestHour = 7

type digestSetting struct {
	CoachID string `json:"coachId"`
	Enabled bool   `json:"enabled" jsonschema:"Whether the coach gets her roster triage on WhatsApp every morning."`
	Hour    int    `json:"hour" jsonschema:"The hour of the studio's day (0-23) the digest goes out."`
	// TimeZone is the studio's, which the hour is in.
	TimeZone string `json:"timeZone"`
	// Template is the studio's digestTemplate ("" without one).
	Template string `json:"digestTemplate"`
}

type digestInput struct {
	Enabled bool `json:"enabled" jsonschema:"true: the coach gets her roster triage on WhatsApp every morning; false: she does not."`
	Hour    *int `json:"hour,omitempty" jsonschema:"The hour of the studio's day (0-23) the digest goes out; kept as it is when omitted (7 the first time)." lane:"min=0,max=23,null=false"`
}

func (a *Area) digestRoutes(rs *lane.Routes) {
	lane.Add(rs, "GET", "/coaches/{id}/digest", "A coach's morning digest on WhatsApp: whether she gets it and at which hour of the studio's day.", a.getDigest)
	lane.Add(rs, "PUT", "/coaches/{id}/digest", "Turn a coach's morning digest on WhatsApp on or off and set its hour. A coach sets only her own; a studio key any of the studio's coaches'.", a.putDigest)
}

// digestCoach checks the path's coach: the studio's, and the caller's own
// when a coach is asking.
func digestCoach(c *lane.Call) (domain.Coach, error) {
	co, err := lane.Lookup(c.Ctx, ids.Coach, c.ID(), c.Studio().GetCoach)
	if err != nil {
		return co, err
	}
	if me := c.Coach(); me != "" && me != co.ID {
		return co, &lane.Error{Status: http.StatusForbidden, Code: lane.CodeForbidden,
			Message: fmt.Sprintf("A coach reads and sets only her own morning digest; you are %s. Use your own coach id, or ask the studio to set it with a studio key.", me)}
	}
	return co, nil
}

func (a *Area) getDigest(c *lane.Call, _ *lane.NoInput) (digestSetting, error) {
	co, err := digestCoach(c)
	if err != nil {
		return digestSetting{}, err
	}
	s, err := c.DB().Digests().DigestSetting(c.Ctx, c.P.StudioID, co.ID)
	if err != nil {
		return digestSetting{}, err
	}
	if !s.Set {
		s.Hour = DefaultDigestHour
	}
	return digestAnswer(c, s)
}

func (a *Area) putDigest(c *lane.Call, in *digestInput) (digestSetting, error) {
	co, err := digestCoach(c)
	if err != nil {
		return digestSetting{}, err
	}
	ds := c.DB().Digests()
	s, err := ds.DigestSetting(c.Ctx, c.P.StudioID, co.ID)
	if err != nil {
		return digestSetting{}, err
	}
	if !s.Set {
		s.Hour = DefaultDigestHour
	}
	if in.Hour != nil {
		s.Hour = *in.Hour
	}
	s.Enabled, s.UpdatedAt = in.Enabled, c.Now().UTC()
	if err := ds.SetDigestSetting(c.Ctx, s); err != nil {
		return digestSetting{}, err
	}
	c.SetResource(co.ID)
	return digestAnswer(c, s)
}

func digestAnswer(c *lane.Call, s store.DigestSetting) (digestSetting, error) {
	st, err := c.DB().StudioByID(c.Ctx, c.P.StudioID)
	if err != nil {
		return digestSetting{}, err
	}
	return digestSetting{CoachID: s.CoachID, Enabled: s.Enabled, Hour: s.Hour, TimeZone: c.Zone().String(), Template: st.DigestTemplate()}, nil
}

// templateSetting reads digestTemplate from a settings PATCH: ok false
// when the field was not sent; name "" clears it.
func templateSetting(c *lane.Call, in *studioSettingsInput) (name string, ok bool, err error) {
	if !c.Has("digestTemplate") {
		return "", false, nil
	}
	if in.DigestTemplate == nil {
		return "", true, nil
	}
	name = strings.TrimSpace(*in.DigestTemplate)
	if name != "" && !domain.ValidTemplateName(name) {
		return "", false, lane.InvalidField("digestTemplate", fmt.Sprintf("digestTemplate must be the name of an approved WhatsApp template: lowercase letters, digits and underscores, such as morning_digest; %q is not one. Send null or \"\" to remove it.", text.Truncate(name, 100)))
	}
	return name, true, nil
}
