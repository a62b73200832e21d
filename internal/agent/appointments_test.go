package agent

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/agent/fakes"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/tools"
)

// A trainee books, asks for her next session and cancels tomorrow's in
// Hebrew on WhatsApp; a bare "בטל" stays the undo of her last log and
// cancels no appointment.
func TestTraineeBooksAndCancelsByWhatsApp(t *testing.T) {
	forEngine(t, func(t *testing.T, st store.Store) {
		e := newTraineeEnv(t, st)
		e.turnOn(true)
		var hours []map[string]any
		for _, d := range []string{"sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"} {
			hours = append(hours, map[string]any{"day": d, "from": "07:00", "to": "21:00"})
		}
		if _, err := e.coachLane.Do(context.Background(), e.key, tools.Request{Method: "PUT", Path: "/coaches/" + e.coach.ID + "/hours", Body: map[string]any{"hours": hours}}); err != nil {
			t.Fatal(err)
		}
		appointments := func() []any {
			day := func(n int) string { return time.Now().AddDate(0, 0, n).Format(time.DateOnly) }
			list := e.coachGet("/appointments", url.Values{"traineeId": {e.dana.ID}, "from": {day(-1)}, "to": {day(3)}})
			items, _ := list["items"].([]any)
			return items
		}
		var toolResults []string
		var booked string
		e.setScript(func(_ int, req fakes.MessagesRequest) fakes.Reply {
			if res := req.ToolResults(); len(res) > 0 {
				toolResults = append(toolResults, res[0].ResultText())
				return fakes.Text("בסדר")
			}
			switch req.LastUserText() {
			case "תקבע לי אימון מחר ב-18:00":
				return fakes.CallTool("book_appointment", map[string]any{"day": "מחר", "time": "18:00"})
			case "מתי האימון הבא שלי?":
				return fakes.CallTool("list_my_appointments", map[string]any{})
			case "תבטל את האימון של מחר":
				return fakes.CallTool("cancel_appointment", map[string]any{"appointmentId": booked})
			}
			return fakes.Text("תשובה")
		})
		e.say(danaPhone, "כן")

		if got := joined(e.say(danaPhone, "תקבע לי אימון מחר ב-18:00")); !strings.Contains(got, "📅 נקבע תור ל-") || !strings.Contains(got, "18:00") {
			t.Fatalf("booking answered %q (tool: %v)", got, toolResults)
		}
		items := appointments()
		if len(items) != 1 || items[0].(map[string]any)["status"] != "booked" || items[0].(map[string]any)["bookedBy"] != "trainee" {
			t.Fatalf("the coach sees %v", items)
		}
		booked = items[0].(map[string]any)["id"].(string)

		// A bare בטל is the undo word: it withdraws no appointment.
		if got := joined(e.say(danaPhone, "בטל")); got != msgNothingToUndo {
			t.Errorf("a bare בטל answered %q", got)
		}
		if items := appointments(); len(items) != 1 || items[0].(map[string]any)["status"] != "booked" {
			t.Fatalf("after a bare בטל the coach sees %v", items)
		}

		e.say(danaPhone, "מתי האימון הבא שלי?")
		if last := toolResults[len(toolResults)-1]; !strings.Contains(last, booked) || strings.Contains(last, e.coach.Name) {
			t.Errorf("her next appointment read %q", last)
		}

		if got := joined(e.say(danaPhone, "תבטל את האימון של מחר")); !strings.Contains(got, "❌ בוטל התור של") {
			t.Errorf("cancelling answered %q (tool: %v)", got, toolResults[len(toolResults)-1])
		}
		if items := appointments(); len(items) != 1 || !strings.Contains(items[0].(map[string]any)["status"].(string), "cancelled") {
			t.Fatalf("after cancelling the coach sees %v", items)
		}
	})
}
