package login_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/agent"
	"github.com/otherwise/perform/internal/agent/fakes"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/login"
	"github.com/otherwise/perform/internal/otc"
	"github.com/otherwise/perform/internal/otc/otctest"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/store/storetest"
	"github.com/otherwise/perform/internal/testkit"
)

var ctx = context.Background()

// t0 is the tests' clock start.
var t0 = time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)

// env is a real sign-in on a real store behind a real HTTP server on
// 127.0.0.1, with the fake SmartSend receiving the codes. /private is a
// page behind RequireSignIn; a POST to it checks CheckCSRF.
type env struct {
	t     *testing.T
	st    store.Store
	svc   *login.Service
	srv   *httptest.Server
	clock *storetest.FixedClock
	sms   *fakes.SmartSend
	sent  *otctest.Sender // the codes, when envOpts.recorder
	log   *testkit.Buffer
}

type envOpts struct {
	noGateway bool
	recorder  bool // the codes go to env.sent instead of a gateway
	limits    login.Limits
	publicURL string
	courier   *otc.Courier // the codes go as River jobs through it
}

func newEnv(t *testing.T, st store.Store, o envOpts) *env {
	t.Helper()
	e := &env{t: t, st: st, clock: storetest.NewFixedClock(t0), log: &testkit.Buffer{}}
	var gw login.Gateway
	if !o.noGateway {
		e.sms = fakes.NewSmartSend()
		t.Cleanup(e.sms.Close)
		gw = agent.NewSmartSend(e.sms.URL, "test-smartsend-key", nil)
	}
	var sender otc.Sender
	if o.recorder {
		e.sent = otctest.NewSender()
		sender = e.sent
	}
	logger := slog.New(slog.NewTextHandler(e.log, &slog.HandlerOptions{Level: slog.LevelInfo}))
	// The service gets only what login.Stores names (no other method of st
	// to reach through a type assertion), so every test here holds it to
	// that interface.
	e.svc = login.New(login.Options{Store: struct{ login.Stores }{st}, Gateway: gw, Sender: sender, Logger: logger, Now: e.clock.Now, PublicURL: o.publicURL, Limits: o.limits, Courier: o.courier})
	mux := http.NewServeMux()
	e.svc.Register(mux)
	mux.HandleFunc("GET /private", func(w http.ResponseWriter, r *http.Request) {
		p, ok := e.svc.RequireSignIn(w, r)
		if !ok {
			return
		}
		io.WriteString(w, "hello "+p.Kind+" "+p.SubjectID+" of "+p.StudioID+" csrf="+e.svc.CSRFToken(r))
	})
	mux.HandleFunc("POST /private", func(w http.ResponseWriter, r *http.Request) {
		if _, ok := e.svc.Person(r); !ok || !e.svc.CheckCSRF(r) {
			http.Error(w, "refused", http.StatusForbidden)
			return
		}
		io.WriteString(w, "accepted")
	})
	e.srv = httptest.NewServer(mux)
	t.Cleanup(func() { e.srv.Close(); e.svc.Close() })
	return e
}

// world is a studio with a coach and a trainee, each with a phone of its own.
type world struct {
	studio  domain.Studio
	coach   domain.Coach
	trainee domain.Trainee
}

var phoneSeq struct {
	sync.Mutex
	n int
}

// newPhone is a fresh Israeli mobile number, E.164; the last four digits
// are the caller's when given.
func newPhone(last4 ...string) string {
	phoneSeq.Lock()
	defer phoneSeq.Unlock()
	phoneSeq.n++
	tail := "0000"
	if len(last4) > 0 {
		tail = last4[0]
	}
	return "+97253" + pad3(phoneSeq.n) + tail
}

