package weekplan

import (
	"slices"
	"sort"
	"strings"

	"github.com/otherwise/perform/internal/domain"
)

// strengthWork reports whether the plan lays ex out in sets: strength,
// core and plyometric work not measured in distance.
func strengthWork(ex domain.Exercise) bool {
	return (ex.Category == domain.CategoryStrength || ex.Category == domain.CategoryCore ||
		ex.Category == domain.CategoryPlyometric) && ex.Measure != domain.MeasureDistance
}

// isEndurance reports whether ex is prescribed in minutes: cardio and
// conditioning.
func (w *week) isEndurance(ex domain.Exercise) bool {
	return ex.Category == domain.CategoryCardio || ex.Category == domain.CategoryConditioning
}

func isMobility(ex domain.Exercise) bool { return ex.Category == domain.CategoryMobility }

// conditionRules are what her health conditions ask of the week.
type conditionRules struct {
	minRIR    int     // the least reps in reserve on any set
	minReps   int     // the fewest reps of a loaded set (no heavy low-rep work)
	maxHold   int     // the longest hold, seconds (0: no limit)
	rpeCap    float64 // the hardest endurance or conditioning effort (0: none)
	noSupine  bool    // nothing lying on the back or the front
	noImpact  bool    // no jumps, bounds or sprints
	noFlexion bool    // no loaded spinal flexion or twisting
	noOlympic bool    // no Olympic lifts, no maximal power
	noInvert  bool    // no head-down pressing
}

// Exercises by what a condition rules out (studio exercises are read by
// their pattern, and by words in their name).
var (
	supineOrProne = []string{"bench-press", "dumbbell-bench-press", "smith-machine-bench-press", "decline-bench-press",
		"close-grip-bench-press", "dumbbell-fly", "skull-crusher", "dumbbell-pullover", "glute-bridge", "single-leg-glute-bridge",
		"isometric-bridge-hold", "hip-thrust", "crunch", "sit-up", "bicycle-crunch", "lying-leg-raise", "dead-bug", "hollow-hold",
		"stability-ball-leg-curl", "leg-curl", "back-extension", "chest-supported-row", "turkish-get-up", "incline-bench-press", "incline-dumbbell-press"}
	spinalFlexion = []string{"crunch", "cable-crunch", "sit-up", "bicycle-crunch", "russian-twist", "hanging-leg-raise",
		"captains-chair-leg-raise", "lying-leg-raise", "good-morning", "cable-woodchop", "medicine-ball-slam", "stiff-leg-deadlift"}
	highImpact = []string{"burpee", "jumping-jack", "jump-rope", "sprint", "shuttle-run", "plyo-push-up", "wall-ball", "thruster"}
	headDown   = []string{"handstand-push-up", "pike-push-up"}
)

