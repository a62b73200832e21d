package oauth

import (
	"errors"
	"net"
	"net/url"
	"strings"
)

// checkRedirectURI is what a client may register as a redirect URI: an
// absolute https URL, an http URL on a loopback address (a native app's
// local listener, RFC 8252 section 7.3), or a private-use scheme in
// reverse-domain form (com.example.app:/cb, section 7.1); never a fragment
// or user information.
func checkRedirectURI(raw string) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil || !u.IsAbs():
		return errors.New("must be an absolute URL")
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return errors.New("must not have a fragment")
	case u.User != nil:
		return errors.New("must not carry user information")
	}
	switch u.Scheme {
	case "https":
		if u.Host == "" {
			return errors.New("must name a host")
		}
		return nil
	case "http":
		if !isLoopbackHost(u.Hostname()) {
			return errors.New("must be https unless it is on 127.0.0.1, [::1] or localhost")
		}
		return nil
	case "javascript", "data", "file", "vbscript":
		return errors.New("must not use the " + u.Scheme + " scheme")
	}
	if !strings.Contains(u.Scheme, ".") {
		return errors.New("must be https, http on loopback, or a private-use scheme in reverse-domain form (com.example.app:/callback)")
	}
	return nil
}

// redirectMatches reports whether got, the redirect_uri of a request, is
// one of the client's registered URIs: the same string exactly, or, for
// an http URI on a loopback address, the same but for the port (RFC 8252
// section 7.3: a native app listens on whatever port it gets).
func redirectMatches(registered []string, got string) bool {
	for _, r := range registered {
		if r == got || loopbackMatch(r, got) {
			return true
		}
	}
	return false
}

func loopbackMatch(registered, got string) bool {
	r, err1 := url.Parse(registered)
	g, err2 := url.Parse(got)
	if err1 != nil || err2 != nil || r.Scheme != "http" || g.Scheme != "http" {
		return false
	}
	if !isLoopbackHost(r.Hostname()) || r.Hostname() != g.Hostname() || r.User != nil || g.User != nil {
		return false
	}
	// Everything but the port is compared as written.
	return r.EscapedPath() == g.EscapedPath() && r.RawQuery == g.RawQuery && !r.ForceQuery && !g.ForceQuery &&
		r.Fragment == "" && g.Fragment == "" && !strings.Contains(got, "#") && validPort(g.Port())
}

func validPort(p string) bool {
	if p == "" {
		return true
	}
	for _, c := range p {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(p) <= 5
}

// isLoopbackHost reports whether host is 127.0.0.1, ::1 or localhost (not
// any 127/8 name: the three RFC 8252 names clients use).
func isLoopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback() && (ip.Equal(net.IPv4(127, 0, 0, 1)) || ip.Equal(net.IPv6loopback))
}
