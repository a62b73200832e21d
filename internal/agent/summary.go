package agent

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/otherwise/perform/internal/answers"
	"github.com/otherwise/perform/internal/domain"
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

// proposal is a proposed write as its line reads it: the tool's arguments
// and what the dry run said the lane would do.
type proposal struct {
	args json.RawMessage
	dry  dryRunAnswer
}

// proposalLines write, per tool, the plain Hebrew line a coach reads for a
// proposed write, from the arguments and the dry run's answer decoded into
// the route's own answer type (the dates the lane chose, the names of the
// trainee and the plan).
var proposalLines = map[string]func(proposal) (string, error){
	"log_weight":             weightProposal,
	"assign_plan":            planProposal,
	"assign_program":         programProposal,
	"send_form":              formProposal,
	"update_task":            taskProposal,
	"update_trainee":         traineeProposal,
	"log_workout":            workoutProposal,
	"create_planned_session": plannedSessionProposal,
	"book_appointment":       bookingProposal,
}

// summarize is the line a coach reads for a proposed write: proposalLines',
// else the tool's title. An answer that does not read as its route's type
// is an error, never a line with blanks.
func summarize(tool string, args json.RawMessage, dry dryRunAnswer) (string, error) {
	line, ok := proposalLines[tool]
	if !ok {
		return toolTitle(tool), nil
	}
	s, err := line(proposal{args: args, dry: dry})
	if err != nil {
		return "", fmt.Errorf("the proposal of %s: %w", tool, err)
	}
	return s, nil
}

// unreadProposal is the line of a proposal whose answer could not be read:
// the tool's title, and that its details are missing.
func unreadProposal(tool string) string {
	return toolTitle(tool) + " (לא הצלחתי להציג את פרטי השינוי)"
}

func toolTitle(tool string) string {
	if t, ok := tools.ByName(tool); ok {
		return t.Title
	}
	return tool
}

// decode is raw decoded into T; what names it in the error.
func decode[T any](what string, raw json.RawMessage) (T, error) {
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		return v, fmt.Errorf("reading %s: %w", what, err)
	}
	return v, nil
}

// read is the proposal's arguments as In and its dry run's data as Out,
// the route's answer type.
func read[In, Out any](p proposal) (In, Out, error) {
	in, err := decode[In]("the arguments", p.args)
	if err != nil {
		var out Out
		return in, out, err
	}
	out, err := decode[Out]("the lane's answer", p.dry.Data)
	return in, out, err
}

// traineeArgs are the arguments of a write about one trainee (the route's
// {id}).
type traineeArgs struct {
	TraineeID string `json:"traineeId"`
}

// name is the display name of a record the dry run named.
func (p proposal) name(id string) string {
	if n := p.dry.Names[id]; n != "" {
		return n
	}
	return "המתאמן"
}

func weightProposal(p proposal) (string, error) {
	in, out, err := read[traineeArgs, domain.Weight](p)
	return fmt.Sprintf("לרשום ל%s משקל %s ק\"ג (%s)", p.name(in.TraineeID), number(out.WeightKg), hebrewInstant(out.RecordedAt)), err
}

func planProposal(p proposal) (string, error) {
	in, out, err := read[traineeArgs, domain.Subscription](p)
	s := fmt.Sprintf("להתחיל ל%s את המנוי \"%s\" ב-%s", p.name(in.TraineeID), out.ProductName, hebrewDay(out.StartedOn))
	if out.EndsOn != nil {
		s += ", עד " + hebrewDay(*out.EndsOn)
	}
	if out.Price != nil {
		s += ", במחיר " + out.Price.String()
	}
	return s, err
}

func programProposal(p proposal) (string, error) {
	in, out, err := read[traineeArgs, answers.AssignedProgram](p)
	s := fmt.Sprintf("לתת ל%s את תוכנית האימון \"%s\" החל מ-%s", p.name(in.TraineeID), out.Name, hebrewDay(out.StartsOn))
	if out.SessionsPlanned > 0 && out.LastSessionOn != nil {
		s += fmt.Sprintf(" (%d אימונים מתוכננים, עד %s)", out.SessionsPlanned, hebrewDay(*out.LastSessionOn))
	}
	return s, err
}

