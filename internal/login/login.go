// Package login signs coaches and trainees in on a browser: their phone,
// then a one-time code sent over WhatsApp. The signed-in browser session
// is what the OAuth pages (consent, connected apps) ask for.
//
// Two cookies, both random, both kept in the database only as SHA-256:
// the sign-in cookie holds a browser's pending sign-in (the phone it typed;
// its code is the one-time-code component's, internal/otc, bound to the
// cookie's hash and the phone) until the code is right; the session cookie is the
// signed-in browser. Each form's CSRF token is an HMAC of its cookie, so a
// page from another site can neither read nor forge it, and nothing more
// is stored for it.
package login

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/otherwise/perform/internal/otc"
	"github.com/otherwise/perform/internal/ratelimit"
	"github.com/otherwise/perform/internal/store"
)

// Person is someone signed in on a browser: a coach or a trainee of one
// studio, found by the phone on their record.
type Person struct {
	StudioID   string
	StudioName string
	Kind       string // PersonCoach or PersonTrainee
	SubjectID  string // coa_… or trn_…
	Name       string
	Gender     string // female, male, other or "": the pages' role words follow it
}

// Kinds of person.
const (
	PersonCoach   = store.LoginCoach
	PersonTrainee = store.LoginTrainee
)

// Gateway sends one WhatsApp message into a SmartSend conversation: the
// agent's SmartSend client (agent.NewSmartSend with AGENT_SMARTSEND_API_KEY,
// the Perform AI number) is one. A phone's conversation is its
// international digits without the plus, as WhatsApp writes them.
type Gateway interface {
	Send(ctx context.Context, conversationID, text string) error
}

// Limits are the sign-in's rules; a zero field takes its default.
type Limits struct {
	CodeTTL     time.Duration // how long a code works: 10 minutes
	MaxTries    int           // wrong codes before a code is dead: 5
	PhoneCodes  int           // codes asked for one phone per PhoneWindow: 5
	PhoneWindow time.Duration // 1 hour
	AddrStarts  int           // phones submitted from one address per AddrWindow: 20
	AddrTries   int           // codes tried from one address per AddrWindow: 30
	AddrWindow  time.Duration // 15 minutes
	SessionIdle time.Duration // a session unused this long ends: 12 hours
	SessionMax  time.Duration // a session ends this long after sign-in: 7 days
}

// DefaultLimits are the rules docs/sign-in.md states.
var DefaultLimits = Limits{
	CodeTTL: 10 * time.Minute, MaxTries: 5,
	PhoneCodes: 5, PhoneWindow: time.Hour,
	AddrStarts: 20, AddrTries: 30, AddrWindow: 15 * time.Minute,
	SessionIdle: 12 * time.Hour, SessionMax: 7 * 24 * time.Hour,
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits
	pick := func(v *time.Duration, def time.Duration) {
		if *v <= 0 {
			*v = def
		}
	}
	pickN := func(v *int, def int) {
		if *v <= 0 {
			*v = def
		}
	}
	pick(&l.CodeTTL, d.CodeTTL)
	pickN(&l.MaxTries, d.MaxTries)
	pickN(&l.PhoneCodes, d.PhoneCodes)
	pick(&l.PhoneWindow, d.PhoneWindow)
	pickN(&l.AddrStarts, d.AddrStarts)
	pickN(&l.AddrTries, d.AddrTries)
	pick(&l.AddrWindow, d.AddrWindow)
	pick(&l.SessionIdle, d.SessionIdle)
	pick(&l.SessionMax, d.SessionMax)
	return l
}

// Stores is what the sign-in needs of the store (store.Store satisfies
// it): its own tables (people, challenges, sessions, counters), the
// one-time codes, and a transaction to write a code, its job and its
// sign-in in together.
type Stores interface {
	Login() store.LoginStore
	Codes() store.CodeStore
	InTx(ctx context.Context, fn func(tx store.Store) error) error
}

