package login

import (
	"context"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/otc"
	"github.com/otherwise/perform/internal/phone"
	"github.com/otherwise/perform/internal/ratelimit"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/webui"
)

// The sentences the pages say (keys of webui's catalogue). Each is the
// same whoever the phone belongs to, or whether it belongs to anyone.
const (
	msgPhoneInvalid = "login.err.phone"
	msgExpired      = "login.err.expired"
	msgThrottled    = "login.err.throttled"
	msgCodeGone     = "login.err.gone"
	msgCodeWrong    = "login.err.wrong"
	msgChoose       = "login.err.choose"
	msgFailed       = "login.err.failed"
)

// resendAfter is how soon the same browser may ask for a new code for the
// same phone.
const resendAfter = time.Minute

// sweepEvery is how often a sign-in clears ended rows out of the tables.
const sweepEvery = 10 * time.Minute

func (s *Service) getLogin(w http.ResponseWriter, r *http.Request) {
	next := CleanNext(r.URL.Query().Get("next"))
	if p, ok := s.Person(r); ok {
		if next != "" {
			http.Redirect(w, r, next, http.StatusSeeOther)
			return
		}
		webui.Render(w, r, http.StatusOK, signedInPage, signedInView{CSRF: s.CSRFToken(r), Name: p.Name, Role: roleOf(r, p), StudioName: p.StudioName}, "title.signedin")
		return
	}
	tok, ok := cookieToken(r, s.signinCookie)
	if !ok {
		tok = newToken()
		s.setCookie(w, s.signinCookie, tok, time.Hour)
	}
	webui.Render(w, r, http.StatusOK, phonePage, phoneView{CSRF: csrfOf(tok), Next: next}, title)
}

func (s *Service) postLogin(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	tok, ok := s.signinForm(w, r)
	if !ok {
		return
	}
	if !s.allow(w, r, s.addrStarts, addrOf(r)) {
		return
	}
	raw := strings.TrimSpace(r.PostFormValue("phone"))
	next := CleanNext(r.PostFormValue("next"))
	e164, people, err := s.lookup(ctx, raw)
	if errors.Is(err, phone.ErrInvalid) {
		webui.Render(w, r, http.StatusUnprocessableEntity, phonePage, phoneView{CSRF: csrfOf(tok), Next: next, Phone: raw,
			Error: say(r, msgPhoneInvalid, webui.LTR("050-123-4567"), webui.LTR("+972 50 123 4567"))}, title)
		return
	}
	if err != nil {
		s.fail(w, r, "looking a phone up failed", err)
		return
	}
	now := s.now()
	h := hashOf(tok)
	// The same phone again within a minute (a double click, a reload) keeps
	// the code on its way instead of sending a second one.
	if old, err := s.st.Challenge(ctx, h); err == nil && old.Phone == e164 && old.VerifiedAt == nil &&
		now.Sub(old.CreatedAt) < resendAfter && now.Before(old.ExpiresAt) {
		http.Redirect(w, r, "/login/code", http.StatusSeeOther)
		return
	}
	// A code for every number typed, sent only to one on a record, and
	// counted against the number either way: neither the page nor the
	// limit says which numbers exist. The code is bound to the phone, so
	// it signs in as no other this browser typed.
	req := otc.Request{Subject: codeSubject(h), Person: e164, Data: e164}
	if len(people) > 0 {
		req.To = e164
	}
	// Counted first (the count is a write of its own), then the code, its
	// job and the sign-in commit together: no code goes out for a sign-in
	// that was not stored.
	err = s.codes.Count(ctx, req)
	var refusal *otc.Refusal
	if errors.As(err, &refusal) && errors.Is(err, otc.ErrThrottled) {
		s.throttled(w, r, refusal.RetryAfter)
		return
	}
	if err != nil {
		s.fail(w, r, "counting a sign-in code failed", err)
		return
	}
	err = s.db.InTx(ctx, func(tx store.Store) error {
		issued, err := s.codes.WithTx(tx).Write(ctx, req)
		if err != nil {
			return err
		}
		return tx.Login().PutChallenge(ctx, store.LoginChallenge{Hash: h, Phone: e164, Next: next, CreatedAt: now, ExpiresAt: issued.ExpiresAt})
	})
	if err != nil {
		s.fail(w, r, "issuing a sign-in code failed", err)
		return
	}
	s.sweep(ctx, now)
	http.Redirect(w, r, "/login/code", http.StatusSeeOther)
}