// rulesFor are the rules of her conditions, and an adjustment for each
// that says what they do and never what she wrote.
func (w *week) rulesFor() conditionRules {
	var r conditionRules
	for _, c := range w.in.Conditions {
		var en, he string
		switch c {
		case "hypertension":
			r.minRIR, r.minReps, r.maxHold, r.rpeCap = max(r.minRIR, 3), max(r.minReps, 8), capHold(r.maxHold, 30), capRPE(r.rpeCap, 7)
			r.noOlympic, r.noInvert = true, true
			en = "A health condition on the profile sets limits: no maximal or breath-holding efforts (at least 3 reps in reserve, no set under 8 reps), holds of 30 s at most, no head-down pressing, conditioning at RPE 7 at most."
			he = "מצב בריאותי בפרופיל מציב גבולות: בלי מאמצים מרביים או עצירת נשימה (לפחות 3 חזרות ברזרבה, אין סט מתחת ל-8 חזרות), החזקות של 30 שניות לכל היותר, בלי לחיצות כשהראש למטה, אירובי עד RPE 7."
		case "pregnancy":
			r.minRIR, r.minReps, r.maxHold, r.rpeCap = max(r.minRIR, 3), max(r.minReps, 8), capHold(r.maxHold, 30), capRPE(r.rpeCap, 6)
			r.noSupine, r.noImpact, r.noOlympic, r.noInvert = true, true, true, true
			en = "A health condition on the profile sets limits: nothing lying on the back or the front, no jumps or impact, no Olympic lifts, moderate loads (at least 3 reps in reserve, 8 reps or more), effort at RPE 6 at most."
			he = "מצב בריאותי בפרופיל מציב גבולות: בלי תרגילים בשכיבה על הגב או על הבטן, בלי קפיצות או הלמות, בלי הרמות אולימפיות, משקלים מתונים (לפחות 3 חזרות ברזרבה, 8 חזרות ומעלה), מאמץ עד RPE 6."
		case "osteoporosis":
			r.minRIR, r.minReps = max(r.minRIR, 2), max(r.minReps, 6)
			r.noFlexion, r.noImpact, r.noOlympic = true, true, true
			en = "A health condition on the profile sets limits: no loaded bending or twisting of the spine, no jumps or high impact, loaded standing work kept moderate (at least 2 reps in reserve, 6 reps or more)."
			he = "מצב בריאותי בפרופיל מציב גבולות: בלי כפיפה או פיתול של עמוד השדרה תחת עומס, בלי קפיצות או הלמות חזקות, עבודה בעמידה עם משקל ברמה מתונה (לפחות 2 חזרות ברזרבה, 6 חזרות ומעלה)."
		case "heart_condition":
			r.minRIR, r.minReps, r.maxHold, r.rpeCap = max(r.minRIR, 3), max(r.minReps, 8), capHold(r.maxHold, 30), capRPE(r.rpeCap, 6)
			r.noImpact, r.noOlympic, r.noInvert = true, true, true
			en = "A health condition on the profile sets limits: moderate intensity only (at least 3 reps in reserve, 8 reps or more, effort at RPE 6 at most), no sprints, jumps or Olympic lifts, holds of 30 s at most."
			he = "מצב בריאותי בפרופיל מציב גבולות: עצימות מתונה בלבד (לפחות 3 חזרות ברזרבה, 8 חזרות ומעלה, מאמץ עד RPE 6), בלי ספרינטים, קפיצות או הרמות אולימפיות, החזקות של 30 שניות לכל היותר."
		}
		if en != "" {
			// Her plan names the condition for her and her coaches; the
			// model that lays the week out reads the rules alone.
			n := conditionNames[c]
			named := strings.Replace(w.tr(en, he), w.tr("A health condition on the profile", "מצב בריאותי בפרופיל"), w.tr(n[0]+" on the profile", n[1]+" בפרופיל"), 1)
			w.adjust = append(w.adjust, Adjustment{Kind: AdjustCondition, Reason: named, forModel: w.tr(en, he)})
		}
	}
	return r
}

// conditionNames are each health condition's name, English and Hebrew.
var conditionNames = map[string][2]string{
	"hypertension": {"Hypertension (high blood pressure)", "לחץ דם גבוה"}, "pregnancy": {"Pregnancy", "הריון"},
	"osteoporosis": {"Osteoporosis", "אוסטאופורוזיס (בריחת סידן)"}, "heart_condition": {"A heart condition", "מחלת לב"},
}

func capHold(cur, v int) int {
	if cur == 0 {
		return v
	}
	return min(cur, v)
}

func capRPE(cur, v float64) float64 {
	if cur == 0 {
		return v
	}
	return min(cur, v)
}

// ruledOutBy is what of her conditions, her age or her level rules ex out
// ("" when nothing does).
func (w *week) ruledOutBy(ex domain.Exercise) string {
	r := w.cond
	name := strings.ToLower(ex.Name)
	impact := ex.Pattern == "plyometric" || ex.Pattern == "throw" || ex.Category == domain.CategoryPlyometric || slices.Contains(highImpact, ex.ID)
	switch {
	case r.noSupine && (slices.Contains(supineOrProne, ex.ID) || ex.Pattern == "get_up" ||
		strings.Contains(name, "lying") || strings.Contains(name, "supine") || strings.Contains(name, "prone") ||
		strings.Contains(name, "bench press") || strings.Contains(name, "crunch") || strings.Contains(name, "sit-up")):
		return "condition"
	case r.noFlexion && (slices.Contains(spinalFlexion, ex.ID) || strings.Contains(name, "crunch") || strings.Contains(name, "sit-up")):
		return "condition"
	case (r.noImpact || w.senior) && impact:
		if r.noImpact {
			return "condition"
		}
		return "senior"
	case (r.noOlympic || w.senior) && ex.Pattern == "olympic":
		if r.noOlympic {
			return "condition"
		}
		return "senior"
	case r.noInvert && slices.Contains(headDown, ex.ID):
		return "condition"
	}
	if levelRank(ex.Level) > levelRank(w.experience) && (w.senior || len(w.exposures[ex.ID]) == 0) {
		return "level"
	}
	if w.senior && ex.Level == advanced {
		return "level"
	}
	return ""
}

