package oauth_test

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/text"
)

// badValues break the text rule: NUL, a byte that is not UTF-8, an escape
// character, a carriage return.
var badValues = map[string]string{"NUL": "a\x00b", "invalid UTF-8": "a\xffb", "ESC": "a\x1b[2Jb", "CR": "a\rb", "C1": "a\u0085b"}

// Every field of every form and query of /authorize (the request and the
// consent form), /token and /revoke (and their Basic credentials), and
// every string of /register's JSON, answers 400 with a sentence when it
// breaks the text rule: never 500, never a redirect carrying it, never a
// client stored. Both engines: PostgreSQL refuses NUL and invalid UTF-8
// outright, so a bad value reaching it was a 500.
func TestBadInputSweep(t *testing.T) {
	engines(t, func(t *testing.T, st store.Store) {
		e := newEnv(t, st)
		const redirect = "https://app.example/cb"
		public := e.register(redirect, "")
		_, challenge := pkce()
		refused := func(what string, status int, body string) {
			t.Helper()
			if status != http.StatusBadRequest {
				t.Errorf("%s: %d %s; want 400", what, status, excerpt(body))
				return
			}
			if !strings.Contains(body, "must be text of valid UTF-8") {
				t.Errorf("%s: 400 without the text rule's sentence: %s", what, excerpt(body))
			}
		}

		auth := authParams(public, redirect, challenge)
		auth.Set("scope", "profile")
		auth.Set("resource", e.srv.URL+"/mcp")
		consent := url.Values{"decision": {"approve"}, "csrf": {testCSRF}}
		for k, v := range auth {
			consent[k] = v
		}
		token := url.Values{"grant_type": {"authorization_code"}, "code": {"pf_ac_x"}, "redirect_uri": {redirect}, "code_verifier": {strings.Repeat("v", 43)},
			"client_id": {public}, "client_secret": {"s"}, "refresh_token": {"pf_rt_x"}, "scope": {"profile"}, "resource": {e.srv.URL + "/mcp"}}
		revoke := url.Values{"token": {"pf_at_x"}, "token_type_hint": {"access_token"}, "client_id": {public}, "client_secret": {"s"}}

		for badName, bad := range badValues {
			for field := range auth {
				q := cloneWith(auth, field, bad)
				req, _ := http.NewRequest("GET", e.srv.URL+"/authorize?"+q.Encode(), nil)
				status, body, _ := e.send(req, "")
				refused("GET /authorize "+field+" "+badName, status, body)
			}
			for field := range consent {
				status, body, _ := e.post("/authorize", cloneWith(consent, field, bad))
				refused("POST /authorize "+field+" "+badName, status, body)
			}
			for field := range token {
				status, body, _ := e.post("/token", cloneWith(token, field, bad))
				refused("/token "+field+" "+badName, status, body)
			}
			for field := range revoke {
				status, body, _ := e.post("/revoke", cloneWith(revoke, field, bad))
				refused("/revoke "+field+" "+badName, status, body)
			}
			// The connected apps page and its disconnect form.
			req, _ := http.NewRequest("GET", e.srv.URL+"/apps?revoked="+url.QueryEscape(bad), nil)
			status, body, _ := e.send(req, "")
			refused("GET /apps revoked "+badName, status, body)
			for field, form := range map[string]url.Values{"csrf": {"csrf": {bad}}, "other": {"csrf": {testCSRF}, "x": {bad}}} {
				status, body, _ := e.post("/apps/ogr_x/revoke", form)
				refused("POST /apps/{grant}/revoke "+field+" "+badName, status, body)
			}
			// A parameter whose name breaks the rule.
			for _, path := range []string{"/token", "/revoke", "/authorize"} {
				status, body, _ := e.post(path, cloneWith(token, "x"+bad, "1"))
				refused(path+" a bad parameter name "+badName, status, body)
			}
			// The Basic credentials, URL-encoded as RFC 6749 says and raw.
			for _, path := range []string{"/token", "/revoke"} {
				for _, cred := range [][2]string{{url.QueryEscape(bad), "s"}, {public, url.QueryEscape(bad)}, {bad, "s"}} {
					form := cloneWith(token, "client_id", "")
					form.Del("client_id")
					form.Del("client_secret")
					req, _ := http.NewRequest("POST", e.srv.URL+path, strings.NewReader(form.Encode()))
					req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
					req.Header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(cred[0]+":"+cred[1])))
					status, body, _ := e.send(req, "")
					refused(path+" Basic "+badName, status, body)
				}
			}
		}

		// /register: every string of the metadata, sent as a JSON escape
		// and, where JSON allows, raw.
		base := map[string]any{
			"client_name": "App", "redirect_uris": []string{redirect}, "client_uri": "https://app.example/", "logo_uri": "https://app.example/logo.png",
			"scope": "profile", "contacts": []string{"ops@app.example"}, "tos_uri": "https://app.example/tos", "policy_uri": "https://app.example/policy",
			"jwks_uri": "https://app.example/jwks", "software_id": "app", "software_version": "1.0", "token_endpoint_auth_method": "none",
			"grant_types": []string{"authorization_code"}, "response_types": []string{"code"}, "application_type": "web", "unknown_extension": "x",
		}
		for field := range base {
			for badName, bad := range map[string]string{"NUL": `a\u0000b`, "ESC": `a\u001bb`, "a lone surrogate": `a\ud800b`, "invalid UTF-8": "a\xffb", "C1": "a\u0085b"} {
				body := registrationWith(base, field, bad)
				status, out := e.registerRaw(body, "")
				if status != http.StatusBadRequest || !strings.Contains(out["error_description"].(string), field) {
					t.Errorf("/register %s %s: %d %v; want 400 naming the field", field, badName, status, out)
				}
			}
		}
	})
}

// cloneWith is v with field set to value.
func cloneWith(v url.Values, field, value string) url.Values {
	out := url.Values{}
	for k, vs := range v {
		out[k] = append([]string(nil), vs...)
	}
	out.Set(field, value)
	return out
}

// registrationWith is base as JSON with field's string (or its array's
// first string) replaced by bad, written into the JSON as it is.
func registrationWith(base map[string]any, field, bad string) string {
	const mark = "\u2603MARK\u2603"
	m := map[string]any{}
	for k, v := range base {
		m[k] = v
	}
	if _, list := m[field].([]string); list {
		m[field] = []string{mark}
	} else {
		m[field] = mark
	}
	raw, _ := json.Marshal(m)
	return strings.Replace(string(raw), mark, bad, 1)
}

var errorLine = regexp.MustCompile(`<p class="error"[^>]*>([^<]*)<`)

// excerpt is the sentence of an error page, or the start of a body.
func excerpt(body string) string {
	if m := errorLine.FindStringSubmatch(body); m != nil {
		return strconv.Quote(m[1])
	}
	return strconv.Quote(text.Truncate(strings.TrimSpace(body), 200))
}