// Options configure New.
type Options struct {
	Store Stores
	// Gateway sends the codes. Nil (no SmartSend configured: the demo)
	// writes each code to Logger at info instead, never onto the page.
	Gateway Gateway
	Logger  *slog.Logger
	Now     func() time.Time // time.Now when nil
	// PublicURL is the root URL browsers reach the server at. When it is
	// https the cookies are Secure and carry the __Host- prefix.
	PublicURL string
	Limits    Limits
	// Sender sends the codes instead of Gateway or the log: tests pass an
	// otctest.Sender and read the codes from it.
	Sender otc.Sender
	// CodeSends counts the codes asked for each phone. Nil: the database's
	// counters, Limits.PhoneCodes per PhoneWindow, shared by every instance.
	CodeSends ratelimit.Limiter
	// Courier sends the codes as River jobs, each inserted in the
	// transaction that writes its code and sign-in (the server's). Nil:
	// sent from this process in the background (tests, the CLI's demo).
	Courier *otc.Courier
}

// codePurpose names the sign-in's codes among the doors' (internal/otc).
const codePurpose = "login"

// Service is the browser sign-in: its pages and the signed-in person.
type Service struct {
	st      store.LoginStore
	db      Stores
	codes   *otc.Codes
	gateway Gateway
	logger  *slog.Logger
	now     func() time.Time
	secure  bool
	limits  Limits

	// addrStarts and addrTries count phones submitted and codes tried per
	// client address.
	addrStarts, addrTries ratelimit.Limiter

	sessionCookie, signinCookie string

	lastSweep atomic.Int64
}

// New builds the service.
func New(o Options) *Service {
	s := &Service{st: o.Store.Login(), db: o.Store, gateway: o.Gateway, logger: o.Logger, now: o.Now, limits: o.Limits.withDefaults()}
	if s.logger == nil {
		s.logger = slog.New(slog.DiscardHandler)
	}
	if s.now == nil {
		s.now = time.Now
	}
	counter := func(prefix string, max int, window time.Duration) ratelimit.Limiter {
		return dbLimiter{st: s.st, prefix: prefix, max: max, window: window, now: s.now}
	}
	s.addrStarts = counter("login:addr:", s.limits.AddrStarts, s.limits.AddrWindow)
	s.addrTries = counter("login:try:", s.limits.AddrTries, s.limits.AddrWindow)
	sends := o.CodeSends
	if sends == nil {
		// Named login:<phone>: the component counts under its purpose.
		sends = counter("", s.limits.PhoneCodes, s.limits.PhoneWindow)
	}
	sender := o.Sender
	if sender == nil {
		sender = otc.SenderFunc(s.sendCode)
	}
	s.codes = otc.New(otc.Options{Purpose: codePurpose, Store: o.Store.Codes(), Sender: sender, Sends: sends,
		TTL: s.limits.CodeTTL, MaxTries: s.limits.MaxTries, Logger: s.logger, Now: s.now, Courier: o.Courier})
	s.secure = strings.HasPrefix(strings.ToLower(o.PublicURL), "https://")
	s.sessionCookie, s.signinCookie = "perform_session", "perform_signin"
	if s.secure {
		// __Host-: the browser keeps it only if Secure, Path=/ and no
		// Domain, so no subdomain or plain-http page can plant one.
		s.sessionCookie, s.signinCookie = "__Host-"+s.sessionCookie, "__Host-"+s.signinCookie
	}
	return s
}

// Close waits for the codes still being sent.
func (s *Service) Close() { s.codes.Wait() }

// SessionCookieName is the name of the signed-in browser's cookie.
func (s *Service) SessionCookieName() string { return s.sessionCookie }

// Register mounts the sign-in pages, each behind checkInput.
func (s *Service) Register(mux *http.ServeMux) {
	for pattern, h := range map[string]http.HandlerFunc{
		"GET /login":         s.getLogin,
		"POST /login":        s.postLogin,
		"GET /login/code":    s.getCode,
		"POST /login/code":   s.postCode,
		"GET /login/choose":  s.getChoose,
		"POST /login/choose": s.postChoose,
		"POST /logout":       s.postLogout,
	} {
		mux.Handle(pattern, checkInput(h))
	}
}

