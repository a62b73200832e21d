package oauth

import (
	"net/url"
	"slices"
	"strings"
	"testing"
)

func TestRedirectMatches(t *testing.T) {
	registered := []string{"https://app.example/cb", "http://127.0.0.1/native", "http://[::1]:8080/v6", "http://localhost/cb", "com.example.app:/oauth"}
	for _, good := range []string{
		"https://app.example/cb", "http://127.0.0.1/native", "http://127.0.0.1:49152/native", "http://[::1]/v6", "http://[::1]:1/v6",
		"http://localhost:3000/cb", "com.example.app:/oauth",
	} {
		if !redirectMatches(registered, good) {
			t.Errorf("%q does not match", good)
		}
	}
	for _, bad := range []string{
		"", "https://app.example:443/cb", "https://app.example:8443/cb", "https://app.example/cb/", "https://app.example/cb?x=1",
		"https://app.example/cb#f", "http://app.example/cb", "https://good@app.example/cb", "https://app.example@evil.example/cb",
		"https://APP.example/cb", "https://app.example/CB", "https://app.example/cb%2F", "https://evil.example/cb",
		"http://127.0.0.1:49152/native/", "http://127.0.0.1:49152/native?x", "http://127.0.0.1:49152/native#x", "http://127.0.0.1:49152/Native",
		"https://127.0.0.1:49152/native", "http://u@127.0.0.1:49152/native", "http://127.0.0.2/native", "http://localhost:3000/native",
		"http://127.0.0.1:abc/native", "http://127.0.0.1:123456/native", "http://localhost.evil.example/cb", "com.example.app:/oauth2",
		"http://127.0.0.1:49152/native?", "http://[::1]:8080/v6/",
	} {
		if redirectMatches(registered, bad) {
			t.Errorf("%q matches", bad)
		}
	}
}

func TestCheckRedirectURI(t *testing.T) {
	for _, good := range []string{"https://app.example/cb", "http://127.0.0.1/cb", "http://[::1]:9/cb", "http://localhost/cb", "com.example.app:/cb"} {
		if err := checkRedirectURI(good); err != nil {
			t.Errorf("%q: %v", good, err)
		}
	}
	for bad, want := range map[string]string{
		"/cb": "absolute", "https://app.example/cb#x": "fragment", "https://u:p@app.example/cb": "user information",
		"http://app.example/cb": "https unless", "javascript:alert(1)": "javascript", "myapp:/cb": "reverse-domain", "https:///cb": "host",
	} {
		if err := checkRedirectURI(bad); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v; want %q", bad, err, want)
		}
	}
}

// FuzzRedirectMatches: a URI matches only if it is a registered one, or
// differs from a registered loopback http URI in the port alone.
func FuzzRedirectMatches(f *testing.F) {
	for _, s := range []string{"http://127.0.0.1/cb", "http://127.0.0.1:8080/cb", "https://app.example/cb", "https://app.example/cb#", "http://127.0.0.1:0/cb?", "http://[::1]/cb", "http://127.0.0.1:80@evil/cb", "http://127.0.0.1:%38%30/cb"} {
		f.Add(s)
	}
	registered := []string{"https://app.example/cb", "http://127.0.0.1/cb"}
	f.Fuzz(func(t *testing.T, got string) {
		if !redirectMatches(registered, got) {
			return
		}
		if slices.Contains(registered, got) {
			return
		}
		u, err := url.Parse(got)
		if err != nil || u.Scheme != "http" || u.Hostname() != "127.0.0.1" || u.User != nil || u.EscapedPath() != "/cb" || u.RawQuery != "" || u.Fragment != "" || strings.Contains(got, "#") {
			t.Fatalf("%q matches %v", got, registered)
		}
		if "http://127.0.0.1/cb" != "http://127.0.0.1"+strings.TrimPrefix(got, "http://"+u.Host) {
			t.Fatalf("%q differs from the loopback URI in more than its port", got)
		}
	})
}

func TestParseScopeAndGrant(t *testing.T) {
	got, err := ParseScope("training:read  studio:read profile:read training:read")
	if err != nil || !slices.Equal(got, []string{"studio:read", "profile:read", "training:read"}) {
		t.Fatalf("ParseScope = %v, %v", got, err)
	}
	if _, err := ParseScope("profile:read studio:admin"); err == nil || !strings.Contains(err.Error(), `"studio:admin" is not a scope`) {
		t.Fatalf("studio:admin is not for OAuth: %v", err)
	}
	if g, err := grantScopes("coach", nil); err != nil || !slices.Equal(g, CoachScopes) {
		t.Fatalf("a coach by default: %v %v", g, err)
	}
	if g, err := grantScopes("trainee", Scopes); err != nil || !slices.Equal(g, TraineeScopes) {
		t.Fatalf("a trainee asking for everything: %v %v", g, err)
	}
	if g, err := grantScopes("coach", []string{"health:read"}); err == nil {
		t.Fatalf("a coach granted %v", g)
	}
	if g, err := grantScopes("trainee", []string{"studio:read", "studio:write"}); err == nil {
		t.Fatalf("a trainee granted %v", g)
	}
}

// FuzzParseScope: an answer is known scopes, each once, in server order,
// and parsing it again gives it back.
func FuzzParseScope(f *testing.F) {
	for _, s := range []string{"", "studio:read", "profile:read health:write", "studio:admin", "  a\tb ", "training:read training:read", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, err := ParseScope(in)
		if err != nil {
			return
		}
		last := -1
		for _, s := range got {
			i := slices.Index(Scopes, s)
			if i <= last {
				t.Fatalf("ParseScope(%q) = %v", in, got)
			}
			last = i
		}
		again, err := ParseScope(strings.Join(got, " "))
		if err != nil || !slices.Equal(again, got) {
			t.Fatalf("again: %v %v", again, err)
		}
	})
}

func TestResourceMatches(t *testing.T) {
	iss := "https://perform.example"
	for _, ok := range []string{"", iss + "/mcp", iss + "/mcp/", iss, iss + "/"} {
		if !resourceMatches(iss, ok) {
			t.Errorf("%q refused", ok)
		}
	}
	for _, bad := range []string{iss + "/mcpx", iss + "/v1/automation", "https://evil.example/mcp", "http://perform.example/mcp", iss + "/mcp?x"} {
		if resourceMatches(iss, bad) {
			t.Errorf("%q accepted", bad)
		}
	}
}
