package agent

import (
	"context"
	"encoding/json"
	"net/url"
	"slices"
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

// A trainee moves tomorrow's appointment to Thursday at 18:00 on WhatsApp,
// in Hebrew and in English, by her consent rules: nothing is moved before
// her yes; after it, the move runs at once as her and is echoed in one
// line; a bare "בטל" does not undo it; within the studio's notice the
// lane refuses her move and it stays where it was.
func TestTraineeMovesAnAppointmentByWhatsApp(t *testing.T) {
	forEngine(t, func(t *testing.T, st store.Store) {
		now := time.Now().In(jerusalem)
		tomorrow := now.AddDate(0, 0, 1)
		e := newTraineeEnv(t, st)
		e.turnOn(true)
		lane := func(method, path string, body any) json.RawMessage {
			t.Helper()
			raw, err := e.coachLane.Do(context.Background(), e.key, tools.Request{Method: method, Path: path, Body: body})
			if err != nil {
				t.Fatalf("%s %s: %v", method, path, err)
			}
			return raw
		}
		var hours []map[string]any
		for _, d := range []string{"sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"} {
			hours = append(hours, map[string]any{"day": d, "from": "07:00", "to": "21:00"})
		}
		lane("PUT", "/coaches/"+e.coach.ID+"/hours", map[string]any{"hours": hours})
		live := func() []map[string]any {
			list := e.coachGet("/appointments", url.Values{"traineeId": {e.dana.ID}, "from": {now.Format(time.DateOnly)}, "to": {now.AddDate(0, 0, 14).Format(time.DateOnly)}, "status": {"booked"}})
			var out []map[string]any
			for _, x := range list["items"].([]any) {
				out = append(out, x.(map[string]any))
			}
			return out
		}
		var toolResults []string
		var booked, moved string
		words := map[string]map[string]any{}
		e.setScript(func(_ int, req fakes.MessagesRequest) fakes.Reply {
			if res := req.ToolResults(); len(res) > 0 {
				toolResults = append(toolResults, res[0].ResultText())
				return fakes.Text("ok")
			}
			if args, ok := words[req.LastUserText()]; ok {
				return fakes.CallTool("move_appointment", args)
			}
			return fakes.Text("?")
		})

		for i, c := range []struct {
			lang, say, thursday string
		}{
			{"hebrew", "תעביר את האימון של מחר ליום חמישי ב-18:00", "ליום חמישי"},
			{"english", "move tomorrow's to Thursday 18:00", "thursday"},
		} {
			if now.Weekday() == time.Thursday || tomorrow.Weekday() == time.Thursday { // the Thursday after tomorrow, as she means it
				c.thursday = map[string]string{"hebrew": "ליום חמישי הבא", "english": "next thursday"}[c.lang]
			}
			if i > 0 { // the Thursday of the language before is freed
				lane("POST", "/appointments/"+moved+"/cancel", nil)
			}
			var b struct {
				ID string `json:"id"`
			}
			if err := json.Unmarshal(lane("POST", "/trainees/"+e.dana.ID+"/appointments", map[string]any{"day": tomorrow.Format(time.DateOnly), "time": "18:00"}), &b); err != nil || b.ID == "" {
				t.Fatalf("booking tomorrow's: %v", err)
			}
			booked = b.ID
			words[c.say] = map[string]any{"appointmentId": booked, "day": c.thursday, "time": "18:00"}

			if i == 0 {
				// Before her yes nothing is read or moved.
				if got := joined(e.say(danaPhone, c.say)); !strings.Contains(got, `ענו "כן"`) || len(toolResults) > 0 {
					t.Fatalf("before her yes a move answered %q (tools: %v)", got, toolResults)
				}
				if l := live(); len(l) != 1 || l[0]["id"] != booked {
					t.Fatalf("before her yes the coach sees %v", l)
				}
				e.say(danaPhone, "כן")
			}

			got := joined(e.say(danaPhone, c.say))
			l := live()
			if len(l) != 1 || l[0]["id"] == booked || l[0]["bookedBy"] != "trainee" {
				t.Fatalf("%s: after the move the coach sees %v (tool: %v)", c.lang, l, toolResults)
			}
			moved = l[0]["id"].(string)
			at, _ := time.Parse(time.RFC3339, l[0]["startsAt"].(string))
			if at = at.In(jerusalem); at.Weekday() != time.Thursday || at.Format("15:04") != "18:00" || !at.After(tomorrow) {
				t.Errorf("%s: moved to %s, not the coming Thursday at 18:00", c.lang, at)
			}
			if want := "🔁 התור הועבר ל-" + hebrewWhen(at); !strings.Contains(got, want) {
				t.Errorf("%s: the move answered %q, want the line %q", c.lang, got, want)
			}

			// A bare בטל is the undo of her logs: the move stays.
			if got := joined(e.say(danaPhone, "בטל")); got != msgNothingToUndo {
				t.Errorf("%s: a bare בטל answered %q", c.lang, got)
			}
			if l := live(); len(l) != 1 || l[0]["id"] != moved {
				t.Fatalf("%s: after a bare בטל the coach sees %v", c.lang, l)
			}
		}

		// Within the studio's notice (a week here) the lane refuses her
		// move in words, and nothing moves.
		lane("PATCH", "/appointment-settings", map[string]any{"lateCancelHours": 168})
		var soon struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal(lane("POST", "/trainees/"+e.dana.ID+"/appointments", map[string]any{"day": tomorrow.Format(time.DateOnly), "time": "12:00"}), &soon); err != nil || soon.ID == "" {
			t.Fatalf("booking tomorrow at noon: %v", err)
		}
		late := "תעביר את האימון של מחר ב-12 ליום ראשון ב-10:00"
		words[late] = map[string]any{"appointmentId": soon.ID, "day": "ליום ראשון", "time": "10:00"}
		got := joined(e.say(danaPhone, late))
		if last := toolResults[len(toolResults)-1]; !strings.Contains(last, "168 hours") || strings.Contains(got, "🔁") {
			t.Errorf("a late move answered %q (tool: %s)", got, last)
		}
		if l := live(); len(l) != 2 || !slices.ContainsFunc(l, func(x map[string]any) bool { return x["id"] == soon.ID }) {
			t.Fatalf("after a refused late move the coach sees %v", l)
		}
	})
}
