package login

import (
	"net/url"
	"strings"
)

// maxNext bounds a next= target: an authorization request's URL with its
// state and PKCE challenge fits well inside.
const maxNext = 4096

// CleanNext is where a browser may be sent after signing in: a path and
// query of this site ("/authorize?client_id=…"), or "" when next is
// anything else. Browsers read "//evil.com" and "/\evil.com" as another
// host, so a path must start with exactly one "/" and hold no backslash
// or control character anywhere; a scheme, host or user is refused, and
// so is the sign-in page itself (it would send the browser in a circle).
func CleanNext(next string) string {
	if next == "" || len(next) > maxNext || !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") {
		return ""
	}
	for _, r := range next {
		if r == '\\' || r < 0x20 || r == 0x7f {
			return ""
		}
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" || !strings.HasPrefix(u.Path, "/") || strings.HasPrefix(u.Path, "//") {
		return ""
	}
	if u.Path == "/login" || strings.HasPrefix(u.Path, "/login/") || u.Path == "/logout" {
		return ""
	}
	out := u.EscapedPath()
	if u.RawQuery != "" {
		out += "?" + u.RawQuery
	}
	return out
}
