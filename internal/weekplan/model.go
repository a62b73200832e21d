package weekplan

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/otherwise/perform/internal/llm"
)

// layoutTool is the one tool the model is given, and must call.
const layoutTool = "lay_out_week"

// brief is the model's standing instructions: the same for every trainee
// and studio (the request's own data is in the context).
const brief = `You lay out one training week for a trainee of a coaching studio, by calling lay_out_week once.

Perform has already decided what is safe and how hard: the allowed exercises (her equipment, her level, her health conditions' rules, none that loads an injured area), each exercise's sets, reps, load and intensity (from her logged sets through one load table, by the coach's progression rule), her sport's weekly minutes, the deload, the weekly caps. You never write numbers. You choose:
- which of her training days get a session (one session a day, at most one per listed day);
- the exercises of each session, from the allowed ids only, in the order they are done: the two main lifts first;
- a short title for each session, and a one-sentence note for a session where it helps (a cue, why an exercise was swapped);
- a summary of the week in one or two sentences that names each adjustment the context lists and why, in the adjustments' own terms.

Every day the context lists under booked holds a session: an appointment she booked is a fixed day (the rules write its note).
Keep her sport: when the context names one, at least sport.sessions sessions hold sport.exercise (the rules give their minutes). When it names rehab exercises, open strength sessions with one of them; when it names a conditioning exercise, end strength sessions with it. Keep every session within her minutes (each exercise's minutes are given; a session with sets also takes 8 minutes of warm-up); the rules fill a short session to fillMinutes with a cool-down and easy aerobic work, so do not pad. Keep each muscle's hard sets and the week's total within the caps given, balance pushing and pulling, knee and hip work, and prefer exercises she has logged before. The baseline is a valid week built by the rules alone: improve its layout and order, or keep it.
Write the titles, notes and summary in the language the context names (Hebrew: plain, short, the words a coach uses, addressing the trainee in the gender the context gives).`

// layoutSchema is the tool's input schema: the days and exercise ids are
// enums of this week's allowed values, so a strict tool cannot name others.
func (w *week) layoutSchema() map[string]any {
	days := make([]any, len(w.days))
	for i, d := range w.days {
		days[i] = d
	}
	var ids []any
	for _, id := range slices.Concat(w.rehab, w.order) {
		ids = append(ids, id)
	}
	return map[string]any{
		"type":                 "object",
		"additionalProperties": false,
		"required":             []any{"sessions", "summary"},
		"properties": map[string]any{
			"sessions": map[string]any{
				"type": "array",
				"items": map[string]any{
					"type":                 "object",
					"additionalProperties": false,
					"required":             []any{"weekday", "title", "exercises", "note"},
					"properties": map[string]any{
						"weekday":   map[string]any{"type": "integer", "enum": days, "description": "ISO weekday: 1 Monday … 7 Sunday"},
						"title":     map[string]any{"type": "string"},
						"exercises": map[string]any{"type": "array", "items": map[string]any{"type": "string", "enum": ids}},
						"note":      map[string]any{"type": "string", "description": "one sentence, or empty"},
					},
				},
			},
			"summary": map[string]any{"type": "string"},
		},
	}
}

// request is the model's request: the brief, this week's context, and
// the conversation so far (the first ask, or the ask and a repair).
func (w *week) request(msgs []llm.Message) llm.Request {
	return llm.Request{
		Rules:     brief,
		Context:   w.contextText(),
		Messages:  msgs,
		MaxTokens: 2000,
		Tools: []llm.ToolSpec{{Name: layoutTool, Strict: true, Schema: w.layoutSchema(),
			Description: "Lay out the week: sessions on her training days, each an ordered list of allowed exercise ids with a title and a note, and a summary."}},
		ForceTool: layoutTool,
	}
}

