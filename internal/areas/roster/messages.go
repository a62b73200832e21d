package roster

import (
	"net/url"
	"strings"

	"github.com/otherwise/perform/internal/areas/payhook"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/phone"
)

// Drafted messages: Perform never writes to a trainee for the coach, but it
// drafts the message in the studio's language and hands the coach a link
// that opens it in WhatsApp on her own phone, ready to send. The request
// is audited like every lane call; nothing is sent and nothing is queued.

type draftMessageInput struct {
	Purpose string  `json:"purpose" jsonschema:"payment_due, missed_session, check_in, or custom (with text)." lane:"enum=payment_due|missed_session|check_in|custom"`
	Text    *string `json:"text,omitempty" jsonschema:"The message itself, for custom; else it replaces the drafted one." lane:"maxLength=1000"`
}

type messageDraft struct {
	TraineeID string `json:"traineeId"`
	Name      string `json:"name"`
	Language  string `json:"language" jsonschema:"he or en: the studio's."`
	Text      string `json:"text"`
	Link      string `json:"link" jsonschema:"https://wa.me/… opens WhatsApp on the coach's phone with the text ready; she sends it herself."`
	Sent      bool   `json:"sent" jsonschema:"Always false: Perform sends nothing."`
}

// drafts are the messages of each purpose, by language; {name} is the
// trainee's first name. Hebrew ones speak to anyone alike (no gendered verb).
var drafts = map[string]map[string]string{
	"he": {
		"payment_due":    "היי {name}, תזכורת קטנה: התשלום על המנוי ממתין. תודה!",
		"missed_session": "היי {name}, לא ראינו אותך באימון האחרון. הכול בסדר? נשמח לקבוע מחדש.",
		"check_in":       "היי {name}, איך עבר השבוע? איך השינה, האנרגיה והגוף?",
	},
	"en": {
		"payment_due":    "Hi {name}, a quick reminder: your plan's payment is due. Thanks!",
		"missed_session": "Hi {name}, we missed you at your last session. All well? Happy to find another time.",
		"check_in":       "Hi {name}, how was your week? How are sleep, energy and your body?",
	},
}

func (a *Area) messageRoutes(rs *lane.Routes) {
	lane.Add(rs, "POST", "/trainees/{id}/message-drafts", "Draft a WhatsApp message to a trainee in the studio's language and answer a wa.me link that opens it on the coach's phone; Perform sends nothing.",
		a.draftMessage, lane.Tool("draft_message"))
}

func (a *Area) draftMessage(c *lane.Call, in *draftMessageInput) (messageDraft, error) {
	t, err := lane.Lookup(c.Ctx, ids.Trainee, c.ID(), c.Studio().GetTrainee)
	if err != nil {
		return messageDraft{}, err
	}
	lang := "en"
	if c.P.Region == "IL" {
		lang = "he"
	}
	text := strings.ReplaceAll(drafts[lang][in.Purpose], "{name}", t.FirstName)
	if in.Purpose == "payment_due" {
		// Her plan's payment link, carrying her id, so her payment's
		// event names her (internal/areas/payhook).
		link, err := payhook.TraineeLink(c, c.Studio(), t.ID)
		if err != nil {
			return messageDraft{}, err
		}
		if link != "" {
			text += " " + link
		}
	}
	if given := lane.Trimmed(in.Text); given != nil {
		text = *given
	}
	if text == "" {
		return messageDraft{}, lane.InvalidField("text", "A custom message needs its text: give text.")
	}
	return messageDraft{TraineeID: t.ID, Name: strings.TrimSpace(t.FirstName + " " + t.LastName), Language: lang, Text: text, Link: waLink(t, text)}, nil
}

// waLink opens a WhatsApp chat with the trainee's phone and the text ready.
func waLink(t domain.Trainee, text string) string {
	return "https://wa.me/" + phone.Digits(t.Phone) + "?text=" + strings.ReplaceAll(url.QueryEscape(text), "+", "%20")
}
