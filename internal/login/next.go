package login

import (
	"net/url"
	"strings"

	"github.com/otherwise/perform/internal/webui"
)

// CleanNext is where a browser may be sent after signing in: a path and
// query of this site ("/authorize?client_id=…", webui.LocalPath), or ""
// when next is anything else (a scheme, a host, "//evil.com",
// "/\evil.com"), and "" for the sign-in page itself (it would send the
// browser in a circle).
func CleanNext(next string) string {
	out := webui.LocalPath(next)
	if out == "" {
		return ""
	}
	u, err := url.Parse(out)
	if err != nil || u.Path == "/login" || strings.HasPrefix(u.Path, "/login/") || u.Path == "/logout" {
		return ""
	}
	return out
}