func levelRank(l string) int {
	switch l {
	case intermediate:
		return 1
	case advanced:
		return 2
	}
	return 0
}

// seniorAge is the studio's age for the senior rules (60 unless set).
func (w *week) seniorAge() int {
	if w.in.SeniorAge > 0 {
		return w.in.SeniorAge
	}
	return 60
}

// muscleAreas are the body areas that are muscles, and the catalogue's
// muscle names for them: an exercise whose primary muscles hold one loads
// that area, whatever its loadsAreas list (a quadriceps strain rules out
// squats and lunges, a calf strain jumps and runs that train the calves).
var muscleAreas = map[string][]string{
	"quadriceps": {"quadriceps"}, "hamstring": {"hamstrings"}, "glute": {"glutes"}, "calf": {"calves"},
	"chest": {"chest"}, "groin": {"adductors"}, "upper_back": {"upper back", "rhomboids", "traps"},
	"lower_back": {"lower back"}, "abdomen": {"abs", "obliques"}, "neck": {"neck"},
}

// loads reports whether ex loads area: its loadsAreas say so, or its
// primary muscles are the area's.
func loads(ex domain.Exercise, area string) bool {
	if slices.Contains(ex.Loads, area) {
		return true
	}
	for _, m := range muscleAreas[area] {
		if slices.Contains(ex.Primary, m) {
			return true
		}
	}
	return false
}

// severe: an injury the plan trains around entirely.
func severe(inj domain.Injury) bool {
	return inj.Severity >= 3 || inj.Kind == "fracture" || inj.Kind == "after_surgery"
}

