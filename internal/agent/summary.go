package agent

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/otherwise/perform/internal/tools"
)

// dryRunAnswer is the lane's answer to a dry run (lane.dryRunAnswer): what
// the write would answer, and the names of the records it concerns.
type dryRunAnswer struct {
	DryRun bool              `json:"dryRun"`
	Status int               `json:"status"`
	Data   json.RawMessage   `json:"data"`
	Names  map[string]string `json:"names"`
}

// summarize is the plain Hebrew line a coach reads for a proposed write,
// from the arguments and what the dry run said the lane would do (the
// dates it chose, the names of the trainee and the plan).
func summarize(tool string, args json.RawMessage, dry dryRunAnswer) string {
	var in, out map[string]any
	_ = json.Unmarshal(args, &in)
	_ = json.Unmarshal(dry.Data, &out)
	if in == nil {
		in = map[string]any{}
	}
	if out == nil {
		out = map[string]any{}
	}
	name := func(id string) string {
		if n := dry.Names[id]; n != "" {
			return n
		}
		return "המתאמן"
	}
	trainee := name(firstString(out, "traineeId", "clientId", "id"))
	if id := str(in, "traineeId"); id != "" {
		trainee = name(id)
	}
	switch tool {
	case "log_weight":
		return fmt.Sprintf("לרשום ל%s משקל %s ק\"ג (%s)", trainee, number(out["weightKg"]), hebrewDay(str(out, "recordedAt")))
	case "assign_plan":
		s := fmt.Sprintf("להתחיל ל%s את המנוי \"%s\" ב-%s", trainee, str(out, "productName"), hebrewDay(str(out, "startedOn")))
		if end := str(out, "endsOn"); end != "" {
			s += ", עד " + hebrewDay(end)
		}
		if p, ok := out["price"].(float64); ok {
			s += fmt.Sprintf(", במחיר %s %s", number(p), str(out, "currency"))
		}
		return s
	case "assign_program":
		s := fmt.Sprintf("לתת ל%s את תוכנית האימון \"%s\" החל מ-%s", trainee, str(out, "name"), hebrewDay(str(out, "startsOn")))
		if n, _ := out["sessionsPlanned"].(float64); n > 0 {
			s += fmt.Sprintf(" (%s אימונים מתוכננים, עד %s)", number(n), hebrewDay(str(out, "lastSessionOn")))
		}
		return s
	case "send_form":
		s := fmt.Sprintf("לשלוח ל%s את השאלון \"%s\"", trainee, str(out, "formName"))
		if due := str(out, "dueAt"); due != "" {
			s += " להגשה עד " + hebrewDay(due)
		}
		if b, ok := in["notify"].(bool); ok && !b {
			return s + " (בלי הודעה למתאמן)"
		}
		return s + " (המתאמן יקבל הודעה על השאלון)"
	case "update_task":
		s := fmt.Sprintf("לעדכן את המשימה \"%s\"", str(out, "title"))
		var changes []string
		switch str(in, "status") {
		case "done":
			changes = append(changes, "לסמן כבוצעה")
		case "open":
			changes = append(changes, "לפתוח מחדש")
		}
		if until := str(out, "snoozeUntil"); until != "" && (str(in, "snoozeUntil") != "" || str(in, "status") == "snoozed") {
			changes = append(changes, "לדחות עד "+hebrewDay(until))
		}
		if _, ok := in["priority"]; ok {
			changes = append(changes, "עדיפות "+number(in["priority"]))
		}
		if len(changes) > 0 {
			s += ": " + strings.Join(changes, ", ")
		}
		return s
	case "update_trainee":
		var changes []string
		for _, f := range traineeFields {
			v, ok := in[f.key]
			if !ok {
				continue
			}
			changes = append(changes, f.label+" ← "+shown(v, dry.Names))
		}
		return fmt.Sprintf("לעדכן את הפרטים של %s: %s", trainee, strings.Join(changes, ", "))
	case "log_workout":
		session, _ := out["session"].(map[string]any)
		s := fmt.Sprintf("לרשום ל%s אימון %s ב-%s", trainee, sessionName(session), hebrewDay(str(session, "date")))
		if d, ok := session["durationMin"].(float64); ok {
			s += fmt.Sprintf(" (%s דק')", number(d))
		}
		if done, _ := out["alreadyLogged"].(bool); done {
			s += " (כבר רשום: לא יירשם שוב)"
		}
		return s
	case "create_planned_session":
		s := fmt.Sprintf("לתכנן ל%s אימון %s ב-%s", trainee, sessionName(out), hebrewDay(str(out, "date")))
		if at := str(out, "startTime"); at != "" {
			s += " בשעה " + at
		}
		if d, ok := out["durationMin"].(float64); ok {
			s += fmt.Sprintf(" (%s דק')", number(d))
		}
		return s + " (המתאמן לא מקבל הודעה)"
	}
	if t, ok := tools.ByName(tool); ok {
		return t.Title
	}
	return tool
}

// traineeFields are update_trainee's fields as the coach reads them, in order.
var traineeFields = []struct{ key, label string }{
	{"firstName", "שם פרטי"}, {"lastName", "שם משפחה"}, {"phone", "טלפון"}, {"status", "סטטוס"},
	{"startedOn", "תאריך התחלה"}, {"email", "אימייל"}, {"birthDate", "תאריך לידה"}, {"gender", "מין"},
	{"heightCm", "גובה (ס\"מ)"}, {"weightKg", "משקל (ק\"ג)"}, {"goal", "מטרה"}, {"stepsGoal", "יעד צעדים"},
	{"tags", "תגיות"}, {"coachIds", "מאמנים"},
}

var sportNames = map[string]string{
	"strength": "כוח", "running": "ריצה", "cycling": "רכיבה", "swimming": "שחייה", "walking": "הליכה",
	"mobility": "מוביליטי", "conditioning": "כושר", "yoga": "יוגה", "pilates": "פילאטיס", "hiit": "HIIT",
}

func sessionName(s map[string]any) string {
	sport := str(s, "sport")
	if he := sportNames[sport]; he != "" {
		sport = he
	}
	if title := str(s, "title"); title != "" && title != str(s, "sport") {
		return fmt.Sprintf("\"%s\" (%s)", title, sport)
	}
	return sport
}

// shown is a field's new value as the coach reads it; ids by their names.
func shown(v any, names map[string]string) string {
	switch x := v.(type) {
	case nil:
		return "ריק"
	case string:
		if n := names[x]; n != "" {
			return n
		}
		if len(x) == len(time.DateOnly) {
			if _, err := time.Parse(time.DateOnly, x); err == nil {
				return hebrewDay(x)
			}
		}
		return x
	case float64:
		return number(x)
	case []any:
		if len(x) == 0 {
			return "ריק"
		}
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = shown(e, names)
		}
		return strings.Join(parts, ", ")
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func str(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}

func firstString(m map[string]any, keys ...string) string {
	for _, k := range keys {
		if s := str(m, k); s != "" {
			return s
		}
	}
	return ""
}

func number(v any) string {
	f, ok := v.(float64)
	if !ok {
		return fmt.Sprint(v)
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// hebrewDay is an ISO date or instant as an Israeli reader writes the day:
// 15.12.2026 (an instant on its day in Israel).
func hebrewDay(s string) string {
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t.Format("2.1.2006")
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.In(jerusalem).Format("2.1.2006")
	}
	return s
}
