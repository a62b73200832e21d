package webui

import (
	"net/url"
	"strings"
)

// maxLocalPath bounds a local target: an authorization request's URL with
// its state and PKCE challenge fits well inside.
const maxLocalPath = 4096

// LocalPath is s when it is a path and query of this site
// ("/authorize?client_id=…"), else "". Browsers read "//evil.com" and
// "/\evil.com" as another host, so a path must start with exactly one "/"
// and hold no backslash or control character anywhere; a scheme, host or
// user is refused. The sign-in's next= and the language switch's links
// keep only such targets.
func LocalPath(s string) string {
	if s == "" || len(s) > maxLocalPath || !strings.HasPrefix(s, "/") || strings.HasPrefix(s, "//") {
		return ""
	}
	for _, r := range s {
		if r == '\\' || r < 0x20 || r == 0x7f {
			return ""
		}
	}
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" || !strings.HasPrefix(u.Path, "/") || strings.HasPrefix(u.Path, "//") {
		return ""
	}
	out := u.EscapedPath()
	if u.RawQuery != "" {
		out += "?" + u.RawQuery
	}
	return out
}
