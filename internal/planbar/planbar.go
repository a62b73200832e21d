// Package planbar is the weekly plan's quality bar: a checker that holds a
// drafted week to what a coach would, for trainees written as fixtures.
//
// It is kept apart from the generator on purpose. It reads a plan as JSON
// into its own types and grades it with its own tables: a load table (the
// RTS RPE chart), a movement list (what each exercise loads, its level, its
// equipment, its risks), and contraindications by injury kind and severity,
// by health condition and by age. It imports nothing of internal/weekplan,
// its rules or the exercise catalogue, so a generator cannot pass by
// agreeing with itself.
//
// Each fixture is graded on ten items (Items); a finding marked unsafe is a
// prescription that could hurt her.
package planbar

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
)

// Plan is a drafted week as its JSON reads.
type Plan struct {
	WeekStart   string       `json:"weekStart"`
	Deload      bool         `json:"deload"`
	Sessions    []Session    `json:"sessions"`
	HardSets    int          `json:"hardSets"`
	Adjustments []Adjustment `json:"adjustments"`
	Summary     string       `json:"summary"`
}

// Session is one planned day.
type Session struct {
	PlannedID   string `json:"plannedId"`
	Date        string `json:"date"`
	Weekday     int    `json:"weekday"`
	Title       string `json:"title"`
	DurationMin int    `json:"durationMin"`
	Items       []Item `json:"exercises"`
	Note        string `json:"note"`
}

// Item is one prescribed exercise.
type Item struct {
	ExerciseID  string   `json:"exerciseId"`
	Name        string   `json:"name"`
	Sets        int      `json:"sets"`
	Reps        int      `json:"reps"`
	RepsMax     int      `json:"repsMax"`
	Seconds     int      `json:"seconds"`
	Minutes     int      `json:"minutes"`
	DistanceKm  *float64 `json:"distanceKm"`
	LoadKg      *float64 `json:"loadKg"`
	Percent1RM  *float64 `json:"percent1RM"`
	RPE         *float64 `json:"rpe"`
	RIR         *int     `json:"rir"`
	RestSeconds int      `json:"restSeconds"`
	Basis       string   `json:"basis"`
	Note        string   `json:"note"`
}

// Adjustment is one stated change and its reason.
type Adjustment struct {
	Kind      string   `json:"kind"`
	Reason    string   `json:"reason"`
	Exercises []string `json:"exercises"`
}

// Items are the rubric's ten items, in order.
var Items = []string{"days", "fill", "injuries", "loads", "sport", "level", "recovery", "language", "flags", "stale"}

// Finding is one thing a plan got wrong.
type Finding struct {
	Item   string
	Unsafe bool
	Text   string
}

// Result is a fixture's grade.
type Result struct {
	Fixture  string
	Passed   map[string]bool
	Findings []Finding
}

// Score is the items passed of the ten.
func (r Result) Score() int {
	n := 0
	for _, it := range Items {
		if r.Passed[it] {
			n++
		}
	}
	return n
}

// Unsafe: a finding could hurt her.
func (r Result) Unsafe() bool {
	for _, f := range r.Findings {
		if f.Unsafe {
			return true
		}
	}
	return false
}

// Failed lists the items failed, each with its first finding.
func (r Result) Failed() []string {
	var out []string
	for _, it := range Items {
		if r.Passed[it] {
			continue
		}
		for _, f := range r.Findings {
			if f.Item == it {
				out = append(out, it+": "+f.Text)
				break
			}
		}
	}
	return out
}

// NewKnee is the injury the stale-draft item records after the first
// draft: the week drafted again must leave out what loads the knee, and
// say why.
var NewKnee = Injury{ID: "inj_new_knee", Area: "knee", Kind: "sprain", Severity: 3, Side: "right", Status: "active"}

// Check grades plan, drafted for f, and after, the week drafted again once
// NewKnee was recorded (nil when none could be drafted). A plan that is not
// JSON fails every item.
func Check(f Fixture, plan, after []byte) Result {
	r := Result{Fixture: f.Name, Passed: map[string]bool{}}
	var p Plan
	if err := json.Unmarshal(plan, &p); err != nil || len(plan) == 0 {
		for _, it := range Items {
			r.Findings = append(r.Findings, Finding{Item: it, Text: fmt.Sprintf("no plan to grade (%v)", err)})
		}
		return r
	}
	c := &checker{f: f, p: p, lifts: liftsOf(f.History())}
	c.days()
	c.fill()
	c.injuries()
	c.loads()
	c.sport()
	c.level()
	c.recovery()
	c.language()
	c.flags()
	c.stale(after)
	r.Findings = c.out
	for _, it := range Items {
		r.Passed[it] = true
	}
	for _, x := range c.out {
		r.Passed[x.Item] = false
	}
	return r
}