// lookup reads the typed phone and finds who it signs in as. A number
// typed with its country code means one number. A national number is read
// in the default region and in every studio's region: when those name
// different numbers, the first (default region first) that is on a record
// wins; when none is, the default region's reading is used.
func (s *Service) lookup(ctx context.Context, raw string) (string, []store.LoginPerson, error) {
	regions, err := s.st.StudioRegions(ctx)
	if err != nil {
		return "", nil, err
	}
	var candidates []string
	for _, region := range append([]string{phone.DefaultRegion}, regions...) {
		e, err := phone.Normalize(raw, region)
		if err == nil && !slices.Contains(candidates, e) {
			candidates = append(candidates, e)
		}
	}
	if len(candidates) == 0 {
		return "", nil, phone.ErrInvalid
	}
	// Every reading is looked up, found or not, so the time taken says
	// nothing about which one is on a record.
	e164, found := candidates[0], []store.LoginPerson(nil)
	for _, e := range candidates {
		people, err := s.st.PeopleByPhone(ctx, e)
		if err != nil {
			return "", nil, err
		}
		if len(people) > 0 && found == nil {
			e164, found = e, people
		}
	}
	return e164, found, nil
}

func (s *Service) getCode(w http.ResponseWriter, r *http.Request) {
	tok, c, ok := s.challenge(r)
	if !ok {
		http.Redirect(w, r, "/login", http.StatusSeeOther)
		return
	}
	if c.VerifiedAt != nil {
		http.Redirect(w, r, "/login/choose", http.StatusSeeOther)
		return
	}
	s.codeForm(w, r, http.StatusOK, tok, c, "")
}

func (s *Service) codeForm(w http.ResponseWriter, r *http.Request, status int, tok string, c store.LoginChallenge, errText template.HTML) {
	webui.Render(w, r, status, codePage, codeView{CSRF: csrfOf(tok), Phone: phone.Masked(c.Phone), Error: errText, Minutes: int(s.limits.CodeTTL / time.Minute)}, title)
}

func (s *Service) postCode(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	tok, ok := s.signinForm(w, r)
	if !ok {
		return
	}
	if !s.allow(w, r, s.addrTries, addrOf(r)) {
		return
	}
	_, c, ok := s.challenge(r)
	if !ok {
		message(w, r, http.StatusBadRequest, msgCodeGone)
		return
	}
	if c.VerifiedAt != nil {
		http.Redirect(w, r, "/login/choose", http.StatusSeeOther)
		return
	}
	// The component counts the try before it compares the code, in one
	// statement, so parallel guesses cannot share a try.
	res, err := s.codes.Verify(ctx, codeSubject(c.Hash), r.PostFormValue("code"))
	var refusal *otc.Refusal
	switch {
	case errors.Is(err, otc.ErrWrong) && errors.As(err, &refusal) && refusal.TriesLeft > 0:
		s.codeForm(w, r, http.StatusUnprocessableEntity, tok, c, say(r, msgCodeWrong, refusal.TriesLeft))
		return
	case errors.As(err, &refusal): // locked now or before, expired, used
		s.forget(ctx, c.Hash)
		message(w, r, http.StatusBadRequest, msgCodeGone)
		return
	case err != nil:
		s.fail(w, r, "checking a sign-in code failed", err)
		return
	case res.Data != c.Phone: // a code of another phone than this sign-in's
		s.forget(ctx, c.Hash)
		message(w, r, http.StatusBadRequest, msgCodeGone)
		return
	}
	people, err := s.st.PeopleByPhone(ctx, c.Phone)
	if err != nil {
		s.fail(w, r, "looking a phone up failed", err)
		return
	}
	if len(people) == 0 {
		// The code nobody was sent was guessed, or the record is gone:
		// answered as a wrong code, so it tells nothing.
		if left := s.limits.MaxTries - res.Tries; left > 0 {
			s.codeForm(w, r, http.StatusUnprocessableEntity, tok, c, say(r, msgCodeWrong, left))
			return
		}
		s.forget(ctx, c.Hash)
		message(w, r, http.StatusBadRequest, msgCodeGone)
		return
	}
	if len(people) == 1 {
		s.signIn(w, r, c, people[0])
		return
	}
	if err := s.st.VerifyChallenge(ctx, c.Hash, s.now()); err != nil {
		s.fail(w, r, "recording a right code failed", err)
		return
	}
	http.Redirect(w, r, "/login/choose", http.StatusSeeOther)
}

// The studio is chosen only after the code was right: the list of
// records a phone is on is shown to whoever holds that phone, and to
// nobody else.

