package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/otherwise/perform/internal/exercises"
)

// exerciseNames gives an exercise of a receipt the name she reads: the
// catalogue's Hebrew name (built-in, or her studio's own) when it has one,
// else the name the lane answered with.
type exerciseNames func(id string) string

// of is the name of a session exercise of a lane answer.
func (n exerciseNames) of(ex map[string]any) string {
	if n != nil {
		if he := n(str(ex, "exerciseId")); he != "" {
			return he
		}
	}
	return str(ex, "name")
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

// echo is the line a trainee is sent for a write the lane stored, from its
// answer, and the record undo withdraws ("" when there is none: an update,
// a repeat, a request to the coach).
func echo(tool string, data json.RawMessage, names exerciseNames) (line, record string) {
	var out map[string]any
	_ = json.Unmarshal(data, &out)
	if out == nil {
		return "", ""
	}
	switch tool {
	case "log_workout":
		s, _ := out["session"].(map[string]any)
		line = "✅ נרשם אימון " + sessionName(s) + " ב-" + hebrewDay(str(s, "date"))
		if sets := setsLine(s, names); sets != "" {
			line += ": " + sets
		}
		if done, _ := out["alreadyLogged"].(bool); done {
			return line + " (כבר היה רשום)", ""
		}
		return line, str(s, "id")
	case "daily_check_in":
		var parts []string
		for _, f := range []struct{ key, label string }{{"readiness", "מוכנות"}, {"soreness", "כאב שרירים"}, {"sleepHours", "שינה (שעות)"}, {"mood", "מצב רוח"}, {"stress", "לחץ"}} {
			if v, ok := out[f.key].(float64); ok {
				parts = append(parts, f.label+" "+number(v))
			}
		}
		line = "✅ צ'ק-אין ל-" + hebrewDay(str(out, "day"))
		if len(parts) > 0 {
			line += ": " + strings.Join(parts, ", ")
		}
		if updated, _ := out["updated"].(bool); updated {
			return line + " (עודכן)", ""
		}
		return line, str(out, "id")
	case "log_weight":
		return "✅ נרשמה שקילה: " + number(out["weightKg"]) + " ק\"ג (" + hebrewDay(str(out, "recordedAt")) + ")", str(out, "id")
	case "log_measurement":
		var parts []string
		for _, f := range []struct{ key, label, unit string }{{"waistCm", "מותניים", "ס\"מ"}, {"hipsCm", "ירכיים", "ס\"מ"}, {"chestCm", "חזה", "ס\"מ"}, {"armCm", "זרוע", "ס\"מ"}, {"thighCm", "ירך", "ס\"מ"}, {"bodyFatPct", "אחוז שומן", "%"}, {"restingHr", "דופק במנוחה", ""}} {
			if v, ok := out[f.key].(float64); ok {
				parts = append(parts, strings.TrimSpace(f.label+" "+number(v)+" "+f.unit))
			}
		}
		return "✅ נרשמה מדידה: " + strings.Join(parts, ", "), str(out, "id")
	case "answer_form":
		return "✅ התשובות לשאלון נשלחו", str(out, "id")
	case "record_injury":
		return "✅ נרשמה פציעה (" + str(out, "area") + "); המאמנים קיבלו משימה לבדוק אותה", ""
	case "log_feedback":
		return "✅ ההודעה נשמרה למאמנים", ""
	case "record_benchmark":
		return "✅ נרשם מדד ביצוע", ""
	case "generate_weekly_plan":
		return "✅ טיוטת תוכנית שבועית נשמרה; המאמן/ת יחליט/תחליט אם לקבוע אותה", ""
	}
	return "✅ נשמר", ""
}

// setsLine is a session's logged sets, grouped: "סקוואט 5×5 ב-90 ק"ג".
func setsLine(s map[string]any, names exerciseNames) string {
	exercises, _ := s["exercises"].([]any)
	var parts []string
	for _, e := range exercises {
		ex, _ := e.(map[string]any)
		sets, _ := ex["sets"].([]any)
		if len(sets) == 0 {
			continue
		}
		type group struct {
			reps, load string
			n          int
		}
		var groups []group
		for _, x := range sets {
			set, _ := x.(map[string]any)
			g := group{reps: number(set["reps"]), n: 1}
			if l, ok := set["loadKg"].(float64); ok {
				g.load = number(l)
			}
			if n := len(groups); n > 0 && groups[n-1].reps == g.reps && groups[n-1].load == g.load {
				groups[n-1].n++
				continue
			}
			groups = append(groups, g)
		}
		var gs []string
		for _, g := range groups {
			p := fmt.Sprintf("%d×%s", g.n, g.reps)
			if g.load != "" {
				p += " ב-" + g.load + " ק\"ג"
			}
			gs = append(gs, p)
		}
		parts = append(parts, names.of(ex)+" "+strings.Join(gs, ", "))
	}
	return strings.Join(parts, "; ")
}
