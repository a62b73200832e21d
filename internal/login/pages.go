package login

import (
	"html/template"
	"net/http"

	"github.com/otherwise/perform/internal/webui"
)

// The sign-in pages, in the request's language (webui's catalogue). Names
// a person typed (a Hebrew name, a studio's name) sit in dir="auto", and
// phones and codes in dir="ltr", so each reads right inside either page.

var phonePage = webui.NewPage(`{{define "content"}}
<p>{{t "login.intro"}}</p>
{{if .Error}}<p class="error" role="alert">{{.Error}}</p>{{end}}
<form method="post" action="/login">
<input type="hidden" name="csrf" value="{{.CSRF}}">
{{if .Next}}<input type="hidden" name="next" value="{{.Next}}">{{end}}
<label for="phone">{{t "login.phone"}}</label>
<input id="phone" name="phone" type="tel" inputmode="tel" autocomplete="tel" dir="ltr" required value="{{.Phone}}" placeholder="050-123-4567">
<button type="submit">{{t "login.send"}}</button>
</form>
{{end}}`)

var codePage = webui.NewPage(`{{define "content"}}
<p>{{t "login.sent" (ltr .Phone) .Minutes}}</p>
{{if .Error}}<p class="error" role="alert">{{.Error}}</p>{{end}}
<form method="post" action="/login/code">
<input type="hidden" name="csrf" value="{{.CSRF}}">
<label for="code">{{t "login.code"}}</label>
<input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 ]*" maxlength="12" dir="ltr" required>
<button type="submit">{{t "login.submit"}}</button>
</form>
<p class="muted go">{{link "/login" "login.another"}}</p>
{{end}}`)

var choosePage = webui.NewPage(`{{define "content"}}
<p>{{t "login.choose"}}</p>
{{if .Error}}<p class="error" role="alert">{{.Error}}</p>{{end}}
<form method="post" action="/login/choose">
<input type="hidden" name="csrf" value="{{.CSRF}}">
{{range $i, $c := .Choices}}
<label class="choice"><input type="radio" name="person" value="{{$c.SubjectID}}" {{if eq $i 0}}checked{{end}}>
<span><bdi dir="auto">{{$c.Name}}</bdi> · {{t "role.in" $c.Role (auto $c.StudioName)}}</span></label>
{{end}}
<button type="submit">{{t "login.continue"}}</button>
</form>
{{end}}`)

var signedInPage = webui.NewPage(`{{define "content"}}
<p>{{t "login.who" (strong (auto .Name)) .Role (auto .StudioName)}}</p>
<p class="go">{{link "/apps" "nav.apps"}}</p>
<form method="post" action="/logout">
<input type="hidden" name="csrf" value="{{.CSRF}}">
<button type="submit" class="secondary">{{t "login.signout"}}</button>
</form>
{{end}}`)

var messagePage = webui.NewPage(`{{define "content"}}
<p{{if .Error}} class="error" role="alert"{{end}}>{{.Text}}</p>
<p class="go">{{link "/login" "login.back"}}</p>
{{end}}`)

type phoneView struct {
	CSRF, Next, Phone string
	Error             template.HTML
}

type codeView struct {
	CSRF, Phone string
	Error       template.HTML
	Minutes     int
}

type choice struct{ SubjectID, StudioName, Role, Name string }

type chooseView struct {
	CSRF    string
	Error   template.HTML
	Choices []choice
}

type signedInView struct{ CSRF, Name, Role, StudioName string }

type messageView struct {
	Text  template.HTML
	Error bool
}

// title is the sign-in pages' title (a catalogue key).
const title = "title.signin"

// roleOf is p's role word in r's language, in p's gender.
func roleOf(r *http.Request, p Person) string {
	return webui.Role(webui.Language(r), p.Kind, p.Gender)
}

// say is the catalogue's message key in r's language, as HTML.
func say(r *http.Request, key string, args ...any) template.HTML {
	return webui.HTML(webui.Language(r), key, args...)
}

// message draws a one-sentence page with a link back to the start.
func message(w http.ResponseWriter, r *http.Request, status int, key string, args ...any) {
	webui.Render(w, r, status, messagePage, messageView{Text: say(r, key, args...), Error: status >= 400}, title)
}
