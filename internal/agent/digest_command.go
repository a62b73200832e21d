package agent

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/otherwise/perform/internal/laneclient"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/tools"
)

// DigestCommand starts the messages with which a coach sets her morning
// digest from WhatsApp: "בוקר 7" (or "בוקר 07:00") turns it on at 07:00
// of the studio's day, "בוקר כבוי" turns it off. The change goes through
// the lane (PUT /coaches/{id}/digest) as the coach, like any tool call.
const DigestCommand = "בוקר"

var (
	digestOnRe  = regexp.MustCompile(`^` + DigestCommand + `\s+(\d{1,2})(?::00)?$`)
	digestOffRe = regexp.MustCompile(`^` + DigestCommand + `\s+(?:כבוי|off)$`)
)

// digestCommand reads a digest command: ok false when text is none.
func digestCommand(text string) (enabled bool, hour *int, ok bool) {
	text = strings.TrimSpace(text)
	if digestOffRe.MatchString(text) {
		return false, nil, true
	}
	m := digestOnRe.FindStringSubmatch(text)
	if m == nil {
		return false, nil, false
	}
	h, err := strconv.Atoi(m[1])
	if err != nil || h > 23 {
		return false, nil, false
	}
	return true, &h, true
}

// digestTurn answers a digest command; handled false when the turn's text
// is none. ctx speaks for the coach (auth.WithCoach).
func (a *Agent) digestTurn(ctx context.Context, t *turn, coach store.CoachRef, apiKey string) (decision, bool, error) {
	enabled, hour, ok := digestCommand(t.Text)
	if !ok {
		return decision{}, false, nil
	}
	body := map[string]any{"enabled": enabled}
	if hour != nil {
		body["hour"] = *hour
	}
	coachID := coach.Coach.ID
	_, err := a.lane.Do(ctx, apiKey, tools.Request{Method: http.MethodPut, Path: "/coaches/" + coachID + "/digest", Body: body})
	var le *laneclient.Error
	if errors.As(err, &le) && le.Status == http.StatusUnauthorized {
		if err := a.revoke(ctx, coach.StudioID, t.ID); err != nil {
			return decision{}, true, err
		}
		return decision{messages: []string{msgRevoked}, outcome: "revoked"}, true, nil
	}
	reply := msgDigestOff
	switch {
	case err != nil:
		a.log.WarnContext(ctx, "agent: setting the coach's morning digest failed", "coach", coachID, "err", err)
		reply = msgDigestFailed
	case enabled:
		reply = fmt.Sprintf(msgDigestOn, *hour)
	}
	return decision{messages: []string{reply}, history: []historyEntry{{"user", t.Text}, {"assistant", reply}}, outcome: "digest_set"}, true, nil
}

const (
	msgDigestOn     = "מעולה! כל בוקר ב-%02d:00 (שעון הסטודיו) אשלח לך כאן מי מהמתאמנים צריך אותך היום ולמה, עם הודעה קצרה לכל אחד שאפשר להעביר לו. לביטול שלחו: " + DigestCommand + " כבוי"
	msgDigestOff    = "הסיכום של הבוקר בוטל. כדי להפעיל שוב שלחו למשל: " + DigestCommand + " 7"
	msgDigestFailed = "לא הצלחתי לשנות את הסיכום של הבוקר כרגע. נסו שוב בעוד כמה דקות."
)
