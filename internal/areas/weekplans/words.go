package weekplans

import (
	"fmt"
	"strings"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/lane"
)

// What the area writes (the next step, the summaries, the coach's task)
// is in the studio's language, Hebrew unless it or the request says
// English, and speaks of the trainee in her gender where it is known.

// words are one language's sentences, with the trainee's gender.
type words struct {
	en     bool
	gender string // female, male, or "" (unknown, other)
}

// languageOf is the request's language when its Accept-Language asks for
// he or en first, else the studio's.
func languageOf(c *lane.Call, studio domain.Studio) string {
	for _, tag := range strings.Split(c.Req.Header.Get("Accept-Language"), ",") {
		tag = strings.ToLower(strings.TrimSpace(strings.SplitN(tag, ";", 2)[0]))
		switch {
		case tag == "en" || strings.HasPrefix(tag, "en-"):
			return "en"
		case tag == "he" || strings.HasPrefix(tag, "he-") || tag == "iw":
			return "he"
		case tag != "" && tag != "*":
			return studio.Language()
		}
	}
	return studio.Language()
}

func wordsFor(lang string, t domain.Trainee) words {
	w := words{en: lang == "en"}
	if t.Gender != nil && (*t.Gender == "female" || *t.Gender == "male") {
		w.gender = *t.Gender
	}
	return w
}

// g picks the Hebrew form of her gender: female, male, or both written.
func (w words) g(female, male, both string) string {
	switch w.gender {
	case "female":
		return female
	case "male":
		return male
	}
	return both
}

// her is "her", "his" or "their".
func (w words) her() string { return w.g("her", "his", "their") }

func (w words) applied(n int) string {
	if w.en {
		return fmt.Sprintf("Applied: %d planned sessions (list_sessions shows them).", n)
	}
	return fmt.Sprintf("הוחל: %d אימונים מתוכננים (list_sessions מציג אותם).", n)
}

func (w words) expired() string {
	if w.en {
		return "This draft expired unapplied; draft the week again."
	}
	return "הטיוטה פגה בלי שהוחלה; יש לנסח את השבוע מחדש."
}

func (w words) superseded(reason string) string {
	if w.en {
		return fmt.Sprintf("Superseded by a newer draft of the week (%s): draft_weekly_plan answers it.", reason)
	}
	return fmt.Sprintf("הוחלפה בטיוטה חדשה יותר של השבוע (%s): draft_weekly_plan מחזיר אותה.", reason)
}

func (w words) forCoach() string {
	if w.en {
		return "A draft for your coach: nothing is planned until your coach applies it."
	}
	return "טיוטה לאישור המאמן: שום דבר לא מתוכנן עד שהמאמן יחיל אותה."
}

func (w words) toApply(id string) string {
	if w.en {
		return fmt.Sprintf("Nothing is planned yet: apply_weekly_plan with draftId %s lays these sessions out.", id)
	}
	return fmt.Sprintf("עוד לא תוכנן דבר: apply_weekly_plan עם draftId %s מכניס את האימונים ליומן.", id)
}

// refining is said while the model still refines the draft.
func (w words) refining() string {
	if w.en {
		return " The model is still refining the layout and notes; applying now takes the rules' week as it stands."
	}
	return " המודל עוד משפר את הסידור וההערות; החלה עכשיו לוקחת את שבוע הכללים כפי שהוא."
}

// reasons name the fingerprint's parts that changed.
func (w words) reasons(parts []string) string {
	en := map[string]string{"profile": w.her() + " training profile changed", "conditions": w.her() + " health conditions changed",
		"injuries": w.her() + " injuries changed", "history": "a session was logged", "planned": w.her() + " planned sessions changed",
		"checkins": "a new check-in", "program": w.her() + " program or the studio's exercises changed",
		"appointments": w.her() + " appointments of the week changed"}
	he := map[string]string{"profile": w.g("פרופיל האימון שלה השתנה", "פרופיל האימון שלו השתנה", "פרופיל האימון השתנה"),
		"conditions": w.g("מצבי הבריאות שלה השתנו", "מצבי הבריאות שלו השתנו", "מצבי הבריאות השתנו"),
		"injuries":   w.g("הפציעות שלה השתנו", "הפציעות שלו השתנו", "הפציעות השתנו"), "history": "נרשם אימון",
		"planned":  w.g("האימונים המתוכננים שלה השתנו", "האימונים המתוכננים שלו השתנו", "האימונים המתוכננים השתנו"),
		"checkins": "נרשם צ'ק-אין חדש", "program": "התוכנית או התרגילים של הסטודיו השתנו",
		"appointments": w.g("התורים שלה השבוע השתנו", "התורים שלו השבוע השתנו", "התורים של השבוע השתנו")}
	names := he
	if w.en {
		names = en
	}
	var out []string
	for _, p := range parts {
		out = append(out, names[p])
	}
	return strings.Join(out, ", ")
}

// askedAnew is the reason of a draft asked with fresh, days or a rule.
func (w words) askedAnew() string {
	if w.en {
		return "asked anew (fresh, days or a rule)"
	}
	return "התבקשה מחדש (fresh, days או rule)"
}

// why says why a new draft was made beside an older pending one.
func (w words) why(reason string) string {
	if w.en {
		return fmt.Sprintf("A new draft: %s since the pending draft of the week, which is superseded.", reason)
	}
	return fmt.Sprintf("טיוטה חדשה: %s מאז הטיוטה הממתינה של השבוע, שהוחלפה.", reason)
}

// task is the coaches' task about the week a trainee drafted.
func (w words) task(t domain.Trainee, week, draftID, summary string) (title, detail string) {
	if w.en {
		return fmt.Sprintf("%s drafted a training week from %s: review and apply it", t.FirstName, week),
			fmt.Sprintf("Draft %s: %s Apply it with apply_weekly_plan, or draft another with draft_weekly_plan.", draftID, summary)
	}
	return fmt.Sprintf("%s %s שבוע אימונים מ-%s: לבדוק ולהחיל", t.FirstName, w.g("ניסחה", "ניסח", "ניסח/ה"), week),
		fmt.Sprintf("טיוטה %s: %s אפשר להחיל אותה עם apply_weekly_plan, או לנסח אחרת עם draft_weekly_plan.", draftID, summary)
}

// appliedSummary is the answer of applying a draft.
func (w words) appliedSummary(changed, added int, week string, hardSets int) string {
	if w.en {
		return fmt.Sprintf("Planned the week of %s: %d planned sessions adjusted in place, %d added (%d hard sets).", week, changed, added, hardSets)
	}
	return fmt.Sprintf("השבוע של %s תוכנן: %d אימונים מתוכננים עודכנו במקומם, %d נוספו (%d סטים קשים).", week, changed, added, hardSets)
}

func (w words) alreadyApplied(id string, n int) string {
	if w.en {
		return fmt.Sprintf("Draft %s was applied already: its %d planned sessions stand.", id, n)
	}
	return fmt.Sprintf("טיוטה %s כבר הוחלה: %d האימונים המתוכננים שלה עומדים.", id, n)
}