type checker struct {
	f     Fixture
	p     Plan
	lifts map[string]*liftData
	out   []Finding
}

func (c *checker) fail(item string, unsafe bool, format string, a ...any) {
	c.out = append(c.out, Finding{Item: item, Unsafe: unsafe, Text: fmt.Sprintf(format, a...)})
}

// items calls fn for every prescribed exercise, with the movement the
// checker reads it as.
func (c *checker) items(p Plan, fn func(s Session, it Item, m movement, known bool)) {
	for _, s := range p.Sessions {
		for _, it := range s.Items {
			m, known := lookup(it.ExerciseID)
			if !known {
				m, known = guess(it.ExerciseID, it.Name)
			}
			fn(s, it, m, known)
		}
	}
}

// Tally is the bar's count over its fixtures.
type Tally struct {
	Total, Valid, Safe, Repeatable, Fallback, Unsafe, Passed, Items int
}

// Add counts one fixture: its grade, whether every draft was valid by the
// generator's own report, whether its drafts agreed, whether any was the
// fallback.
func (t *Tally) Add(r Result, valid, repeatable, fallback bool) {
	t.Total++
	t.Items += len(Items)
	t.Passed += r.Score()
	if valid {
		t.Valid++
	}
	if r.Passed["flags"] {
		t.Safe++
	}
	if repeatable {
		t.Repeatable++
	}
	if fallback {
		t.Fallback++
	}
	if r.Unsafe() {
		t.Unsafe++
	}
}

// Line is the bar's one line.
func (t Tally) Line() string {
	return fmt.Sprintf("plan quality: valid %d/%d, safety flags %d/%d, repeatable %d/%d, fallback %d/%d, unsafe %d, rubric %d/%d",
		t.Valid, t.Total, t.Safe, t.Total, t.Repeatable, t.Total, t.Fallback, t.Total, t.Unsafe, t.Passed, t.Items)
}

// Repeatable: drafts of one input have the same days, at least 80% of the
// same exercises and identical loads on those they share.
func Repeatable(plans [][]byte) bool {
	type key struct {
		days string
		ex   map[string]string
	}
	var keys []key
	for _, raw := range plans {
		var p Plan
		if json.Unmarshal(raw, &p) != nil {
			return false
		}
		k := key{ex: map[string]string{}}
		for _, s := range p.Sessions {
			k.days += fmt.Sprint(s.Weekday, " ")
			for _, it := range s.Items {
				load := "-"
				if it.LoadKg != nil {
					load = fmt.Sprint(*it.LoadKg)
				}
				k.ex[it.ExerciseID] += load + " "
			}
		}
		keys = append(keys, k)
	}
	for _, k := range keys[1:] {
		if k.days != keys[0].days {
			return false
		}
		same := 0
		for id, load := range k.ex {
			if l0, ok := keys[0].ex[id]; ok {
				if l0 != load {
					return false
				}
				same++
			}
		}
		if same*5 < max(len(k.ex), len(keys[0].ex))*4 {
			return false
		}
	}
	return true
}

// mentions: text names one of words (case-insensitive; a Latin word only
// as a word, so "age" is not found in "average").
func mentions(text string, words []string) bool {
	t := strings.ToLower(text)
	for _, w := range words {
		w = strings.ToLower(w)
		for from := 0; ; {
			i := strings.Index(t[from:], w)
			if i < 0 {
				break
			}
			i += from
			end := i + len(w)
			if !latin(w) || (!letterAt(t, i-1) && (!letterAt(t, end) || strings.HasSuffix(w, "pregnan") || w == "osteopor")) {
				return true
			}
			from = i + 1
		}
	}
	return false
}

func latin(w string) bool {
	for _, r := range w {
		if r > unicode.MaxASCII {
			return false
		}
	}
	return true
}

func letterAt(s string, i int) bool {
	return i >= 0 && i < len(s) && s[i] < unicode.MaxASCII && unicode.IsLetter(rune(s[i]))
}
