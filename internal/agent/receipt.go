package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/otherwise/perform/internal/answers"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/exercises"
)

// exerciseNames gives an exercise of a receipt the name she reads: the
// catalogue's Hebrew name (built-in, or her studio's own) when it has one,
// else the name the lane answered with.
type exerciseNames func(id string) string

// of is the name of a session exercise of a lane answer.
func (n exerciseNames) of(ex domain.SessionExercise) string {
	if n != nil {
		if he := n(ex.ExerciseID); he != "" {
			return he
		}
	}
	return ex.Name
}

// hebrewNames resolves exercise ids to Hebrew names for one studio's
// receipts; the studio's own exercises are read once, when first asked.
func (a *Agent) hebrewNames(ctx context.Context, studioID string) exerciseNames {
	var studio map[string]string
	return func(id string) string {
		if e, ok := exercises.Get(id); ok {
			return e.NameHe
		}
		if id == "" {
			return ""
		}
		if studio == nil {
			studio = map[string]string{}
			list, err := a.st.Studio(studioID).ListExercises(ctx)
			if err == nil {
				for _, e := range list {
					studio[e.ID] = e.NameHe
				}
			}
		}
		return studio[id]
	}
}

// receipts write, per tool, the line a trainee is sent for a write the
// lane stored, from its answer decoded into the route's own answer type,
// and the record undo withdraws ("" when there is none: an update, a
// repeat, a request to the coach).
var receipts = map[string]func(data json.RawMessage, names exerciseNames) (line, record string, err error){
	"log_workout":        workoutReceipt,
	"daily_check_in":     checkInReceipt,
	"log_weight":         weightReceipt,
	"log_measurement":    measurementReceipt,
	"answer_form":        formReceipt,
	"record_injury":      injuryReceipt,
	"book_appointment":   bookingReceipt,
	"cancel_appointment": cancellationReceipt,
	"move_appointment":   moveReceipt,
}

// fixedReceipts are the lines of the writes whose answer they do not read.
var fixedReceipts = map[string]string{
	"log_feedback":         "✅ ההודעה נשמרה למאמנים",
	"record_benchmark":     "✅ נרשם מדד ביצוע",
	"generate_weekly_plan": "✅ טיוטת תוכנית שבועית נשמרה; המאמן/ת יחליט/תחליט אם לקבוע אותה",
}

// msgUnreadReceipt is the receipt of a stored write whose answer could not
// be read.
const msgUnreadReceipt = "✅ נשמר (לא הצלחתי להציג את הפרטים)"

// echo is the line a trainee is sent for a write the lane stored, and the
// record undo withdraws. An answer that does not read as its route's type
// is an error, never a line with blanks.
func echo(tool string, data json.RawMessage, names exerciseNames) (line, record string, err error) {
	if receipt, ok := receipts[tool]; ok {
		line, record, err = receipt(data, names)
		if err != nil {
			return "", "", fmt.Errorf("the receipt of %s: %w", tool, err)
		}
		return line, record, nil
	}
	if line, ok := fixedReceipts[tool]; ok {
		return line, "", nil
	}
	return "✅ נשמר", "", nil
}

func workoutReceipt(data json.RawMessage, names exerciseNames) (string, string, error) {
	out, err := decode[answers.LoggedWorkout]("the lane's answer", data)
	if err != nil {
		return "", "", err
	}
	s := out.Session
	line := "✅ נרשם אימון " + sessionName(s) + " ב-" + hebrewDay(s.Date)
	if sets := setsLine(s, names); sets != "" {
		line += ": " + sets
	}
	if out.AlreadyLogged {
		return line + " (כבר היה רשום)", "", nil
	}
	return line, s.ID, nil
}

func checkInReceipt(data json.RawMessage, _ exerciseNames) (string, string, error) {
	out, err := decode[answers.CheckIn]("the lane's answer", data)
	if err != nil {
		return "", "", err
	}
	var parts []string
	for _, f := range []struct {
		label string
		v     *float64
	}{
		{"מוכנות", float(out.Readiness)}, {"כאב שרירים", float(out.Soreness)}, {"שינה (שעות)", out.SleepHours},
		{"מצב רוח", float(out.Mood)}, {"לחץ", float(out.Stress)},
	} {
		if f.v != nil {
			parts = append(parts, f.label+" "+number(*f.v))
		}
	}
	line := "✅ צ'ק-אין ל-" + hebrewDay(out.Day)
	if len(parts) > 0 {
		line += ": " + strings.Join(parts, ", ")
	}
	if out.Updated {
		return line + " (עודכן)", "", nil
	}
	return line, out.ID, nil
}