// contextText is the week's facts for the model, compact JSON.
func (w *week) contextText() string {
	type exLine struct {
		ID      string   `json:"id"`
		Name    string   `json:"name"`
		Muscles []string `json:"muscles"`
		Main    string   `json:"asMain"`
		Acc     string   `json:"asAccessory"`
		Minutes int      `json:"minutesAsMain"`
		Logged  int      `json:"timesLogged,omitempty"`
	}
	var exs []exLine
	for _, id := range slices.Concat(w.rehab, w.order) {
		ex := w.allowed[id]
		m, a := w.prescribe(ex, roleMain), w.prescribe(ex, roleAccessory)
		exs = append(exs, exLine{ID: id, Name: w.name(ex), Muscles: ex.Primary, Main: dose(m), Acc: dose(a),
			Minutes: int(minutesFor(m) + 0.5), Logged: len(w.exposures[id])})
	}
	days := map[string]string{}
	for _, d := range w.days {
		days[fmt.Sprint(d)] = weekdayName(d) + " " + w.dates[d]
	}
	ctx := map[string]any{
		"language":             map[string]string{"he": "Hebrew", "en": "English"}[w.lang()],
		"week":                 w.in.WeekStart,
		"trainingDays":         days,
		"minutesPerSession":    w.in.Minutes,
		"fillMinutes":          w.fillTarget(),
		"experience":           w.experience,
		"rule":                 w.rule,
		"deload":               w.deload,
		"maxHardSetsPerMuscle": w.band,
		"adjustments":          w.modelAdjustments(),
		"allowedExercises":     exs,
		"baseline":             w.baseline(),
	}
	if g := w.in.Gender; g != "" {
		ctx["trainee"] = g
	}
	if sp := w.sport; sp.exercise != "" {
		ctx["sport"] = map[string]any{"name": sp.name, "exercise": sp.exercise, "sessions": sp.sessions, "minutes": sp.minutes}
	}
	if len(w.rehab) > 0 {
		ctx["rehab"] = w.rehab
	}
	if w.finisher != "" {
		ctx["conditioning"] = w.finisher
	}
	if w.cap > 0 {
		ctx["maxHardSetsThisWeek"] = w.cap
	}
	if w.in.Program != nil {
		ctx["program"] = w.in.Program
	}
	booked := map[string]string{}
	for _, d := range w.days {
		if w.isBooked(d) {
			booked[fmt.Sprint(d)] = w.bookedWords(d)
		}
	}
	if len(booked) > 0 {
		ctx["booked"] = booked
	}
	b, _ := json.Marshal(ctx)
	return "The week to lay out:\n" + string(b)
}

// modelAdjustments are the week's adjustments as the model reads them:
// a health condition's rules, never its name.
func (w *week) modelAdjustments() []Adjustment {
	out := slices.Clone(w.adjust)
	for i, a := range out {
		if a.forModel != "" {
			out[i].Reason = a.forModel
		}
	}
	return out
}

// firstAsk opens the conversation.
func firstAsk() []llm.Message {
	return []llm.Message{{Role: "user", Blocks: []llm.Block{{Type: llm.TextBlock, Text: "Lay out the week with lay_out_week."}}}}
}

// repairAsk adds the model's answer and the validator's sentences.
func repairAsk(msgs []llm.Message, call llm.Block, problems []string) []llm.Message {
	text := "The week breaks these rules:\n- " + strings.Join(problems, "\n- ") + "\nCall lay_out_week again with a week that keeps them."
	return append(cloneMsgs(msgs),
		llm.Message{Role: "assistant", Blocks: []llm.Block{call}},
		llm.Message{Role: "user", Blocks: []llm.Block{{Type: llm.ToolResultBlock, ID: call.ID, Text: text, IsError: true}}})
}

func cloneMsgs(m []llm.Message) []llm.Message { return append([]llm.Message(nil), m...) }

// layoutOf reads the model's tool call; ok is false when it made none.
func layoutOf(res llm.Result) (Layout, llm.Block, error) {
	for _, b := range res.Blocks {
		if b.Type == llm.ToolUseBlock && b.Name == layoutTool {
			var l Layout
			if err := json.Unmarshal(b.Input, &l); err != nil {
				return Layout{}, b, fmt.Errorf("the layout did not parse: %w", err)
			}
			return l, b, nil
		}
	}
	return Layout{}, llm.Block{}, fmt.Errorf("the model answered without calling %s", layoutTool)
}
