package planbar

import (
	"fmt"
	"strings"
)

// conditionRules are what each health condition (and age from the
// studio's senior age) rules out: movements by tag, and how close to
// failure a loaded set may go (the least RIR).
var conditionRules = map[string]struct {
	tags   []string
	minRIR float64
	why    string
}{
	"hypertension":    {[]string{tagIso, tagInvert}, 2, "hard isometric holds, head-down positions and sets near failure raise blood pressure"},
	"pregnancy":       {[]string{tagSupine, tagImpact, tagAbdo, tagOlympic, tagFall, tagInvert, tagSprint}, 2, "lying on the back, impact, falls and high abdominal pressure are ruled out in pregnancy"},
	"osteoporosis":    {[]string{tagFlexion, tagImpact, tagOlympic, tagFall}, 1, "loaded spinal flexion and twisting, impact and falls risk a fracture"},
	"heart_condition": {[]string{tagSprint, tagOlympic, tagIso, tagInvert}, 2, "all-out efforts, breath-holding and sets near failure strain the heart"},
	"senior":          {[]string{tagImpact, tagOlympic, tagSprint, tagInvert}, 2, "from the senior age no impact, fast lifts, sprints or inverted positions, and two reps in reserve"},
}

// severity is an injury's severity as the rules read it: one lower once
// recovering.
func (inj Injury) severity() int {
	if inj.Status == "recovering" {
		return inj.Severity - 1
	}
	return inj.Severity
}

// injuryVerdict says why m, prescribed as it, is not for someone with
// inj ("" when it is).
func injuryVerdict(m movement, it Item, inj Injury) string {
	area := inj.Area
	g := m.joints[area]
	if inj.Kind == "tendinopathy" && sameArea(area, "ankle") {
		g = max(m.joints["ankle"], m.joints["calf"])
	}
	if g == 0 {
		return ""
	}
	sev := inj.severity()
	rehab := m.rehabFor(area, it.Seconds)
	fast := m.has(tagImpact) || m.has(tagOlympic) || m.has(tagSprint)
	where := strings.ReplaceAll(area, "_", " ")
	switch inj.Kind {
	case "fracture", "after_surgery":
		if m.Pattern == "mobility" || (rehab && it.LoadKg == nil && sev <= 2) || (g == 1 && sev <= 2) {
			return ""
		}
		return fmt.Sprintf("loads the %s, which is healing (%s): only mobility and unloaded holds until the surgeon or physio clears more", where, strings.ReplaceAll(inj.Kind, "_", " "))
	case "tendinopathy":
		if fast {
			return fmt.Sprintf("loads the %s tendon fast (jumps, throws, sprints): no fast loading of a tendinopathy", where)
		}
		if rehab {
			return ""
		}
		if g >= 2 && sev >= 3 {
			return fmt.Sprintf("loads the %s heavily while its tendinopathy is at severity %d: isometrics first", where, inj.Severity)
		}
		return ""
	}
	if rehab && sev <= 3 {
		return ""
	}
	if fast && sev >= 2 {
		return fmt.Sprintf("loads the injured %s fast (jumps, throws, sprints)", where)
	}
	if g >= 2 && sev >= 3 {
		return fmt.Sprintf("loads the injured %s heavily (severity %d)", where, inj.Severity)
	}
	return ""
}

// rules are the condition rules that apply to her, by name.
func (c *checker) rules() []string {
	out := append([]string(nil), c.f.Conditions...)
	if c.f.Age >= c.f.Senior() {
		out = append(out, "senior")
	}
	return out
}

func (f Fixture) active() []Injury {
	var out []Injury
	for _, inj := range f.Injuries {
		if inj.Status != "resolved" {
			out = append(out, inj)
		}
	}
	return out
}

