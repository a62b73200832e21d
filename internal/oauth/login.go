package oauth

import (
	"net/http"

	"github.com/otherwise/perform/internal/login"
)

// FromLogin is the Browser of the login package's sign-in.
func FromLogin(s *login.Service) Browser { return loginBrowser{s} }

type loginBrowser struct{ s *login.Service }

func (b loginBrowser) Person(r *http.Request) (Person, bool) {
	p, ok := b.s.Person(r)
	return fromLogin(p), ok
}

func (b loginBrowser) RequireSignIn(w http.ResponseWriter, r *http.Request) (Person, bool) {
	p, ok := b.s.RequireSignIn(w, r)
	return fromLogin(p), ok
}

func (b loginBrowser) CSRFToken(r *http.Request) string { return b.s.CSRFToken(r) }
func (b loginBrowser) CheckCSRF(r *http.Request) bool   { return b.s.CheckCSRF(r) }

func fromLogin(p login.Person) Person {
	return Person{StudioID: p.StudioID, Kind: p.Kind, SubjectID: p.SubjectID, Name: p.Name, Gender: p.Gender}
}