func formProposal(p proposal) (string, error) {
	in, out, err := read[struct {
		traineeArgs
		Notify *bool `json:"notify"`
	}, domain.FormAssignment](p)
	s := fmt.Sprintf("לשלוח ל%s את השאלון \"%s\"", p.name(in.TraineeID), out.FormName)
	if out.DueAt != nil {
		s += " להגשה עד " + hebrewInstant(*out.DueAt)
	}
	if in.Notify != nil && !*in.Notify {
		return s + " (בלי הודעה למתאמן)", err
	}
	return s + " (המתאמן יקבל הודעה על השאלון)", err
}

// taskArgs are what update_task's line reads of its arguments.
type taskArgs struct {
	Status      string  `json:"status"`
	SnoozeUntil *string `json:"snoozeUntil"`
	Priority    *int    `json:"priority"`
}

func taskProposal(p proposal) (string, error) {
	in, out, err := read[taskArgs, domain.Task](p)
	var changes []string
	switch in.Status {
	case domain.TaskDone:
		changes = append(changes, "לסמן כבוצעה")
	case domain.TaskOpen:
		changes = append(changes, "לפתוח מחדש")
	}
	if out.SnoozeUntil != nil && (in.SnoozeUntil != nil || in.Status == domain.TaskSnoozed) {
		changes = append(changes, "לדחות עד "+hebrewInstant(*out.SnoozeUntil))
	}
	if in.Priority != nil {
		changes = append(changes, "עדיפות "+strconv.Itoa(*in.Priority))
	}
	s := fmt.Sprintf("לעדכן את המשימה \"%s\"", out.Title)
	if len(changes) > 0 {
		s += ": " + strings.Join(changes, ", ")
	}
	return s, err
}

// traineeProposal lists the fields update_trainee changes, in the order a
// coach reads them: its arguments are the changes, by presence.
func traineeProposal(p proposal) (string, error) {
	in, _, err := read[traineeArgs, domain.Trainee](p)
	if err != nil {
		return "", err
	}
	fields, err := decode[map[string]any]("the arguments", p.args)
	var changes []string
	for _, f := range traineeFields {
		if v, ok := fields[f.key]; ok {
			changes = append(changes, f.label+" ← "+shown(v, p.dry.Names))
		}
	}
	return fmt.Sprintf("לעדכן את הפרטים של %s: %s", p.name(in.TraineeID), strings.Join(changes, ", ")), err
}

func workoutProposal(p proposal) (string, error) {
	in, out, err := read[traineeArgs, answers.LoggedWorkout](p)
	s := fmt.Sprintf("לרשום ל%s אימון %s ב-%s", p.name(in.TraineeID), sessionName(out.Session), hebrewDay(out.Session.Date))
	if d := out.Session.DurationMin; d != nil {
		s += fmt.Sprintf(" (%d דק')", *d)
	}
	if out.AlreadyLogged {
		s += " (כבר רשום: לא יירשם שוב)"
	}
	return s, err
}

func plannedSessionProposal(p proposal) (string, error) {
	in, out, err := read[traineeArgs, domain.Session](p)
	s := fmt.Sprintf("לתכנן ל%s אימון %s ב-%s", p.name(in.TraineeID), sessionName(out), hebrewDay(out.Date))
	if out.StartTime != nil {
		s += " בשעה " + *out.StartTime
	}
	if d := out.DurationMin; d != nil {
		s += fmt.Sprintf(" (%d דק')", *d)
	}
	return s + " (המתאמן לא מקבל הודעה)", err
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

// sessionName is a session's sport in Hebrew, after its title when it has
// one of its own.
func sessionName(s domain.Session) string {
	sport := s.Sport
	if he := sportNames[sport]; he != "" {
		sport = he
	}
	if s.Title != "" && s.Title != s.Sport {
		return fmt.Sprintf("\"%s\" (%s)", s.Title, sport)
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

func number(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// hebrewDay is an ISO date as an Israeli reader writes the day: 15.12.2026.
func hebrewDay(s string) string {
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t.Format("2.1.2006")
	}
	return s
}

// hebrewInstant is an instant's day in Israel, written as hebrewDay.
func hebrewInstant(t time.Time) string { return t.In(jerusalem).Format("2.1.2006") }