// injuries: nothing loads an injured area beyond what its kind and
// severity allow; a tendinopathy has its rehabilitation; nothing a health
// condition or her age rules out.
func (c *checker) injuries() {
	const item = "injuries"
	injuries := c.f.active()
	rules := c.rules()
	rehab := map[string]bool{}
	c.items(c.p, func(s Session, it Item, m movement, known bool) {
		if !known && (len(injuries) > 0 || len(rules) > 0) {
			c.fail(item, false, "%s: the checker cannot tell what %s loads, so it cannot clear it for her injuries or conditions", s.Date, it.ExerciseID)
			return
		}
		for _, inj := range injuries {
			if why := injuryVerdict(m, it, inj); why != "" {
				c.fail(item, true, "%s: %s %s", s.Date, it.ExerciseID, why)
			}
			if inj.Kind == "tendinopathy" && m.rehabFor(inj.Area, it.Seconds) {
				rehab[inj.Area] = true
			}
		}
		for _, r := range rules {
			rule := conditionRules[r]
			for _, t := range rule.tags {
				if m.has(t) {
					c.fail(item, true, "%s: %s is ruled out for %s (%s)", s.Date, it.ExerciseID, r, rule.why)
					break
				}
			}
			if loaded(it, m) && it.intensity() < rule.minRIR {
				c.fail(item, true, "%s: %s goes to %.0f reps in reserve; %s needs at least %.0f", s.Date, it.ExerciseID, it.intensity(), r, rule.minRIR)
			}
			if it.Percent1RM != nil && *it.Percent1RM > 80 && r != "osteoporosis" {
				c.fail(item, true, "%s: %s at %.0f%% of 1RM is too heavy for %s", s.Date, it.ExerciseID, *it.Percent1RM, r)
			}
		}
	})
	for _, inj := range injuries {
		if inj.Kind == "tendinopathy" && !rehab[inj.Area] {
			c.fail(item, false, "her %s tendinopathy has no rehabilitation in the week (an isometric hold or a slow loaded raise for the tendon)", inj.Area)
		}
	}
}

// loaded: a set that carries a load, or a compound that can.
func loaded(it Item, m movement) bool { return it.LoadKg != nil || (m.heavy && m.sport == "") }

// loads: every load is within what her trusted sets allow by the RTS
// chart, rises at most the cap on her last, and none stands on data the
// checker set aside.
func (c *checker) loads() {
	const item = "loads"
	c.items(c.p, func(s Session, it Item, m movement, _ bool) {
		if it.LoadKg == nil || *it.LoadKg <= 0 {
			return
		}
		kg := *it.LoadKg
		if b, ok := humanBound[m.Pattern]; ok && kg > b {
			c.fail(item, true, "%s: %s at %.1f kg is beyond what anyone has lifted (%.0f kg)", s.Date, it.ExerciseID, kg, b)
			return
		}
		reps := it.Reps
		if reps == 0 {
			reps = it.RepsMax
		}
		if reps == 0 {
			return // a carry or a hold: by distance or time
		}
		rir := it.intensity()
		share := Share(reps, rir)
		ld := c.lifts[it.ExerciseID]
		best, from := 0.0, it.ExerciseID
		if ld != nil {
			best = ld.best
		}
		if best == 0 {
			for id, o := range c.lifts {
				if om, _ := lookup(id); om.Pattern == m.Pattern && o.best*0.9 > best {
					best, from = o.best*0.9, id
				}
			}
		}
		if best == 0 {
			if kg > noDataKg {
				why := "she has logged no trusted set of it or its pattern"
				if ld != nil && len(ld.untrusted) > 0 {
					why = fmt.Sprintf("her only sets of it (%.0f kg) are beyond belief and set aside", ld.untrusted[0])
				}
				c.fail(item, true, "%s: %s at %.1f kg stands on no data: %s", s.Date, it.ExerciseID, kg, why)
			}
			return
		}
		allow := best*share*(1+loadTolerance) + loadSlackKg
		if kg > allow {
			c.fail(item, true, "%s: %s %d reps at %.1f kg (%.0f in reserve) needs a 1RM of %.0f kg; her trusted sets of %s show %.0f kg, so at most %.1f kg (RTS chart)",
				s.Date, it.ExerciseID, reps, kg, rir, kg/share, from, best, allow)
			return
		}
		if ld != nil && ld.last > 0 && reps >= ld.lastReps {
			if cap := ld.last + max(jumpFloorKg, jumpCap*ld.last); kg > cap+0.01 {
				c.fail(item, true, "%s: %s at %.1f kg for %d reps jumps from her last %.1f kg for %d; at most %.1f kg in a week", s.Date, it.ExerciseID, kg, reps, ld.last, ld.lastReps, cap)
			}
		}
	})
}
