package oauth

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/otherwise/perform/internal/schema"
	"github.com/otherwise/perform/internal/text"
)

// inputProblem applies the text rule (internal/text) to every parameter
// of r before anything reads one: the query, the form body (call it after
// ParseForm), and the client id and secret of Basic credentials, as sent
// and URL-decoded. It answers the sentence for the first that breaks it,
// or "". PostgreSQL refuses NUL and invalid UTF-8 outright, so without it
// such a client_id was a 500 there and a quiet miss on SQLite.
func inputProblem(r *http.Request) string {
	for _, v := range []url.Values{r.URL.Query(), r.PostForm} {
		if name, p := text.ValuesProblem(v); p != "" {
			return paramMessage(name, p)
		}
	}
	if id, secret, ok := r.BasicAuth(); ok {
		for _, c := range []struct{ name, value string }{{"The Authorization header's client id", id}, {"The Authorization header's client secret", secret}} {
			p := text.Problem(c.value)
			if p == "" {
				if dec, err := url.QueryUnescape(c.value); err == nil {
					p = text.Problem(dec)
				}
			}
			if p != "" {
				return fmt.Sprintf("%s must be %s; it %s.", c.name, text.Rule, p)
			}
		}
	}
	return ""
}

// paramMessage is the sentence for a parameter that breaks the text rule.
func paramMessage(name, problem string) string {
	if rest, ok := strings.CutPrefix(problem, "has a name that "); ok {
		return fmt.Sprintf("A parameter's name must be %s; the name %q %s.", text.Rule, name, rest)
	}
	return schema.TextMessage(name, problem)
}
