package agent

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/otherwise/perform/internal/answers"
	"github.com/otherwise/perform/internal/training"
)

// The digest's words: plain rules over the triage's reason codes, no model.

// digestTop is how many trainees the digest names; the rest are counted.
const digestTop = 5

// templateLineMax bounds the template's one-line list (WhatsApp limits a
// parameter's length and forbids line breaks in it).
const templateLineMax = 600

// reasonLabels say why, in a few words, per reason code.
var reasonLabels = map[string]string{
	"low_readiness":     "מוכנות נמוכה כמה ימים ברצף",
	"active_injury":     "פציעה פעילה",
	"plan_ended":        "המנוי הסתיים ולא חודש",
	"no_recent_session": "אין אימון ב-10 הימים האחרונים",
	"missed_sessions":   "פספוס אימונים השבוע",
	"plan_ending":       "המנוי מסתיים בקרוב",
	"weight_off_goal":   "המשקל מתרחק מהיעד",
	"overdue_tasks":     "משימה באיחור",
	"form_past_due":     "טופס שלא מולא בזמן",
	"feedback":          "השאירו משוב לסטודיו",
	"no_show":           "לא הגיע/ה לתור בלי לבטל",
	// Billing's reasons (the assistant's key holds the billing scope).
	"owes":         "יש חוב שמועד תשלומו עבר",
	"package_ends": "החבילה מסתיימת בקרוב",
	"no_credits":   "לא נשארו אימונים בחבילה",
	// The payments webhook's (also under billing).
	"payment_failed": "תשלום נכשל אצל חברת הסליקה",
}

// reasonDrafts are short messages the coach can forward to the trainee, by
// the trainee's most severe reason; %s is the trainee's first name.
var reasonDrafts = map[string]string{
	"low_readiness":     "היי %s, שמתי לב שהמוכנות שלך נמוכה כבר כמה ימים. איך השינה והאנרגיה? אם צריך, נוריד עומס באימון הבא 💪",
	"active_injury":     "היי %s, איך ההרגשה עם הפציעה? מחכה לעדכון ממך כדי להתאים את האימונים 🙏",
	"plan_ended":        "היי %s, המנוי שלך הסתיים. רוצה שנחדש ונמשיך ביחד? 😊",
	"no_recent_session": "היי %s, מתגעגעים אליך בסטודיו! מתי נקבע את האימון הבא? 💪",
	"missed_sessions":   "היי %s, ראיתי שהשבוע פספסת כמה אימונים. הכול בסדר? נמצא יחד זמן שמתאים לך 🙂",
	"plan_ending":       "היי %s, המנוי שלך מסתיים בקרוב. רוצה שנדבר על ההמשך? 😊",
	"weight_off_goal":   "היי %s, אפשר לדבר רגע על יעד המשקל? יש לי כמה רעיונות להמשך 🙂",
	"overdue_tasks":     "היי %s, רציתי לחזור אליך לגבי מה שדיברנו. יש לך דקה היום? 🙂",
	"form_past_due":     "היי %s, נשאר טופס קצר למלא. זה לוקח דקה ועוזר לי להתאים לך את האימונים 🙏",
	"feedback":          "היי %s, תודה על מה ששיתפת! קראתי ואחזור אליך היום 🙏",
	"no_show":           "היי %s, התגעגענו אליך בתור האחרון. הכול בסדר? נקבע מועד חדש שמתאים לך 🙂",
	"owes":              "היי %s, תזכורת קטנה: נשאר תשלום פתוח על המנוי. אפשר להסדיר בביט, בהעברה או במזומן באימון הבא 🙏",
	"package_ends":      "היי %s, החבילה שלך מסתיימת בקרוב. רוצה שנחדש ונמשיך ביחד? 😊",
	"no_credits":        "היי %s, נגמרו האימונים בחבילה שלך. רוצה לחדש כדי שנמשיך? 💪",
	"payment_failed":    "היי %s, נראה שהתשלום האחרון לא עבר. אפשר לבדוק את אמצעי התשלום, או להסדיר בביט, בהעברה או במזומן 🙏",
}