func (s *Service) getChoose(w http.ResponseWriter, r *http.Request) {
	tok, c, ok := s.challenge(r)
	if !ok || c.VerifiedAt == nil {
		http.Redirect(w, r, "/login", http.StatusSeeOther)
		return
	}
	s.chooseForm(w, r, http.StatusOK, tok, c, "")
}

func (s *Service) chooseForm(w http.ResponseWriter, r *http.Request, status int, tok string, c store.LoginChallenge, errText template.HTML) {
	people, err := s.st.PeopleByPhone(r.Context(), c.Phone)
	if err != nil {
		s.fail(w, r, "looking a phone up failed", err)
		return
	}
	v := chooseView{CSRF: csrfOf(tok), Error: errText}
	for _, p := range people {
		v.Choices = append(v.Choices, choice{SubjectID: p.SubjectID, StudioName: p.StudioName, Role: webui.Role(webui.Language(r), p.Kind, p.Gender), Name: p.Name})
	}
	webui.Render(w, r, status, choosePage, v, title)
}

func (s *Service) postChoose(w http.ResponseWriter, r *http.Request) {
	tok, ok := s.signinForm(w, r)
	if !ok {
		return
	}
	_, c, ok := s.challenge(r)
	if !ok || c.VerifiedAt == nil {
		message(w, r, http.StatusBadRequest, msgCodeGone)
		return
	}
	people, err := s.st.PeopleByPhone(r.Context(), c.Phone)
	if err != nil {
		s.fail(w, r, "looking a phone up failed", err)
		return
	}
	want := r.PostFormValue("person")
	for _, p := range people {
		if p.SubjectID == want {
			s.signIn(w, r, c, p)
			return
		}
	}
	s.chooseForm(w, r, http.StatusUnprocessableEntity, tok, c, say(r, msgChoose))
}

// signIn starts the browser's session as p, ends its pending sign-in and
// sends it on.
func (s *Service) signIn(w http.ResponseWriter, r *http.Request, c store.LoginChallenge, p store.LoginPerson) {
	ctx := r.Context()
	now := s.now()
	tok := newToken()
	sess := store.BrowserSession{Hash: hashOf(tok), StudioID: p.StudioID, Kind: p.Kind, SubjectID: p.SubjectID,
		CreatedAt: now, LastSeenAt: now, ExpiresAt: s.sessionEnd(now, now)}
	if err := s.st.CreateSession(ctx, sess); err != nil {
		s.fail(w, r, "storing a browser session failed", err)
		return
	}
	s.forget(ctx, c.Hash)
	// An old session of this browser ends: one browser, one person.
	if old, ok := cookieToken(r, s.sessionCookie); ok {
		_ = s.st.DeleteSession(ctx, hashOf(old))
	}
	s.setCookie(w, s.sessionCookie, tok, s.limits.SessionMax)
	s.setCookie(w, s.signinCookie, "", 0)
	s.logger.InfoContext(ctx, "signed in on a browser", "studioId", p.StudioID, "kind", p.Kind, "subjectId", p.SubjectID)
	next := c.Next
	if next == "" {
		next = "/login"
	}
	http.Redirect(w, r, next, http.StatusSeeOther)
}

func (s *Service) postLogout(w http.ResponseWriter, r *http.Request) {
	if tok, ok := cookieToken(r, s.sessionCookie); ok {
		if !csrfMatches(tok, r.PostFormValue("csrf")) {
			message(w, r, http.StatusForbidden, msgExpired)
			return
		}
		if err := s.st.DeleteSession(r.Context(), hashOf(tok)); err != nil {
			s.fail(w, r, "ending a browser session failed", err)
			return
		}
	}
	s.setCookie(w, s.sessionCookie, "", 0)
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}

// signinForm checks a sign-in form's cookie and CSRF field; when either is
// wrong it answers the "expired" page and false.
func (s *Service) signinForm(w http.ResponseWriter, r *http.Request) (string, bool) {
	tok, ok := cookieToken(r, s.signinCookie)
	if !ok || !csrfMatches(tok, r.PostFormValue("csrf")) {
		message(w, r, http.StatusForbidden, msgExpired)
		return "", false
	}
	return tok, true
}

// challenge is the browser's pending sign-in, while it lives.
func (s *Service) challenge(r *http.Request) (string, store.LoginChallenge, bool) {
	tok, ok := cookieToken(r, s.signinCookie)
	if !ok {
		return "", store.LoginChallenge{}, false
	}
	c, err := s.st.Challenge(r.Context(), hashOf(tok))
	if err != nil {
		if !errors.Is(err, store.ErrNotFound) {
			s.logger.ErrorContext(r.Context(), "reading a sign-in failed", "err", err)
		}
		return "", c, false
	}
	if !s.now().Before(c.ExpiresAt) {
		return "", c, false
	}
	return tok, c, true
}

