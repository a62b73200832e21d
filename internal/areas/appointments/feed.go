package appointments

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/store"
)

// A coach's calendar feed: a read-only iCalendar document of her
// appointments at a secret address, /calendar/{token}.ics, which a
// calendar app polls without a credential. Only the token's SHA-256 is
// kept; a new token revokes the one before, and a revoked or unknown one
// is 404.

// FeedPattern is the feed's route on the server (outside the lane: a
// calendar app sends no Authorization header).
const FeedPattern = "GET /calendar/{token}"

// feedPrefix marks a feed token.
const feedPrefix = "pfcal_"

// How far the feed reaches.
const (
	feedBack  = 30 * 24 * time.Hour
	feedAhead = 180 * 24 * time.Hour
	feedMax   = 1000
)

// FeedAnswer is a new feed address, shown once.
type FeedAnswer struct {
	CoachID string `json:"coachId"`
	Path    string `json:"path" jsonschema:"The feed's path on this server: add it after the server's address (https://YOUR-PERFORM-HOST/calendar/…) in a calendar app's subscribe by URL. Shown once; a new one revokes it."`
}

func newFeedToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return feedPrefix + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b))
}

func hashToken(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

func rotateFeed(c *lane.Call, _ *lane.NoInput) (FeedAnswer, error) {
	ss := c.Studio()
	coach, err := lane.Lookup(c.Ctx, ids.Coach, c.ID(), ss.GetCoach)
	if err != nil {
		return FeedAnswer{}, err
	}
	token := newFeedToken()
	if err := ss.SetCoachFeed(c.Ctx, coach.ID, hashToken(token), c.Now()); err != nil {
		return FeedAnswer{}, err
	}
	return FeedAnswer{CoachID: coach.ID, Path: "/calendar/" + token + ".ics"}, nil
}

// FeedRevoked is a revocation's answer.
type FeedRevoked struct {
	CoachID string `json:"coachId"`
	Revoked bool   `json:"revoked" jsonschema:"false when she had no feed."`
}

func revokeFeed(c *lane.Call, _ *lane.NoInput) (FeedRevoked, error) {
	ss := c.Studio()
	coach, err := lane.Lookup(c.Ctx, ids.Coach, c.ID(), ss.GetCoach)
	if err != nil {
		return FeedRevoked{}, err
	}
	done, err := ss.DropCoachFeed(c.Ctx, coach.ID)
	return FeedRevoked{CoachID: coach.ID, Revoked: done}, err
}

// Feed serves the coaches' calendar feeds from st (FeedPattern); now is
// the clock (nil: time.Now).
func Feed(st store.Store, logger *slog.Logger, now func() time.Time) http.Handler {
	if now == nil {
		now = time.Now
	}
	if logger == nil {
		logger = slog.Default()
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token, _ := strings.CutSuffix(r.PathValue("token"), ".ics")
		if !strings.HasPrefix(token, feedPrefix) || len(token) > 100 {
			http.NotFound(w, r)
			return
		}
		hash := hashToken(token)
		studioID, coachID, stored, err := store.CoachFeed(r.Context(), st, hash)
		if errors.Is(err, store.ErrNotFound) || err == nil && subtle.ConstantTimeCompare(stored, hash) != 1 {
			http.NotFound(w, r)
			return
		}
		if err != nil {
			logger.Error("calendar feed: reading the token failed", "err", err)
			http.Error(w, "The calendar could not be read; try again later.", http.StatusInternalServerError)
			return
		}
		body, err := feedOf(r, st, studioID, coachID, now().UTC())
		if err != nil {
			logger.Error("calendar feed: reading the appointments failed", "err", err)
			http.Error(w, "The calendar could not be read; try again later.", http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/calendar; charset=utf-8")
		w.Header().Set("Cache-Control", "private, max-age=300")
		_, _ = w.Write(body)
	})
}

// feedOf is the coach's calendar: one event per slot with a live or
// marked place, from feedBack ago to feedAhead on.
func feedOf(r *http.Request, st store.Store, studioID, coachID string, now time.Time) ([]byte, error) {
	ctx := r.Context()
	ss := st.Studio(studioID)
	coach, err := ss.GetCoach(ctx, coachID)
	if err != nil {
		return nil, err
	}
	list, err := ss.ListAppointments(ctx, store.AppointmentFilter{CoachID: coachID, From: now.Add(-feedBack), To: now.Add(feedAhead),
		Statuses: []string{domain.AppointmentBooked, domain.AppointmentAttended, domain.AppointmentNoShow}, Page: store.Page{Limit: feedMax}})
	if err != nil {
		return nil, err
	}
	var events []Event
	bySlot := map[string]int{}
	for _, a := range list.Items {
		t, err := ss.GetTrainee(ctx, a.TraineeID)
		if err != nil {
			return nil, err
		}
		name := strings.TrimSpace(t.FirstName + " " + t.LastName)
		if i, ok := bySlot[a.SlotID]; ok {
			events[i].Summary += ", " + name
			continue
		}
		bySlot[a.SlotID] = len(events)
		events = append(events, Event{UID: a.SlotID + "@perform", Start: a.StartsAt, End: a.EndsAt, Summary: name, Location: a.Place, Stamp: now})
	}
	return Calendar("-//Perform//Appointments of "+coach.Name+"//EN", coach.Name, events), nil
}