const genericDraft = "היי %s, רציתי לשמוע מה שלומך ואיך האימונים הולכים 🙂"

func firstWord(name string) string {
	if f := strings.Fields(name); len(f) > 0 {
		return f[0]
	}
	return name
}

// attentionName is the trainee's full name.
func attentionName(t training.Attention) string {
	return strings.TrimSpace(t.FirstName + " " + t.LastName)
}

// labels are the item's reasons in words, most severe first.
func attentionLabels(t training.Attention) []string {
	var out []string
	for _, r := range t.Reasons {
		if l, ok := reasonLabels[r.Code]; ok {
			out = append(out, l)
		}
	}
	return out
}

// draft is the message to forward, from the most severe reason.
func attentionDraft(t training.Attention) string {
	first := firstWord(t.FirstName)
	if first == "" {
		first = firstWord(attentionName(t))
	}
	for _, r := range t.Reasons {
		if d, ok := reasonDrafts[r.Code]; ok {
			return fmt.Sprintf(d, first)
		}
	}
	return fmt.Sprintf(genericDraft, first)
}

// digestMessages are the digest inside the 24-hour window: one message
// with who needs the coach today and why, then one per trainee named with
// nothing but the drafted message, so she forwards it as it is.
func digestMessages(coachName string, page answers.Triage, today []string) []string {
	var b strings.Builder
	fmt.Fprintf(&b, "בוקר טוב %s ☀️\n", firstWord(coachName))
	if len(today) > 0 {
		fmt.Fprintf(&b, "היום ביומן (%d):\n%s\n\n", len(today), strings.Join(today, "\n"))
	}
	if page.Total == 0 || len(page.Items) == 0 {
		b.WriteString("אף אחד מהמתאמנים שלך לא צריך תשומת לב מיוחדת היום. יום טוב! 💪")
		return []string{b.String()}
	}
	if page.Total == 1 {
		b.WriteString("היום יש מתאמן אחד שצריך אותך:\n")
	} else {
		fmt.Fprintf(&b, "היום %d מתאמנים צריכים אותך:\n", page.Total)
	}
	shown := page.Items[:min(len(page.Items), digestTop)]
	for i, t := range shown {
		fmt.Fprintf(&b, "\n%d. *%s* – %s", i+1, attentionName(t), strings.Join(attentionLabels(t), ", "))
	}
	if more := page.Total - len(shown); more > 0 {
		fmt.Fprintf(&b, "\n\nועוד %d ברשימה. לרשימה המלאה אפשר לשאול אותי: מי צריך אותי היום?", more)
	}
	b.WriteString("\n\nבהודעות הבאות: הודעה קצרה לכל אחד מהם, מוכנה להעברה כמו שהיא.")
	out := Chunks(b.String())
	for _, t := range shown {
		out = append(out, attentionDraft(t))
	}
	return out
}

// digestTemplate is the digest as the studio's approved template: {{1}}
// the coach's first name, {{2}} how many need her, {{3}} one line naming
// them with the reason (WhatsApp allows no line breaks in a parameter).
func digestTemplate(name, coachName string, page answers.Triage) Template {
	var parts []string
	shown := page.Items[:min(len(page.Items), digestTop)]
	for _, t := range shown {
		p := attentionName(t)
		if l := attentionLabels(t); len(l) > 0 {
			p += " (" + l[0] + ")"
		}
		parts = append(parts, p)
	}
	line := strings.Join(parts, " · ")
	if more := page.Total - len(shown); more > 0 {
		line += fmt.Sprintf(" ועוד %d", more)
	}
	if utf8.RuneCountInString(line) > templateLineMax {
		line = string([]rune(line)[:templateLineMax-1]) + "…"
	}
	return Template{Name: name, Language: TemplateLanguage, Parameters: []string{firstWord(coachName), strconv.Itoa(page.Total), line}}
}
