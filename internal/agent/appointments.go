package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/otherwise/perform/internal/tools"
)

// The lines a trainee reads for her appointments on WhatsApp, and the line
// a coach reads for a proposed booking. A booking, a cancellation or a move
// is no record undo withdraws: a bare "בטל" stays the undo of the last workout,
// check-in or weigh-in, and cancelling an appointment names it.

// bookedAnswer is what a booking or a cancellation answers a trainee (the
// lane's trainee allow list keeps these fields).
type bookedAnswer struct {
	ID         string    `json:"id"`
	StartsAt   time.Time `json:"startsAt"`
	Place      string    `json:"place"`
	Status     string    `json:"status"`
	Position   *int      `json:"position"`
	CreditKept bool      `json:"creditKept"`
}

// hebrewWhen is an instant as a trainee in Israel reads it: "3.12.2026 18:00".
func hebrewWhen(t time.Time) string { return t.In(jerusalem).Format("2.1.2006 15:04") }

func bookingReceipt(data json.RawMessage, _ exerciseNames) (string, string, error) {
	out, err := decode[bookedAnswer]("the lane's answer", data)
	if err != nil {
		return "", "", err
	}
	line := "📅 נקבע תור ל-" + hebrewWhen(out.StartsAt)
	if out.Status == "waitlisted" && out.Position != nil {
		line = fmt.Sprintf("⏳ התור ל-%s מלא: נרשמת לרשימת ההמתנה (מקום %d)", hebrewWhen(out.StartsAt), *out.Position)
	}
	if out.Place != "" {
		line += ", " + out.Place
	}
	return line, "", nil
}

func cancellationReceipt(data json.RawMessage, _ exerciseNames) (string, string, error) {
	out, err := decode[bookedAnswer]("the lane's answer", data)
	if err != nil {
		return "", "", err
	}
	line := "❌ בוטל התור של " + hebrewWhen(out.StartsAt)
	if out.CreditKept {
		line += " (ביטול מאוחר: האימון נספר מהחבילה)"
	}
	return line, "", nil
}

// moveReceipt is the line of a move: the new time, or her place on the
// new slot's waiting list when she asked to wait.
func moveReceipt(data json.RawMessage, _ exerciseNames) (string, string, error) {
	out, err := decode[bookedAnswer]("the lane's answer", data)
	if err != nil {
		return "", "", err
	}
	line := "🔁 התור הועבר ל-" + hebrewWhen(out.StartsAt)
	if out.Status == "waitlisted" && out.Position != nil {
		line = fmt.Sprintf("🔁 התור הועבר: ל-%s נרשמת לרשימת ההמתנה (מקום %d)", hebrewWhen(out.StartsAt), *out.Position)
	}
	if out.Place != "" {
		line += ", " + out.Place
	}
	return line, "", nil
}

func bookingProposal(p proposal) (string, error) {
	out, err := decode[struct {
		bookedAnswer
		Trainee string `json:"trainee"`
	}]("the dry run's answer", p.dry.Data)
	if err != nil {
		return "", err
	}
	line := "לקבוע תור ל" + out.Trainee + " ב-" + hebrewWhen(out.StartsAt)
	if out.Status == "waitlisted" {
		line += " (רשימת המתנה)"
	}
	return line, nil
}

// digestAppointmentsMax bounds the day's appointments a digest lists.
const digestAppointmentsMax = 12

// todaysAppointments are the coach's booked appointments of her studio's
// today, one line each ("08:00 דנה לוי, Studio A"), read through the lane
// as her.
func (a *Agent) todaysAppointments(ctx context.Context, apiKey, coachID string, zone *time.Location) ([]string, error) {
	raw, err := a.lane.Do(ctx, apiKey, tools.Request{Method: http.MethodGet, Path: "/appointments",
		Query: url.Values{"coachId": {coachID}, "status": {"booked"}, "limit": {strconv.Itoa(digestAppointmentsMax)}}})
	if err != nil {
		return nil, fmt.Errorf("reading the day's appointments: %w", err)
	}
	var page struct {
		Items []struct {
			Trainee  string    `json:"trainee"`
			StartsAt time.Time `json:"startsAt"`
			Place    string    `json:"place"`
		} `json:"items"`
		Total int `json:"total"`
	}
	if err := json.Unmarshal(raw, &page); err != nil {
		return nil, fmt.Errorf("reading the day's appointments' answer: %w", err)
	}
	var out []string
	for _, x := range page.Items {
		line := x.StartsAt.In(zone).Format("15:04") + " " + x.Trainee
		if x.Place != "" {
			line += ", " + x.Place
		}
		out = append(out, line)
	}
	if more := page.Total - len(page.Items); more > 0 {
		out = append(out, fmt.Sprintf("ועוד %d", more))
	}
	return out, nil
}
