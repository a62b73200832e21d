package planbar

import (
	"encoding/json"
	"strings"
)

// areaWords name a body area in English and Hebrew (a Hebrew word with
// its prefix where the bare word hides inside others: גב in גבוה, לב in
// שלב, גיל in רגיל).
var areaWords = map[string][]string{
	"neck": {"neck", "צוואר"}, "shoulder": {"shoulder", "כתף"}, "upper_back": {"upper back", "גב עליון", "הגב", "בגב"},
	"lower_back": {"lower back", "back", "גב תחתון", "הגב", "בגב", "לגב"}, "chest": {"chest", "חזה"}, "elbow": {"elbow", "מרפק"},
	"wrist": {"wrist", "שורש כף", "פרק כף"}, "hand": {"hand", "כף יד", "כף היד"}, "abdomen": {"abdomen", "בטן"},
	"hip": {"hip", "ירך", "אגן"}, "groin": {"groin", "מפשעה"}, "glute": {"glute", "עכוז", "ישבן"},
	"hamstring": {"hamstring", "המסטרינג", "ירך אחורי"}, "quadriceps": {"quad", "ארבע ראשי", "ירך קדמי"},
	"knee": {"knee", "ברך", "ברכ"}, "calf": {"calf", "achilles", "שוק", "תאומים", "אכילס"},
	"shin": {"shin", "שוק"}, "ankle": {"ankle", "achilles", "קרסול", "אכילס"}, "foot": {"foot", "כף רגל"},
}

// ruleWords name a condition rule in English and Hebrew; a kind equal to
// the rule's name (or "condition") counts as naming it.
var ruleWords = map[string][]string{
	"hypertension":    {"hypertension", "blood pressure", "לחץ דם"},
	"pregnancy":       {"pregnan", "הריון", "היריון", "בהריון"},
	"osteoporosis":    {"osteopor", "bone density", "אוסטאופורוזיס", "בריחת סידן", "צפיפות עצם"},
	"heart_condition": {"heart", "cardiac", "מחלת לב", "בעיית לב", "לבבי", "הלב"},
	"senior":          {"age", "aged", "senior", "older", "years old", "בגיל", "מגיל", "הגיל", "לגיל", "מבוגר", "ותיק"},
	"deload":          {"deload", "lighter week", "שבוע קל", "הורדת עומס", "דילואד"},
	"readiness":       {"readiness", "tired", "fatigue", "מוכנות", "עייפות"},
	"return":          {"break", "return", "חזרה", "הפסקה"},
}

var ruleKinds = map[string][]string{
	"senior": {"age", "senior"}, "deload": {"deload"}, "readiness": {"readiness"}, "return": {"return"},
}

// states: some adjustment of p states rule r (by its kind, or in words),
// with a reason of some length.
func states(p Plan, r string) bool {
	kinds := append([]string{r, "condition", "conditions", "health"}, ruleKinds[r]...)
	for _, a := range p.Adjustments {
		if len([]rune(a.Reason)) < 15 {
			continue
		}
		for _, k := range kinds {
			if a.Kind == k && (k == r || slicesHas(ruleKinds[r], k) || mentions(a.Reason, ruleWords[r])) {
				return true
			}
		}
		if mentions(a.Reason, ruleWords[r]) && a.Kind != "injury" {
			return true
		}
	}
	return false
}

// namesInjury: some adjustment of p names the injury of area.
func namesInjury(p Plan, area string) (Adjustment, bool) {
	for _, a := range p.Adjustments {
		if (a.Kind == "injury" || a.Kind == "injuries") && mentions(a.Reason, areaWords[area]) {
			return a, true
		}
	}
	return Adjustment{}, false
}

func slicesHas(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// flags: the plan's adjustments name each injury, each condition, the
// senior rules when her age reaches the studio's senior age, and what else
// the fixture expects stated (a deload, poor readiness, a return).
func (c *checker) flags() {
	const item = "flags"
	for _, inj := range c.f.active() {
		if _, ok := namesInjury(c.p, inj.Area); !ok {
			c.fail(item, false, "no adjustment names her %s injury", strings.ReplaceAll(inj.Area, "_", " "))
		}
	}
	for _, r := range append(c.rules(), c.f.Expect.Flags...) {
		if !states(c.p, r) {
			c.fail(item, false, "no adjustment states the %s rule", r)
		}
	}
}

// stale: once a knee injury is recorded, the week drafted again has
// nothing that loads the knee (beyond an unloaded hold), and says why, in
// her studio's language.
func (c *checker) stale(after []byte) {
	const item = "stale"
	var p Plan
	if len(after) == 0 || json.Unmarshal(after, &p) != nil {
		c.fail(item, false, "no week was drafted after the knee injury was recorded")
		return
	}
	if len(p.Sessions) == 0 {
		c.fail(item, false, "the week drafted after the knee injury has no session")
	}
	c.items(p, func(s Session, it Item, m movement, _ bool) {
		if why := injuryVerdict(m, it, NewKnee); why != "" {
			c.fail(item, true, "after the knee injury, %s: %s %s", s.Date, it.ExerciseID, why)
		}
	})
	a, ok := namesInjury(p, NewKnee.Area)
	switch {
	case !ok:
		c.fail(item, false, "the week drafted after the knee injury does not say it spares the knee")
	case c.f.Language == "he" && !hebrew(a.Reason):
		c.fail(item, false, "the knee's reason is not in Hebrew: %q", a.Reason)
	}
}
