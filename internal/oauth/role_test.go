package oauth_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/oauth"
	"github.com/otherwise/perform/internal/store"
)

// The consent page names the signed-in person's role in her gender: a
// woman coach is מאמנת, a man מאמן, a coach with none on record מאמן/ת.
func TestConsentRoleFollowsGender(t *testing.T) {
	engines(t, func(t *testing.T, st store.Store) {
		for gender, want := range map[string]string{"female": "מאמנת)", "male": "מאמן)", "": "מאמן/ת)"} {
			var person oauth.Person
			e := newEnv(t, st, func(o *oauth.Options) {
				person = o.Browser.(fakeBrowser).p
				person.Gender = gender
				o.Browser = fakeBrowser{person}
			})
			client := e.register("https://app.example/cb", "")
			_, challenge := pkce()
			req, _ := http.NewRequest("GET", e.srv.URL+"/authorize?"+authParams(client, "https://app.example/cb", challenge).Encode(), nil)
			req.Header.Set("Accept-Language", "he")
			status, page, _ := e.send(req, "")
			if status != http.StatusOK || !strings.Contains(page, "Dana") || !strings.Contains(page, want) {
				t.Errorf("gender %q: %d, want %q on the consent page:\n%s", gender, status, want, page)
			}
		}
	})
}
