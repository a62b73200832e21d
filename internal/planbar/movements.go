package planbar

import (
	"strconv"
	"strings"
)

// The checker's own movement list: every exercise is read as a movement
// pattern, and a pattern says which body areas it loads and how hard (1
// some, 2 a lot), which muscle group it tires, what it risks (tags) and
// which rehabilitation it is. It is a coach's judgement written for this
// bar, not the catalogue's tags: the bar must not grade a generator with
// the generator's own data.

// pattern is one movement pattern.
type pattern struct {
	joints map[string]int // body area → 1 (some load) or 2 (a lot)
	group  string         // the muscle group it tires: legs, posterior, push, pull, core, ""
	heavy  bool           // a compound that can be loaded near a maximum
	tags   []string
	sport  string // running, cycling, swimming, conditioning: endurance or conditioning work
	rehab  []string
}

// Tags: what a movement risks.
const (
	tagImpact  = "impact"  // jumps, landings, bounding
	tagOlympic = "olympic" // a fast lift from the floor or overhead
	tagSprint  = "sprint"  // all-out effort
	tagIso     = "iso"     // a hard isometric hold (a Valsalva)
	tagInvert  = "inverted"
	tagSupine  = "supine"  // lying on the back
	tagFlexion = "flexion" // loaded spinal flexion or twist
	tagAbdo    = "abdo"    // high abdominal pressure
	tagFall    = "fall"    // balance or fall risk
)

func j(spec string) map[string]int {
	out := map[string]int{}
	for _, f := range strings.Fields(spec) {
		area, grade, _ := strings.Cut(f, ":")
		g, _ := strconv.Atoi(grade)
		out[area] = g
	}
	return out
}

