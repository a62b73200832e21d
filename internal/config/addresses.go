package config

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// PublicOrigin checks a PERFORM_PUBLIC_URL (or --public-url) value: the
// root URL clients reach the server at, and the OAuth issuer, so an http
// or https origin — a scheme, a host and perhaps a port, nothing else (a
// trailing "/" is dropped). Anything more (a path, a query, a fragment, a
// user) would make an issuer no client can match. The error names the
// variable, the flag and what is wrong (a sentence but for its period).
func PublicOrigin(v string) (string, error) {
	if v == "" {
		return "", nil
	}
	bad := func(what string) (string, error) {
		return "", fmt.Errorf("PERFORM_PUBLIC_URL (--public-url) must be an http or https origin such as https://perform.example.com, with %s; got %q", what, v)
	}
	u, err := url.Parse(v)
	if err != nil || u.Opaque != "" {
		return bad("a scheme and a host")
	}
	if !strings.EqualFold(u.Scheme, "http") && !strings.EqualFold(u.Scheme, "https") {
		return bad("the scheme http or https")
	}
	switch {
	case u.Host == "" || u.Hostname() == "" || strings.ContainsAny(u.Host, "% "):
		return bad("a host")
	case strings.HasSuffix(u.Host, ":"):
		return bad("a port number after the colon, or no colon")
	case u.User != nil:
		return bad("no user or password")
	case u.Path != "" && u.Path != "/" || u.RawPath != "":
		return bad("no path (Perform is served at the root of its host)")
	case u.RawQuery != "" || u.ForceQuery:
		return bad("no query")
	case u.Fragment != "" || strings.Contains(v, "#"):
		return bad("no fragment")
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return bad("a port from 1 to 65535")
		}
	}
	return strings.TrimSuffix(v, "/"), nil
}

// ValidHost reports whether h is a host name (letters, digits, hyphens and
// dots, labels of 1 to 63 characters; an IPv4 address is one), optionally
// with a port from 1 to 65535.
func ValidHost(h string) bool {
	host := h
	if i := strings.LastIndexByte(h, ':'); i >= 0 && !strings.Contains(h[:i], ":") {
		port, err := strconv.Atoi(h[i+1:])
		if err != nil || port < 1 || port > 65535 || h[i+1] == '+' {
			return false
		}
		host = h[:i]
	}
	if host == "" || len(host) > 253 {
		return false
	}
	for _, label := range strings.Split(host, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, c := range label {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}