func weightReceipt(data json.RawMessage, _ exerciseNames) (string, string, error) {
	out, err := decode[domain.Weight]("the lane's answer", data)
	return "✅ נרשמה שקילה: " + number(out.WeightKg) + " ק\"ג (" + hebrewInstant(out.RecordedAt) + ")", out.ID, err
}

func measurementReceipt(data json.RawMessage, _ exerciseNames) (string, string, error) {
	out, err := decode[domain.Measurement]("the lane's answer", data)
	var parts []string
	for _, f := range []struct {
		label string
		v     *float64
		unit  string
	}{
		{"מותניים", out.WaistCm, "ס\"מ"}, {"ירכיים", out.HipsCm, "ס\"מ"}, {"חזה", out.ChestCm, "ס\"מ"}, {"זרוע", out.ArmCm, "ס\"מ"},
		{"ירך", out.ThighCm, "ס\"מ"}, {"אחוז שומן", out.BodyFatPct, "%"}, {"דופק במנוחה", float(out.RestingHR), ""},
	} {
		if f.v != nil {
			parts = append(parts, strings.TrimSpace(f.label+" "+number(*f.v)+" "+f.unit))
		}
	}
	return "✅ נרשמה מדידה: " + strings.Join(parts, ", "), out.ID, err
}

func formReceipt(data json.RawMessage, _ exerciseNames) (string, string, error) {
	out, err := decode[domain.FormResponse]("the lane's answer", data)
	return "✅ התשובות לשאלון נשלחו", out.ID, err
}

func injuryReceipt(data json.RawMessage, _ exerciseNames) (string, string, error) {
	out, err := decode[answers.Injury]("the lane's answer", data)
	return "✅ נרשמה פציעה (" + out.Area + "); המאמנים קיבלו משימה לבדוק אותה", "", err
}

// float is an optional whole number as an optional float64.
func float(n *int) *float64 {
	if n == nil {
		return nil
	}
	f := float64(*n)
	return &f
}

// setsLine is a session's logged sets, grouped: "סקוואט 5×5 ב-90 ק"ג".
func setsLine(s domain.Session, names exerciseNames) string {
	var parts []string
	for _, ex := range s.Exercises {
		if len(ex.Sets) == 0 {
			continue
		}
		parts = append(parts, names.of(ex)+" "+groupSets(ex.Sets))
	}
	return strings.Join(parts, "; ")
}

// groupSets is an exercise's sets with each run of equal ones counted:
// 5×5 ב-90 ק"ג, 1×3.
func groupSets(sets []domain.SetEntry) string {
	type group struct {
		reps, load string
		n          int
	}
	var groups []group
	for _, set := range sets {
		g := group{reps: setAmount(set), n: 1}
		if set.LoadKg != nil {
			g.load = number(*set.LoadKg)
		}
		if n := len(groups); n > 0 && groups[n-1].reps == g.reps && groups[n-1].load == g.load {
			groups[n-1].n++
			continue
		}
		groups = append(groups, g)
	}
	gs := make([]string, len(groups))
	for i, g := range groups {
		gs[i] = fmt.Sprintf("%d×%s", g.n, g.reps)
		if g.load != "" {
			gs[i] += " ב-" + g.load + " ק\"ג"
		}
	}
	return strings.Join(gs, ", ")
}

// setAmount is what a set counts: its reps, else its seconds or metres.
func setAmount(set domain.SetEntry) string {
	switch {
	case set.Reps != nil:
		return strconv.Itoa(*set.Reps)
	case set.Seconds != nil:
		return strconv.Itoa(*set.Seconds) + " שנ'"
	case set.Metres != nil:
		return number(*set.Metres) + " מ'"
	}
	return "?"
}