var patterns = map[string]pattern{
	"squat":      {joints: j("knee:2 hip:2 lower_back:1 quadriceps:2 glute:1"), group: "legs", heavy: true},
	"legpress":   {joints: j("knee:2 hip:1 quadriceps:2"), group: "legs", heavy: true},
	"kneeext":    {joints: j("knee:2 quadriceps:2"), group: "legs"},
	"kneeiso":    {joints: j("knee:1 quadriceps:1"), group: "legs", rehab: []string{"knee", "quadriceps"}},
	"lunge":      {joints: j("knee:2 hip:2 ankle:1 quadriceps:2 glute:1"), group: "legs", heavy: true},
	"stepup":     {joints: j("knee:2 hip:1 ankle:1 quadriceps:2"), group: "legs"},
	"pistol":     {joints: j("knee:2 hip:2 ankle:2 quadriceps:2"), group: "legs", tags: []string{tagFall}},
	"hinge":      {joints: j("hip:2 lower_back:2 hamstring:2 glute:2 knee:1"), group: "posterior", heavy: true},
	"hingelight": {joints: j("hip:1 lower_back:1 hamstring:1 glute:1"), group: "posterior"},
	"bridge":     {joints: j("hip:1 glute:2"), group: "posterior", tags: []string{tagSupine}},
	"kneeflex":   {joints: j("knee:1 hamstring:2"), group: "posterior"},
	"nordic":     {joints: j("knee:2 hamstring:2"), group: "posterior"},
	"swing":      {joints: j("hip:2 lower_back:1 hamstring:1 glute:1"), group: "posterior"},
	"olympic":    {joints: j("knee:2 hip:2 lower_back:2 shoulder:2 wrist:2 ankle:2 elbow:1"), group: "posterior", heavy: true, tags: []string{tagOlympic, tagImpact}},
	"jump":       {joints: j("knee:2 ankle:2 hip:1 calf:2 foot:2 quadriceps:1"), group: "legs", tags: []string{tagImpact}},
	"upperplyo":  {joints: j("shoulder:2 wrist:2 elbow:2 chest:1"), group: "push", tags: []string{tagImpact}},
	"hpush":      {joints: j("shoulder:2 elbow:1 wrist:1 chest:2"), group: "push", heavy: true, tags: []string{tagSupine}},
	"pushup":     {joints: j("shoulder:1 elbow:1 wrist:2 chest:1"), group: "push"},
	"vpush":      {joints: j("shoulder:2 elbow:1 wrist:1 lower_back:1"), group: "push", heavy: true},
	"handstand":  {joints: j("shoulder:2 wrist:2 neck:2 elbow:2"), group: "push", tags: []string{tagInvert}},
	"dip":        {joints: j("shoulder:2 elbow:2 wrist:1 chest:1"), group: "push"},
	"fly":        {joints: j("shoulder:2 chest:1"), group: "push"},
	"hpull":      {joints: j("shoulder:1 elbow:1 upper_back:1"), group: "pull", heavy: true},
	"vpull":      {joints: j("shoulder:2 elbow:1"), group: "pull", heavy: true},
	"raise":      {joints: j("shoulder:1"), group: "push"},
	"cuff":       {joints: j("shoulder:1"), group: "pull", rehab: []string{"shoulder"}},
	"curl":       {joints: j("elbow:1 wrist:1"), group: "arms"},
	"triext":     {joints: j("elbow:1"), group: "arms"},
	"wrist":      {joints: j("wrist:1 hand:1"), group: "arms"},
	"shrug":      {joints: j("neck:1 upper_back:1"), group: "pull"},
	"calf":       {joints: j("calf:1 ankle:1"), group: "legs", rehab: []string{"calf", "ankle"}},
	"tibialis":   {joints: j("shin:1 ankle:1"), group: "legs"},
	"hipiso":     {joints: j("hip:1 groin:1"), group: ""},
	"copenhagen": {joints: j("groin:2 hip:1 shoulder:1"), group: "core", tags: []string{tagIso}},
	"carry":      {joints: j("wrist:1 hand:1 shoulder:1 lower_back:1 hip:1"), group: "", sport: "conditioning"},
	"ohcarry":    {joints: j("shoulder:2 wrist:1 lower_back:1"), group: "push", sport: "conditioning"},
	"sled":       {joints: j("knee:2 hip:1 ankle:1 quadriceps:2"), group: "legs", sport: "conditioning"},
	"plank":      {joints: j("abdomen:1 lower_back:1 shoulder:1"), group: "core"},
	"crunch":     {joints: j("abdomen:1 lower_back:1 neck:1"), group: "core", tags: []string{tagFlexion, tagSupine, tagAbdo}},
	"legraise":   {joints: j("abdomen:2 hip:1 lower_back:1"), group: "core", tags: []string{tagAbdo}},
	"twist":      {joints: j("lower_back:1 abdomen:1"), group: "core", tags: []string{tagFlexion}},
	"rollout":    {joints: j("abdomen:2 lower_back:2 shoulder:1"), group: "core", tags: []string{tagAbdo}},
	"antirot":    {joints: j("abdomen:1"), group: "core"},
	"getup":      {joints: j("shoulder:2 hip:1 knee:2 wrist:1"), group: "", tags: []string{tagFall}},
	"climber":    {joints: j("wrist:1 shoulder:1 hip:1"), group: "core", sport: "conditioning"},
	"burpee":     {joints: j("knee:2 ankle:1 shoulder:1 wrist:1"), group: "", sport: "conditioning", tags: []string{tagImpact}},
	"skip":       {joints: j("ankle:2 calf:2 knee:1 foot:1"), group: "", sport: "conditioning", tags: []string{tagImpact}},
	"sprint":     {joints: j("hamstring:2 knee:2 ankle:2 calf:2 foot:2 hip:1"), group: "legs", sport: "conditioning", tags: []string{tagSprint, tagImpact}},
	"airbike":    {joints: j("knee:1 hip:1 shoulder:1"), group: "", sport: "conditioning"},
	"ropes":      {joints: j("shoulder:2 elbow:1"), group: "", sport: "conditioning"},
	"thruster":   {joints: j("knee:2 hip:2 shoulder:2 wrist:1"), group: "legs", sport: "conditioning"},
	"crawl":      {joints: j("wrist:1 shoulder:1"), group: "", sport: "conditioning"},
	"run":        {joints: j("knee:2 ankle:2 calf:2 hip:1 foot:2 shin:1"), sport: "running"},
	"walk":       {joints: j("knee:1 ankle:1 foot:1"), sport: "conditioning"},
	"hike":       {joints: j("knee:2 ankle:1 foot:1"), sport: "conditioning", tags: []string{tagFall}},
	"cycle":      {joints: j("knee:1 hip:1"), sport: "cycling"},
	"swim":       {joints: j("shoulder:2 neck:1"), sport: "swimming"},
	"aquajog":    {joints: j("hip:1"), sport: "conditioning"},
	"row":        {joints: j("lower_back:1 knee:1 shoulder:1"), sport: "conditioning"},
	"skierg":     {joints: j("shoulder:1 lower_back:1"), sport: "conditioning"},
	"elliptical": {joints: j("knee:1 hip:1"), sport: "conditioning"},
	"stairs":     {joints: j("knee:2 hip:1"), sport: "conditioning"},
	"mobility":   {joints: map[string]int{}},
}