func pad3(n int) string {
	s := "000" + itoa(n%1000)
	return s[len(s)-3:]
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

func (e *env) newWorld() world {
	e.t.Helper()
	w := world{studio: domain.Studio{Name: "סטודיו " + randomSuffix(), Slug: "login-" + strings.ToLower(randomSuffix())}}
	must(e.t, e.st.CreateStudio(ctx, &w.studio))
	ss := e.st.Studio(w.studio.ID)
	w.coach = domain.Coach{Name: "דנה לוי", Phone: ptr(newPhone("1111")), Active: true}
	must(e.t, ss.CreateCoach(ctx, &w.coach))
	w.trainee = domain.Trainee{FirstName: "Noa", LastName: "Bar", Phone: newPhone("2222")}
	must(e.t, ss.CreateTrainee(ctx, &w.trainee))
	return w
}

var suffixSeq struct {
	sync.Mutex
	n int
}

func randomSuffix() string {
	suffixSeq.Lock()
	defer suffixSeq.Unlock()
	suffixSeq.n++
	return "S" + itoa(suffixSeq.n) + itoa(int(time.Now().UnixNano()%100000))
}

func ptr[T any](v T) *T { return &v }

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// browser is an HTTP client with a cookie jar that does not follow
// redirects, so each answer can be looked at.
type browser struct {
	e *env
	c *http.Client
}

func (e *env) browser() *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{e: e, c: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

type answer struct {
	status int
	header http.Header
	body   string
}

func (b *browser) get(path string) answer {
	b.e.t.Helper()
	resp, err := b.c.Get(b.e.srv.URL + path)
	must(b.e.t, err)
	return read(b.e.t, resp)
}

func (b *browser) post(path string, form url.Values) answer {
	b.e.t.Helper()
	resp, err := b.c.PostForm(b.e.srv.URL+path, form)
	must(b.e.t, err)
	return read(b.e.t, resp)
}

func read(t *testing.T, resp *http.Response) answer {
	t.Helper()
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	must(t, err)
	return answer{status: resp.StatusCode, header: resp.Header, body: string(body)}
}

var csrfRE = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

func csrfIn(t *testing.T, a answer) string {
	t.Helper()
	m := csrfRE.FindStringSubmatch(a.body)
	if m == nil {
		t.Fatalf("no csrf field in the page (%d): %s", a.status, a.body)
	}
	return m[1]
}

// startSignIn opens the sign-in page (with next when given) and submits
// the phone; it answers the POST's answer and the form's CSRF token.
func (b *browser) startSignIn(phone, next string) (answer, string) {
	b.e.t.Helper()
	// Earlier codes still on their way could land after this one and be
	// counted as it (sentTo counts arrivals): wait for them first.
	b.e.svc.Close()
	path := "/login"
	if next != "" {
		path += "?next=" + url.QueryEscape(next)
	}
	page := b.get(path)
	if page.status != http.StatusOK {
		b.e.t.Fatalf("GET %s = %d: %s", path, page.status, page.body)
	}
	csrf := csrfIn(b.e.t, page)
	form := url.Values{"csrf": {csrf}, "phone": {phone}}
	if next != "" {
		form.Set("next", next)
	}
	return b.post("/login", form), csrf
}

func (b *browser) submitCode(csrf, code string) answer {
	b.e.t.Helper()
	return b.post("/login/code", url.Values{"csrf": {csrf}, "code": {code}})
}

// codeFor waits for the fake SmartSend to receive the n-th code (from 1)
// sent to e164 and returns it.
func (e *env) codeFor(e164 string, n int) string {
	e.t.Helper()
	conv := strings.TrimPrefix(e164, "+")
	deadline := time.Now().Add(10 * time.Second)
	for {
		seen := 0
		for _, m := range e.sms.Sent() {
			if m.ConversationID != conv {
				continue
			}
			if seen++; seen == n {
				if m.Authorization != "Bearer test-smartsend-key" {
					e.t.Fatalf("the code was sent with Authorization %q", m.Authorization)
				}
				c := testkit.CodeIn(m.Text)
				if c == "" {
					e.t.Fatalf("no 6-digit code in the message %q", m.Text)
				}
				return c
			}
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("no code #%d reached %s; sent: %+v", n, e164, e.sms.Sent())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// signIn signs b in as the record with phone (the only one with it) and
// answers the final redirect.
func (b *browser) signIn(phone, next string) answer {
	b.e.t.Helper()
	a, csrf := b.startSignIn(phone, next)
	if a.status != http.StatusSeeOther || a.header.Get("Location") != "/login/code" {
		b.e.t.Fatalf("POST /login = %d %s: %s", a.status, a.header.Get("Location"), a.body)
	}
	return b.submitCode(csrf, b.e.codeFor(phone, b.e.sentTo(phone)))
}

// sentTo is how many codes reached phone so far, once the one just asked
// for has arrived.
func (e *env) sentTo(phone string) int {
	e.svc.Close() // the background sends of the requests so far are done
	n := 0
	for _, m := range e.sms.Sent() {
		if m.ConversationID == strings.TrimPrefix(phone, "+") {
			n++
		}
	}
	return n
}

func (b *browser) cookie(name string) *http.Cookie {
	u, _ := url.Parse(b.e.srv.URL)
	for _, c := range b.c.Jar.Cookies(u) {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// engines runs fn on SQLite and on Postgres.
func engines(t *testing.T, fn func(t *testing.T, st store.Store)) {
	for name, open := range storetest.Engines(t) {
		t.Run(name, func(t *testing.T) { fn(t, open(t)) })
	}
}
