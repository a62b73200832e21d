package oauth

import (
	"errors"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/text"
)

// FuzzParseRegistration: the registration parser never panics, refuses
// with one of RFC 7591's codes and a sentence, and what it accepts is one
// JSON object whose strings are all text, whose name is a plain name (text.NameProblem), whose redirect URIs are bounded and registrable, and whose
// other URIs are http or https.
func FuzzParseRegistration(f *testing.F) {
	for _, s := range []string{
		`{"redirect_uris":["https://app.example/cb"]}`,
		`{"client_name":"App","redirect_uris":["http://127.0.0.1/cb","com.example.app:/cb"],"token_endpoint_auth_method":"none","logo_uri":"https://app.example/l.png"}`,
		`{"client_name":"Good App\u202egnp.exe","redirect_uris":["https://app.example/cb"]}`,
		`{"client_name":"Per\u200bform","redirect_uris":["https://app.example/cb"]}`,
		`{"redirect_uris":["https://app.example/cb"],"logo_uri":"javascript:alert(1)"}`,
		`{"redirect_uris":["https://app.example/cb"]}{"redirect_uris":["https://evil.example/cb"]}`,
		"{\"redirect_uris\":[\"https://app.example/c\xffb\"]}",
		`{"redirect_uris":["https://app.example/c\ud800"]}`,
		`{"redirect_uris":["https://app.example/cb"],"grant_types":["implicit"]}`,
		`[]`, `null`, ``, `{"redirect_uris":"https://app.example/cb"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		m, err := parseRegistration(body)
		if err != nil {
			var me *metadataError
			if !errors.As(err, &me) || (me.code != "invalid_client_metadata" && me.code != "invalid_redirect_uri") || !strings.HasSuffix(me.msg, ".") {
				t.Fatalf("refusal %#v is not RFC 7591's shape with a sentence", err)
			}
			return
		}
		strs := []string{m.ClientName, m.ClientURI, m.LogoURI, m.TOSURI, m.PolicyURI, m.JWKSURI, m.JWKS, m.Scope, m.SoftwareID, m.SoftwareVersion,
			m.SoftwareStatement, m.ApplicationType, m.TokenEndpointAuthMethod}
		strs = append(append(append(append(strs, m.RedirectURIs...), m.Contacts...), m.GrantTypes...), m.ResponseTypes...)
		for _, s := range strs {
			if p := text.Problem(s); p != "" {
				t.Fatalf("accepted a string that %s: %q", p, s)
			}
		}
		if text.NameProblem(m.ClientName, maxClientName) != "" {
			t.Fatalf("accepted the name %q", m.ClientName)
		}
		if len(m.RedirectURIs) == 0 || len(m.RedirectURIs) > MaxRedirectURIs {
			t.Fatalf("accepted %d redirect URIs", len(m.RedirectURIs))
		}
		for _, u := range m.RedirectURIs {
			if len(u) > MaxURILength || checkRedirectURI(u) != nil || text.BidiProblem(u) != "" {
				t.Fatalf("accepted the redirect URI %q", u)
			}
		}
		for _, raw := range []string{m.ClientURI, m.LogoURI, m.TOSURI, m.PolicyURI, m.JWKSURI} {
			if raw == "" {
				continue
			}
			u, err := url.Parse(raw)
			if err != nil || !(strings.EqualFold(u.Scheme, "https") || strings.EqualFold(u.Scheme, "http")) || u.Host == "" {
				t.Fatalf("accepted the URL %q", raw)
			}
		}
		if !slices.Contains(authMethods, m.TokenEndpointAuthMethod) {
			t.Fatalf("accepted the method %q", m.TokenEndpointAuthMethod)
		}
		// One object: a second one after it is refused.
		if _, err := parseRegistration(append(append([]byte{}, body...), body...)); err == nil {
			t.Fatalf("accepted two objects back to back: %q", body)
		}
	})
}