// forget ends a pending sign-in and its code.
func (s *Service) forget(ctx context.Context, challenge []byte) {
	if err := s.codes.Revoke(ctx, codeSubject(challenge)); err != nil {
		s.logger.WarnContext(ctx, "forgetting a sign-in code failed", "err", err)
	}
	if err := s.st.DeleteChallenge(ctx, challenge); err != nil {
		s.logger.WarnContext(ctx, "forgetting a sign-in failed", "err", err)
	}
}

// allow counts one event of key; over the limit it answers 429 with
// Retry-After and false. A counter that cannot be written refuses too:
// sign-in without its throttle is a guessing game.
func (s *Service) allow(w http.ResponseWriter, r *http.Request, l ratelimit.Limiter, key string) bool {
	d, err := l.Allow(r.Context(), key)
	if err != nil {
		s.fail(w, r, "counting a sign-in failed", err)
		return false
	}
	if !d.Allowed {
		s.throttled(w, r, d.RetryAfter)
	}
	return d.Allowed
}

// throttled answers 429 with Retry-After.
func (s *Service) throttled(w http.ResponseWriter, r *http.Request, wait time.Duration) {
	w.Header().Set("Retry-After", strconv.Itoa(ratelimit.RetryAfterSeconds(wait)))
	message(w, r, http.StatusTooManyRequests, msgThrottled, max(int((wait+time.Minute-1)/time.Minute), 1))
}

// dbLimiter is a ratelimit.Limiter on the database's fixed-window
// counters (store.LoginStore.Hit), so every instance shares each count
// without Redis.
type dbLimiter struct {
	st     store.LoginStore
	prefix string
	max    int
	window time.Duration
	now    func() time.Time
}

func (l dbLimiter) Allow(ctx context.Context, key string) (ratelimit.Decision, error) {
	now := l.now()
	end := now.Truncate(l.window).Add(l.window)
	n, err := l.st.Hit(ctx, l.prefix+key, end)
	if err != nil {
		return ratelimit.Decision{}, err
	}
	d := ratelimit.Decision{Allowed: n <= l.max, Limit: l.max, Remaining: max(l.max-n, 0)}
	if !d.Allowed {
		d.RetryAfter = end.Sub(now)
	}
	return d, nil
}

// addrOf is the client's address without its port (the lane's rule).
func addrOf(r *http.Request) string {
	return strings.TrimPrefix(ratelimit.AddrKey(auth.ClientAddr(r)), "ip:")
}

func (s *Service) fail(w http.ResponseWriter, r *http.Request, what string, err error) {
	s.logger.ErrorContext(r.Context(), what, "err", err)
	message(w, r, http.StatusInternalServerError, msgFailed)
}

// sendCode is the sign-in's otc.Sender: the code over WhatsApp, or,
// without a gateway (the demo), in the log. The component sends it in the
// background, so the page answers as fast for a number on a record as for
// one that is not, and logs a failure without the code.
func (s *Service) sendCode(ctx context.Context, m otc.Message) error {
	if s.gateway == nil {
		s.logger.InfoContext(ctx, "sign-in code (no WhatsApp gateway is configured, so it is written here)", "phone", phone.Masked(m.To), "code", m.Code)
		return nil
	}
	minutes := int(m.TTL / time.Minute)
	text := fmt.Sprintf("Perform sign-in code: %s\nקוד הכניסה ל-Perform: %s\nIt works for %d minutes. Never share it.", m.Code, m.Code, minutes)
	return s.gateway.Send(ctx, strings.TrimPrefix(m.To, "+"), text)
}

// sweep clears ended sign-ins, sessions and counters, at most every
// sweepEvery per process.
func (s *Service) sweep(ctx context.Context, now time.Time) {
	last := s.lastSweep.Load()
	if now.UnixMilli()-last < sweepEvery.Milliseconds() || !s.lastSweep.CompareAndSwap(last, now.UnixMilli()) {
		return
	}
	if err := s.st.SweepLogin(ctx, now); err != nil {
		s.logger.WarnContext(ctx, "clearing ended sign-ins failed", "err", err)
	}
	if err := s.codes.Sweep(ctx); err != nil {
		s.logger.WarnContext(ctx, "clearing expired codes failed", "err", err)
	}
}