// Person is the browser's signed-in person. A session in use has its idle
// end moved (at most once a minute), never past its absolute end.
func (s *Service) Person(r *http.Request) (Person, bool) {
	tok, ok := cookieToken(r, s.sessionCookie)
	if !ok {
		return Person{}, false
	}
	now := s.now()
	h := hashOf(tok)
	sess, p, err := s.st.Session(r.Context(), h, now)
	if err != nil {
		if !errors.Is(err, store.ErrNotFound) {
			s.logger.ErrorContext(r.Context(), "reading a browser session failed", "err", err)
		}
		return Person{}, false
	}
	if now.Sub(sess.LastSeenAt) >= time.Minute {
		if err := s.st.TouchSession(r.Context(), h, now, s.sessionEnd(sess.CreatedAt, now)); err != nil && !errors.Is(err, store.ErrNotFound) {
			s.logger.WarnContext(r.Context(), "touching a browser session failed", "err", err)
		}
	}
	return Person{StudioID: p.StudioID, StudioName: p.StudioName, Kind: p.Kind, SubjectID: p.SubjectID, Name: p.Name, Gender: p.Gender}, true
}

// sessionEnd is the idle end of a session last used at now, capped by
// its absolute end.
func (s *Service) sessionEnd(created, now time.Time) time.Time {
	end := now.Add(s.limits.SessionIdle)
	if hard := created.Add(s.limits.SessionMax); end.After(hard) {
		end = hard
	}
	return end
}

// RequireSignIn answers the person, or redirects the browser to
// /login?next=<r's path and query> and answers false.
func (s *Service) RequireSignIn(w http.ResponseWriter, r *http.Request) (Person, bool) {
	if p, ok := s.Person(r); ok {
		return p, true
	}
	target := "/login"
	if next := CleanNext(r.URL.RequestURI()); next != "" {
		target += "?next=" + url.QueryEscape(next)
	}
	http.Redirect(w, r, target, http.StatusSeeOther)
	return Person{}, false
}

// CSRFToken is the hidden "csrf" field for the forms of r's session ("" when
// the browser has none).
func (s *Service) CSRFToken(r *http.Request) string {
	tok, ok := cookieToken(r, s.sessionCookie)
	if !ok {
		return ""
	}
	return csrfOf(tok)
}

// CheckCSRF reports whether a POST's "csrf" form field is its session's token.
func (s *Service) CheckCSRF(r *http.Request) bool {
	tok, ok := cookieToken(r, s.sessionCookie)
	return ok && csrfMatches(tok, r.PostFormValue("csrf"))
}

// Tokens.

// tokenBytes is the entropy of every cookie: 256 bits.
const tokenBytes = 32

func newToken() string {
	b := make([]byte, tokenBytes)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(b)
}

// cookieToken is the named cookie's value when it looks like a token.
func cookieToken(r *http.Request, name string) (string, bool) {
	c, err := r.Cookie(name)
	if err != nil {
		return "", false
	}
	if b, err := base64.RawURLEncoding.DecodeString(c.Value); err != nil || len(b) != tokenBytes {
		return "", false
	}
	return c.Value, true
}

func hashOf(tok string) []byte {
	h := sha256.Sum256([]byte(tok))
	return h[:]
}

// csrfOf is the CSRF token of a cookie token: an HMAC only the holder of
// the (HttpOnly) cookie's server can compute.
func csrfOf(tok string) string {
	m := hmac.New(sha256.New, []byte(tok))
	m.Write([]byte("perform csrf"))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

func csrfMatches(tok, got string) bool {
	return got != "" && hmac.Equal([]byte(csrfOf(tok)), []byte(got))
}

// codeSubject is the one-time code's subject of a pending sign-in: its
// cookie's hash.
func codeSubject(challenge []byte) string { return hex.EncodeToString(challenge) }

func (s *Service) setCookie(w http.ResponseWriter, name, value string, maxAge time.Duration) {
	c := &http.Cookie{Name: name, Value: value, Path: "/", HttpOnly: true, Secure: s.secure, SameSite: http.SameSiteLaxMode}
	if maxAge > 0 {
		c.MaxAge = int(maxAge.Seconds())
	} else {
		c.MaxAge = -1
	}
	http.SetCookie(w, c)
}
