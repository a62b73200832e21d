package login

import (
	"net/http"

	"github.com/otherwise/perform/internal/webui"
)

// The sign-in pages. Names a person typed (a Hebrew name, a studio's
// name) sit in dir="auto" so they read right inside the English page.

var phonePage = webui.NewPage(`{{define "content"}}
<p>Sign in with the phone number on your coach or trainee record. We send a 6-digit code to it over WhatsApp.</p>
{{if .Error}}<p class="error" role="alert">{{.Error}}</p>{{end}}
<form method="post" action="/login">
<input type="hidden" name="csrf" value="{{.CSRF}}">
{{if .Next}}<input type="hidden" name="next" value="{{.Next}}">{{end}}
<label for="phone">Phone</label>
<input id="phone" name="phone" type="tel" inputmode="tel" autocomplete="tel" dir="ltr" required value="{{.Phone}}" placeholder="050-123-4567">
<button type="submit">Send me a code</button>
</form>
{{end}}`)

var codePage = webui.NewPage(`{{define "content"}}
<p>If <span dir="ltr">{{.Phone}}</span> is on a coach or trainee record, a 6-digit code is on its way to it over WhatsApp. It works for {{.Minutes}} minutes.</p>
{{if .Error}}<p class="error" role="alert">{{.Error}}</p>{{end}}
<form method="post" action="/login/code">
<input type="hidden" name="csrf" value="{{.CSRF}}">
<label for="code">Code</label>
<input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 ]*" maxlength="12" dir="ltr" required>
<button type="submit">Sign in</button>
</form>
<p class="muted"><a href="/login">Use another number or ask for a new code</a></p>
{{end}}`)

var choosePage = webui.NewPage(`{{define "content"}}
<p>Your number is on more than one record. Which one do you sign in as?</p>
{{if .Error}}<p class="error" role="alert">{{.Error}}</p>{{end}}
<form method="post" action="/login/choose">
<input type="hidden" name="csrf" value="{{.CSRF}}">
{{range $i, $c := .Choices}}
<label><input type="radio" name="person" value="{{$c.SubjectID}}" style="width:auto" {{if eq $i 0}}checked{{end}}>
<span dir="auto">{{$c.StudioName}}</span> — {{$c.Role}} <span dir="auto">{{$c.Name}}</span></label>
{{end}}
<button type="submit">Continue</button>
</form>
{{end}}`)

var signedInPage = webui.NewPage(`{{define "content"}}
<p>You are signed in as <strong dir="auto">{{.Name}}</strong>, {{.Role}} at <span dir="auto">{{.StudioName}}</span>.</p>
<form method="post" action="/logout">
<input type="hidden" name="csrf" value="{{.CSRF}}">
<button type="submit" class="secondary">Sign out</button>
</form>
{{end}}`)

var messagePage = webui.NewPage(`{{define "content"}}
<p{{if .Error}} class="error" role="alert"{{end}}>{{.Text}}</p>
<p><a href="/login">Back to sign-in</a></p>
{{end}}`)

type phoneView struct{ CSRF, Next, Phone, Error string }

type codeView struct {
	CSRF, Phone, Error string
	Minutes            int
}

type choice struct{ SubjectID, StudioName, Role, Name string }

type chooseView struct {
	CSRF, Error string
	Choices     []choice
}

type signedInView struct{ CSRF, Name, Role, StudioName string }

type messageView struct {
	Text  string
	Error bool
}

const title = "Sign in"

func roleOf(kind string) string {
	if kind == PersonCoach {
		return "coach"
	}
	return "trainee"
}

// message draws a one-sentence page with a link back to the start.
func message(w http.ResponseWriter, status int, text string) {
	webui.Render(w, status, messagePage, title, messageView{Text: text, Error: status >= 400})
}