// movement is one exercise as the checker reads it.
type movement struct {
	ID      string
	Pattern string
	pattern
	Level int        // 0 beginner, 1 intermediate, 2 advanced
	Needs [][]string // any one of these sets of equipment ("none": nothing)
	Known bool       // found in the table (not only by a keyword)
}

// table is the catalogue's exercises as a coach reads them, one a line:
// id, pattern, level (b, i, a), what it needs (alternatives by "|", joined
// by "+"), then optional extras: +area:grade (more load), +tag.
const table = `
back-squat squat b barbell+rack +lower_back:2
front-squat squat i barbell+rack +lower_back:2 +wrist:1
goblet-squat squat b dumbbell|kettlebell
leg-press legpress b machine
hack-squat legpress b machine
smith-machine-squat squat b machine
box-squat squat b barbell+rack+box
bodyweight-squat squat b none
overhead-squat squat a barbell +shoulder:2 +wrist:2 +lower_back:2
wall-sit kneeiso b none
leg-extension kneeext b machine
split-squat lunge b none|dumbbell|barbell
bulgarian-split-squat lunge i dumbbell+bench|bench
pistol-squat pistol a none
step-up stepup b box|bench
forward-lunge lunge b none|dumbbell
reverse-lunge lunge b none|dumbbell|barbell
walking-lunge lunge b none|dumbbell
lateral-lunge lunge b none|dumbbell|kettlebell +groin:1
deadlift hinge b barbell
sumo-deadlift hinge b barbell +groin:1
trap-bar-deadlift hinge b trap bar +knee:1
romanian-deadlift hinge b barbell
dumbbell-romanian-deadlift hinge b dumbbell
stiff-leg-deadlift hinge i barbell|dumbbell
single-leg-romanian-deadlift hingelight b dumbbell|kettlebell|none +ankle:1
good-morning hinge i barbell
hip-thrust bridge b barbell+bench
glute-bridge bridge b none
single-leg-glute-bridge bridge b none
cable-pull-through hingelight b cable
kettlebell-swing swing i kettlebell
back-extension hingelight b bench|machine
leg-curl kneeflex b machine
nordic-hamstring-curl nordic i none
stability-ball-leg-curl kneeflex b stability ball +supine
bench-press hpush b barbell+bench
dumbbell-bench-press hpush b dumbbell+bench
smith-machine-bench-press hpush b machine+bench
incline-bench-press hpush b barbell+bench
incline-dumbbell-press hpush b dumbbell+bench
decline-bench-press hpush i barbell+bench
close-grip-bench-press hpush i barbell+bench +elbow:2
machine-chest-press hpush b machine
push-up pushup b none
incline-push-up pushup b none|bench
knee-push-up pushup b none
diamond-push-up pushup i none +elbow:2
dumbbell-fly fly b dumbbell+bench +supine
cable-crossover fly b cable
pec-deck fly b machine
dips dip i dip bars
bench-dip dip b bench
overhead-press vpush b barbell+rack|barbell
dumbbell-shoulder-press vpush b dumbbell
arnold-press vpush i dumbbell
machine-shoulder-press vpush b machine
push-press vpush i barbell+rack|barbell +knee:1
landmine-press vpush b landmine|barbell
pike-push-up handstand i none
handstand-push-up handstand a none
lateral-raise raise b dumbbell|cable|band
cable-lateral-raise raise b cable
front-raise raise b dumbbell|plate|cable
rear-delt-fly raise b dumbbell|machine|cable
face-pull cuff b cable|band
upright-row raise i barbell|dumbbell|cable +shoulder:2
shrug shrug b barbell|dumbbell|trap bar
band-pull-apart cuff b band
external-rotation cuff b cable|band|dumbbell
pull-up vpull i pull-up bar
chin-up vpull i pull-up bar +elbow:1
assisted-pull-up vpull b machine|band+pull-up bar
lat-pulldown vpull b cable|machine
straight-arm-pulldown vpull b cable
dumbbell-pullover fly i dumbbell+bench +supine
barbell-row hpull b barbell +lower_back:2
dumbbell-row hpull b dumbbell
seated-cable-row hpull b cable
t-bar-row hpull i landmine|machine|barbell +lower_back:2
chest-supported-row hpull b dumbbell+bench
machine-row hpull b machine
inverted-row hpull b rings|rack+barbell|suspension trainer|pull-up bar
barbell-curl curl b barbell|ez bar
dumbbell-curl curl b dumbbell
hammer-curl curl b dumbbell|cable
preacher-curl curl b ez bar|dumbbell|machine
cable-curl curl b cable
triceps-pushdown triext b cable|band
skull-crusher triext b ez bar|barbell|dumbbell +elbow:2 +supine
overhead-triceps-extension triext b dumbbell|cable +shoulder:1
triceps-kickback triext b dumbbell|cable
wrist-curl wrist b dumbbell|barbell
standing-calf-raise calf b none|machine|dumbbell
seated-calf-raise calf b machine
hip-abduction hipiso b machine|band
lateral-band-walk hipiso b band
hip-adduction hipiso b machine|cable
copenhagen-plank copenhagen i bench
tibialis-raise tibialis b none|machine
farmers-carry carry b dumbbell|kettlebell|trap bar
suitcase-carry carry b dumbbell|kettlebell
overhead-carry ohcarry i dumbbell|kettlebell|barbell
sled-push sled b sled
sled-pull sled b sled
plank plank b none
side-plank plank b none
crunch crunch b none
cable-crunch crunch b cable -supine
sit-up crunch b none +hip:1
bicycle-crunch crunch b none
hanging-leg-raise legraise i pull-up bar +shoulder:1
captains-chair-leg-raise legraise b dip bars|machine
lying-leg-raise legraise b none +supine
russian-twist twist b none|medicine ball|plate
ab-wheel-rollout rollout i ab wheel
stability-ball-rollout rollout b stability ball
dead-bug antirot b none +supine
bird-dog antirot b none
hollow-hold plank i none +abdo +supine
pallof-press antirot b cable|band
cable-woodchop twist b cable|medicine ball
mountain-climber climber b none
power-clean olympic i barbell
hang-clean olympic i barbell
clean-and-jerk olympic a barbell
snatch olympic a barbell
power-snatch olympic a barbell
dumbbell-snatch olympic i dumbbell|kettlebell
push-jerk olympic a barbell+rack|barbell
thruster thruster i barbell|dumbbell
turkish-get-up getup i kettlebell|dumbbell
box-jump jump i box +fall
broad-jump jump i none
squat-jump jump b none
jump-lunge jump i none +fall
depth-jump jump a box +fall
tuck-jump jump i none
lateral-bound jump i none +fall
pogo-jumps jump b none
medicine-ball-slam upperplyo b medicine ball +lower_back:1
medicine-ball-chest-pass upperplyo b medicine ball
plyo-push-up upperplyo i none
burpee burpee b none
jumping-jack skip b none
jump-rope skip b jump rope
battle-ropes ropes b battle ropes
wall-ball thruster b medicine ball
bear-crawl crawl b none
sprint sprint i none
shuttle-run sprint i none
assault-bike airbike b air bike
ski-erg skierg b ski erg
running run b none
treadmill-running run b treadmill
trail-running run i none +fall
walking walk b none
incline-walking walk b treadmill
hiking hike b none
cycling cycle b bike
stationary-bike cycle b stationary bike|bike
spinning cycle b stationary bike|bike
rowing-machine row b rower
swimming swim b pool
aqua-jogging aquajog b pool
elliptical elliptical b elliptical
stair-climber stairs b stair climber
hip-flexor-stretch mobility b none
hamstring-stretch mobility b none|band
quad-stretch mobility b none
calf-stretch mobility b none
pigeon-stretch mobility b none|mat
hip-90-90 mobility b none
worlds-greatest-stretch mobility b none
cat-cow mobility b none|mat
thoracic-rotation mobility b none
childs-pose mobility b none|mat
downward-dog mobility b none|mat +inverted
cossack-squat lunge i none|kettlebell +groin:1
deep-squat-hold mobility b none
ankle-mobility mobility b none
shoulder-dislocate mobility b band|dowel
doorway-chest-stretch mobility b none
neck-stretch mobility b none
foam-rolling mobility b foam roller|none
yoga-flow mobility b mat|none
spanish-squat-hold kneeiso b band
isometric-calf-raise-hold calf b none|dumbbell|machine
isometric-external-rotation cuff b none|band
isometric-wrist-extension wrist b none|dumbbell +elbow:1
isometric-adductor-squeeze hipiso b none
isometric-bridge-hold bridge b none +hamstring:2
`

