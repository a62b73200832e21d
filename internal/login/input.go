package login

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/otherwise/perform/internal/schema"
	"github.com/otherwise/perform/internal/text"
	"github.com/otherwise/perform/internal/webui"
)

// maxFormBytes bounds a sign-in form's body: a phone, a code, a choice.
const maxFormBytes = 16 << 10

// checkInput reads a sign-in page's query and form (bounded) and applies
// the text rule (internal/text) to every name and value before the page
// sees any: NUL, other control characters and bytes that are not UTF-8
// answer 400 with a sentence, are never counted as a try, stored or sent on.
func checkInput(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
		}
		if err := r.ParseForm(); err != nil {
			message(w, r, http.StatusBadRequest, "login.err.form")
			return
		}
		if name, p := text.ValuesProblem(r.Form); p != "" {
			message(w, r, http.StatusBadRequest, "login.err.input", webui.LTR(inputMessage(name, p)))
			return
		}
		next.ServeHTTP(w, r)
	})
}

func inputMessage(name, problem string) string {
	if rest, ok := strings.CutPrefix(problem, "has a name that "); ok {
		return fmt.Sprintf("A field's name must be %s; the name %q %s.", text.Rule, name, rest)
	}
	return schema.TextMessage(name, problem)
}
