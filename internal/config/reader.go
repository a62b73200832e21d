package config

import (
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"strconv"
	"strings"

	"github.com/otherwise/perform/internal/httpx"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/phone"
	"github.com/otherwise/perform/internal/secret"
	"github.com/otherwise/perform/internal/webui"
)

// reader parses variables and keeps the first error, so FromEnv reads
// top to bottom without an error check per line.
type reader struct {
	getenv func(string) string
	err    error
}

func (r *reader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf(format, args...)
	}
}

func (r *reader) str(name string) string { return strings.TrimSpace(r.getenv(name)) }

// token is one word of printable ASCII (a verification token, answered
// as it is), at most 1,024 characters; empty when unset.
func (r *reader) token(name string) string {
	v := r.str(name)
	switch {
	case len(v) > 1024:
		r.fail("%s must be the token as given, at most 1,024 characters; got %d.", name, len(v))
	case strings.IndexFunc(v, func(c rune) bool { return c <= ' ' || c > '~' }) >= 0:
		r.fail("%s must be the token as given, one word of printable ASCII (no spaces); got %q.", name, v)
	default:
		return v
	}
	return ""
}

// maxSetting bounds the open-ended numeric settings (about 24 days in ms),
// so a duration cannot overflow.
const maxSetting = 1 << 31

func (r *reader) int(name string, def, lo, hi int) int {
	v := r.str(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		switch {
		case hi < maxSetting:
			r.fail("%s must be a whole number from %d to %d; got %q.", name, lo, hi, v)
		case lo == 1:
			r.fail("%s must be a whole number above 0; got %q.", name, v)
		default:
			r.fail("%s must be a whole number of at least %d; got %q.", name, lo, v)
		}
		return def
	}
	return n
}

// price is US dollars per million tokens: a decimal number above 0, or
// unset (0).
func (r *reader) price(name string) float64 {
	v := r.str(name)
	if v == "" {
		return 0
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || !(f > 0 && f < 1e6) {
		r.fail("%s must be US dollars per million tokens, a number above 0 such as 3 or 0.8; got %q.", name, v)
		return 0
	}
	return f
}

func (r *reader) gcPercent(name string, def int) int {
	v := r.str(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || (n < 1 && n != -1) {
		r.fail("%s must be a whole number above 0 (the heap growth in percent), or -1 to switch the collector off; got %q.", name, v)
		return def
	}
	return n
}

func (r *reader) url(name string, schemes ...string) string {
	v := r.str(name)
	if v == "" {
		return ""
	}
	u, err := url.Parse(v)
	if err != nil || u.Scheme == "" || (u.Host == "" && u.Scheme != "unix") {
		r.fail("%s must be an absolute URL such as %s://host; got %q.", name, schemes[0], v)
		return ""
	}
	for _, s := range schemes {
		if strings.EqualFold(u.Scheme, s) {
			return v
		}
	}
	r.fail("%s must be a %s URL; got %q.", name, strings.Join(schemes, " or "), v)
	return ""
}

// secret accepts 32 bytes as hex or base64 (secret.ParseKey's forms).
func (r *reader) secret(name string) []byte {
	v := r.str(name)
	if v == "" {
		return nil
	}
	k, err := secret.ParseKey(v)
	if err != nil {
		// The value is a secret: name its length, never echo it.
		r.fail("%s must be 32 random bytes written as 64 hex characters or as base64 (try: openssl rand -base64 32); got %d characters that are neither.", name, len(v))
		return nil
	}
	return k
}

// doc reads the plain-text file the variable names (a studio's privacy
// or terms text); unset is "".
func (r *reader) doc(name string) string {
	path := r.str(name)
	if path == "" {
		return ""
	}
	f, err := os.Open(path)
	if err != nil {
		r.fail("%s names a file that cannot be read: %v.", name, err)
		return ""
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, webui.MaxDocBytes+1))
	if err != nil {
		r.fail("%s names a file that cannot be read: %v.", name, err)
		return ""
	}
	if _, err := webui.ParseDoc(string(b)); err != nil {
		r.fail("%s must name a plain-text file (paragraphs apart by a blank line, \"# \" headings, \"- \" list items); %s: %v.", name, path, err)
		return ""
	}
	return string(b)
}

func (r *reader) oneOf(name string, allowed ...string) string {
	v := strings.ToLower(r.str(name))
	if v == "" {
		return ""
	}
	for _, a := range allowed {
		if v == a {
			return v
		}
	}
	r.fail("%s must be %s; got %q.", name, strings.Join(allowed, " or "), v)
	return ""
}

func (r *reader) level(name string, def slog.Level) slog.Level {
	v := r.str(name)
	if v == "" {
		return def
	}
	var l slog.Level
	if err := l.UnmarshalText([]byte(v)); err != nil {
		r.fail("%s must be debug, info, warn or error; got %q.", name, v)
		return def
	}
	return l
}

func (r *reader) proxies(name string) httpx.TrustedProxies {
	t, err := httpx.ParseTrustedProxies(r.str(name))
	if err != nil {
		r.fail("%s must be a comma-separated list of the load balancers' IP addresses or CIDR prefixes; %v.", name, err)
	}
	return t
}

func (r *reader) phones(name string) []string {
	var out []string
	for _, p := range strings.Split(r.str(name), ",") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		e164, err := phone.Normalize(p, phone.DefaultRegion)
		if err != nil {
			r.fail("%s must be a comma-separated list of phone numbers; %q is not a phone number.", name, p)
			return nil
		}
		out = append(out, e164)
	}
	return out
}

// hosts reads a comma-separated list of host names, each optionally with
// a port: no scheme, path, user or wildcard.
func (r *reader) hosts(name string) []string {
	var out []string
	for _, h := range strings.Split(r.str(name), ",") {
		if h = strings.ToLower(strings.TrimSpace(h)); h == "" {
			continue
		}
		if !ValidHost(h) {
			r.fail("%s must be a comma-separated list of host names such as api.perfox.example or api.perfox.example:8443, without https:// or a path; %q is not one.", name, h)
			return nil
		}
		out = append(out, h)
	}
	return out
}

func (r *reader) phoneCoaches(name string) map[string]string {
	v := r.str(name)
	if v == "" {
		return nil
	}
	out := map[string]string{}
	for _, pair := range strings.Split(v, ",") {
		if pair = strings.TrimSpace(pair); pair == "" {
			continue
		}
		p, coach, ok := strings.Cut(pair, "=")
		p, coach = strings.TrimSpace(p), strings.TrimSpace(coach)
		if !ok || !ids.Is(coach, ids.Coach) {
			r.fail("%s must be a comma-separated list of phone=coachId pairs with coach ids such as coa_…; %q is not one.", name, pair)
			return nil
		}
		e164, err := phone.Normalize(p, phone.DefaultRegion)
		if err != nil {
			r.fail("%s must be a comma-separated list of phone=coachId pairs; %q is not a phone number.", name, p)
			return nil
		}
		out[e164] = coach
	}
	return out
}