var movements = func() map[string]movement {
	out := map[string]movement{}
	for _, line := range strings.Split(table, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		// the needs hold spaces ("pull-up bar"): split on the known shape
		f := strings.Fields(line)
		id, pat, lvl := f[0], f[1], f[2]
		var needs, extras []string
		for _, x := range f[3:] {
			if strings.HasPrefix(x, "+") || strings.HasPrefix(x, "-") {
				extras = append(extras, x)
			} else {
				needs = append(needs, x)
			}
		}
		m := newMovement(id, pat)
		m.Known = true
		m.Level = strings.Index("bia", lvl)
		for _, alt := range strings.Split(strings.Join(needs, " "), "|") {
			m.Needs = append(m.Needs, strings.Split(alt, "+"))
		}
		for _, x := range extras {
			body := x[1:]
			if area, g, ok := strings.Cut(body, ":"); ok {
				n, _ := strconv.Atoi(g)
				m.joints[area] = max(m.joints[area], n)
			} else if x[0] == '-' {
				m.tags = without(m.tags, body)
			} else {
				m.tags = append(m.tags, body)
			}
		}
		if _, dup := out[id]; dup {
			panic("planbar: " + id + " is in the movement table twice")
		}
		out[id] = m
	}
	return out
}()

func newMovement(id, pat string) movement {
	p, ok := patterns[pat]
	if !ok {
		panic("planbar: " + id + ": no pattern " + pat)
	}
	m := movement{ID: id, Pattern: pat, pattern: p}
	m.joints = map[string]int{}
	for a, g := range p.joints {
		m.joints[a] = g
	}
	m.tags = append([]string(nil), p.tags...)
	return m
}