// allow builds the allowed set: exercises she can do with her equipment,
// within her level and her conditions, that load none of her injured
// areas and that no injury names; with the exceptions an injury's kind
// and severity allow (isometrics for a tendinopathy, her sport at less
// volume under a mild injury, cycling under a knee that is not broken or
// operated on).
func (w *week) allow() {
	w.senior = w.in.Age != nil && *w.in.Age >= w.seniorAge()
	w.cond = w.rulesFor()
	named := map[string]domain.Injury{}
	for _, inj := range w.in.Injuries {
		for _, id := range inj.AffectedExercises {
			named[id] = inj
		}
	}
	sportPattern := sportPatterns[w.sportName()]
	levelOut := 0
	var rehab []string
	for _, ex := range w.in.Exercises {
		if !(strengthWork(ex) || w.isEndurance(ex) || isMobility(ex)) || !doable(ex, w.in.Equipment) {
			continue
		}
		if why := w.ruledOutBy(ex); why != "" {
			w.avoided[ex.ID] = why
			if why == "level" && strengthWork(ex) {
				levelOut++
			}
			continue
		}
		if inj, ok := named[ex.ID]; ok {
			w.avoided[ex.ID] = inj.ID
			continue
		}
		hit, keep := "", true
		for _, inj := range w.in.Injuries {
			if !loads(ex, inj.Area) {
				continue
			}
			switch {
			case inj.Kind == "tendinopathy" && ex.Pattern == "isometric" && inj.Severity <= 4:
				rehab = append(rehab, ex.ID)
			case w.isEndurance(ex) && ex.Pattern == sportPattern && sportPattern != "" && !severe(inj):
				w.reduced[ex.ID] = true
			case ex.Pattern == "cycle" && inj.Area == "knee" && inj.Kind != "fracture" && inj.Kind != "after_surgery":
				w.reduced[ex.ID] = true // low impact: the swap for running
			default:
				hit, keep = inj.ID, false
			}
			if !keep {
				break
			}
		}
		if !keep {
			w.avoided[ex.ID] = hit
			delete(w.reduced, ex.ID)
			rehab = slices.DeleteFunc(rehab, func(id string) bool { return id == ex.ID })
			continue
		}
		w.allowed[ex.ID] = ex
	}
	w.rehab = rehab
	// The layout's exercises: strength work she has logged first (most
	// exposures), then in the catalogue's order; then endurance work.
	for _, ex := range w.in.Exercises {
		if _, ok := w.allowed[ex.ID]; ok && strengthWork(ex) && !slices.Contains(w.rehab, ex.ID) {
			w.order = append(w.order, ex.ID)
		}
	}
	slices.SortStableFunc(w.order, func(a, b string) int { return len(w.exposures[b]) - len(w.exposures[a]) })
	for _, ex := range w.in.Exercises {
		if _, ok := w.allowed[ex.ID]; ok && w.isEndurance(ex) {
			w.order = append(w.order, ex.ID)
		}
	}
	for _, inj := range w.in.Injuries {
		var ids []string
		for id, by := range w.avoided {
			rule := by == "level" || by == "condition" || by == "senior"
			if by == inj.ID || !rule && loads(w.lookup(id), inj.Area) {
				ids = append(ids, id)
			}
		}
		sort.Strings(ids)
		a := w.area(inj.Area)
		w.adjust = append(w.adjust, Adjustment{Kind: AdjustInjury, Exercises: ids,
			Reason: w.trf("%s %s injury (%s, %s, severity %d): no exercise that loads %s; %d such exercises left out.",
				"פציעה %[2]s %[7]s (%[3]s, %[4]s, חומרה %[5]d): בלי תרגילים שמעמיסים על %[1]s; %[6]d תרגילים כאלה הוצאו.",
				w.injuryArgs(inj, a, len(ids))...)})
		switch {
		case inj.Kind == "tendinopathy":
			var mine []string
			for _, id := range rehab {
				if loads(w.allowed[id], inj.Area) {
					mine = append(mine, id)
				}
			}
			if len(mine) > 0 {
				w.adjust = append(w.adjust, Adjustment{Kind: AdjustRehab, Exercises: mine,
					Reason: w.trf("A tendinopathy of %s: isometric holds (%s) open each strength session, 4 × 30–45 s at a moderate effort; pain up to 3 of 10 that settles by the next day is acceptable.",
						"פגיעה בגיד %s: החזקות סטטיות (%s) בפתיחת כל אימון כוח, 4 × 30–45 שניות במאמץ בינוני; כאב של עד 3 מתוך 10 שחולף עד למחרת מקובל.", w.tr(a, w.inArea(inj.Area)), w.names(mine))})
			}
		case inj.Kind == "fracture" || inj.Kind == "after_surgery":
			w.adjust = append(w.adjust, Adjustment{Kind: AdjustRehab,
				Reason: w.trf("Rehabilitation of %s follows %s clinician's plan; this week trains around it.",
					"השיקום של %s לפי התוכנית של הגורם המטפל %s; השבוע מתאמן מסביב לאזור.", a, w.her())})
		case inj.Severity >= 3:
			w.adjust = append(w.adjust, Adjustment{Kind: AdjustRehab,
				Reason: w.trf("An injury of severity %d %s: worth a clinician's look before it is trained again.",
					"פגיעה בחומרה %d %s: כדאי שגורם מטפל יבדוק לפני שחוזרים לאמן את האזור.", inj.Severity, w.inArea(inj.Area))})
		}
	}
	if levelOut > 0 {
		w.adjust = append(w.adjust, Adjustment{Kind: AdjustLevel,
			Reason: w.trf("%d exercises beyond a%s %s trainee's skill, and not in %s log, are left out.",
				"%d תרגילים שדורשים מיומנות מעבר לרמה (%s) ושלא נרשמו אצל %s הוצאו.", w.levelArgs(levelOut)...)})
	}
}

func (w *week) injuryArgs(inj domain.Injury, area string, n int) []any {
	side := inj.Side
	if w.lang() == "he" {
		side = map[string]string{"left": "צד שמאל", "right": "צד ימין", "both": "שני הצדדים", "none": "ללא צד"}[inj.Side]
		if side == "" {
			side = "צד לא צוין"
		}
		return []any{area, w.status(inj.Status), w.kindName(inj.Kind), side, inj.Severity, n, w.inArea(inj.Area)}
	}
	if side == "" {
		side = "side not given"
	} else {
		side += " side"
	}
	return []any{titleCase(inj.Status), strings.TrimPrefix(area, "the "), w.kindName(inj.Kind), side, inj.Severity, area, n}
}

func (w *week) levelArgs(n int) []any {
	if w.lang() == "he" {
		lv := map[string]string{beginner: "מתחילים", intermediate: "בינוניים", advanced: "מתקדמים"}[w.experience]
		return []any{n, lv, w.g("המתאמנת", "המתאמן")}
	}
	an := ""
	if w.experience != beginner {
		an = "n"
	}
	return []any{n, an, w.experience, w.her()}
}

func titleCase(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