func without(s []string, v string) []string {
	var out []string
	for _, x := range s {
		if x != v {
			out = append(out, x)
		}
	}
	return out
}

// keywords read an exercise the table does not hold (a studio's own, or
// one a generator adds) by its id or name: the first that matches wins.
var keywords = []struct{ words, pattern string }{
	{"spanish wall-sit wall sit isometric-squat", "kneeiso"},
	{"pogo hop bound jump plyo", "jump"},
	{"snatch clean jerk", "olympic"},
	{"get-up getup", "getup"},
	{"calf achilles heel-raise", "calf"},
	{"sprint interval-run hill-repeat", "sprint"},
	{"run jog", "run"},
	{"swim", "swim"},
	{"cycl ride bike spin", "cycle"},
	{"walk", "walk"},
	{"rowing erg", "row"},
	{"step-up", "stepup"},
	{"pistol", "pistol"},
	{"leg-extension", "kneeext"},
	{"leg-press", "legpress"},
	{"squat", "squat"},
	{"lunge split", "lunge"},
	{"deadlift rdl good-morning hinge", "hinge"},
	{"bridge thrust", "bridge"},
	{"handstand", "handstand"},
	{"bench press chest-press floor-press", "hpush"},
	{"push-up pushup", "pushup"},
	{"overhead shoulder-press military", "vpush"},
	{"pull-up pullup chin pulldown", "vpull"},
	{"rotation face-pull pull-apart cuff", "cuff"},
	{"row", "hpull"},
	{"curl", "curl"},
	{"triceps extension", "triext"},
	{"raise fly", "raise"},
	{"plank hold", "plank"},
	{"crunch sit-up", "crunch"},
	{"stretch mobility yoga foam", "mobility"},
}

// Reads says how the checker reads an exercise: "table" (its own line),
// "keywords" (by its id and name), or "" (it cannot tell what it loads).
func Reads(id, name string) string {
	if _, ok := movements[id]; ok {
		return "table"
	}
	if _, ok := guess(id, name); ok {
		return "keywords"
	}
	return ""
}

// lookup reads an exercise: the table, else its keywords.
func lookup(id string) (movement, bool) {
	if m, ok := movements[id]; ok {
		return m, true
	}
	return guess(id, "")
}

// guess reads an exercise by its id and name alone.
func guess(id, name string) (movement, bool) {
	text := strings.ToLower(id + " " + strings.ReplaceAll(name, " ", "-"))
	for _, k := range keywords {
		for _, w := range strings.Fields(k.words) {
			if strings.Contains(text, w) {
				m := newMovement(id, k.pattern)
				m.Needs = [][]string{{"none"}}
				return m, true
			}
		}
	}
	return movement{ID: id, Pattern: "unknown", pattern: pattern{joints: map[string]int{}}}, false
}

// isometric: a hold (seconds, no reps) of a pattern that loads area —
// the first rehabilitation of a tendinopathy.
func (m movement) rehabFor(area string, seconds int) bool {
	for _, a := range m.rehab {
		if a == area || sameArea(a, area) {
			return true
		}
	}
	return seconds > 0 && m.joints[area] > 0 && m.sport == "" && m.Pattern != "mobility"
}

// sameArea: an Achilles tendinopathy is recorded at the ankle or the calf.
func sameArea(a, b string) bool {
	achilles := map[string]bool{"ankle": true, "calf": true}
	return achilles[a] && achilles[b]
}

func (m movement) has(tag string) bool {
	for _, t := range m.tags {
		if t == tag {
			return true
		}
	}
	return false
}
