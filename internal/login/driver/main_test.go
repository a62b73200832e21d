package main

import (
	"bytes"
	"context"
	"html/template"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/login"
	"github.com/otherwise/perform/internal/store/storetest"
)

// consentPage stands in for the OAuth consent page: its form carries the
// authorization request in hidden fields, the session's CSRF token and an
// approve and a deny button, as internal/oauth's does.
var consentPage = template.Must(template.New("c").Parse(`<!doctype html><main><h1>Connect</h1>
<form method="post" action="/authorize">
{{range $k, $vs := .Params}}{{range $vs}}<input type="hidden" name="{{$k}}" value="{{.}}">{{end}}{{end}}
<input type="hidden" name="csrf" value="{{.CSRF}}">
<button type="submit" name="decision" value="approve">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form></main>`))

// server is the sign-in on a real store with its codes in a log file,
// the stand-in consent page and a client's callback.
type server struct {
	url, callback, logPath string
	mu                     sync.Mutex
	landed                 url.Values
}

func newServer(t *testing.T, format string) (*server, domain.Coach) {
	t.Helper()
	st := storetest.OpenSQLite(t)
	studio := domain.Studio{Name: "Demo", Slug: "demo-driver"}
	if err := st.CreateStudio(context.Background(), &studio); err != nil {
		t.Fatal(err)
	}
	coach := domain.Coach{Name: "Dana Levi", Phone: ptr("+972501234567"), Active: true}
	if err := st.Studio(studio.ID).CreateCoach(context.Background(), &coach); err != nil {
		t.Fatal(err)
	}
	s := &server{logPath: filepath.Join(t.TempDir(), "perform.log")}
	logFile, err := os.Create(s.logPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { logFile.Close() })
	var h slog.Handler = slog.NewJSONHandler(logFile, nil)
	if format == "text" {
		h = slog.NewTextHandler(logFile, nil)
	}
	// An earlier run's code for the same phone is in the log already.
	slog.New(h).Info("sign-in code (no WhatsApp gateway is configured, so it is written here)", "phone", "…4567", "code", "999999")
	svc := login.New(login.Options{Store: st, Logger: slog.New(h)})
	t.Cleanup(svc.Close)

	cb := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.landed = r.URL.Query()
		s.mu.Unlock()
		w.Write([]byte("ok"))
	}))
	t.Cleanup(cb.Close)
	s.callback = cb.URL + "/callback"

	mux := http.NewServeMux()
	svc.Register(mux)
	mux.HandleFunc("GET /authorize", func(w http.ResponseWriter, r *http.Request) {
		if _, ok := svc.RequireSignIn(w, r); !ok {
			return
		}
		consentPage.Execute(w, map[string]any{"Params": r.URL.Query(), "CSRF": svc.CSRFToken(r)})
	})
	mux.HandleFunc("POST /authorize", func(w http.ResponseWriter, r *http.Request) {
		p, ok := svc.Person(r)
		if !ok || !svc.CheckCSRF(r) {
			http.Error(w, "refused", http.StatusForbidden)
			return
		}
		q := url.Values{"state": {r.PostFormValue("state")}}
		if r.PostFormValue("decision") == "approve" {
			q.Set("code", "code-for-"+p.SubjectID)
		} else {
			q.Set("error", "access_denied")
		}
		http.Redirect(w, r, r.PostFormValue("redirect_uri")+"?"+q.Encode(), http.StatusFound)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	s.url = srv.URL
	return s, coach
}

func (s *server) authURL() string {
	return s.url + "/authorize?" + url.Values{"response_type": {"code"}, "client_id": {"https://client.example/meta.json"},
		"redirect_uri": {s.callback}, "state": {"st+&é"}, "code_challenge": {"abc"}, "code_challenge_method": {"S256"}}.Encode()
}

func TestDriverSignsInAndApproves(t *testing.T) {
	for _, format := range []string{"json", "text"} {
		t.Run(format, func(t *testing.T) {
			s, coach := newServer(t, format)
			var out, errOut bytes.Buffer
			if code := run(context.Background(), []string{"--log", s.logPath, "--phone", "050-123-4567", s.authURL()}, &out, &errOut); code != 0 {
				t.Fatalf("driver exited %d: %s %s", code, out.String(), errOut.String())
			}
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.landed.Get("code") != "code-for-"+coach.ID || s.landed.Get("state") != "st+&é" {
				t.Fatalf("the callback got %v, want the coach's code and the state", s.landed)
			}
			if !strings.Contains(out.String(), "landed on "+s.callback) {
				t.Fatalf("driver output: %s", out.String())
			}
		})
	}
}

func TestDriverDenies(t *testing.T) {
	s, _ := newServer(t, "json")
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"--log", s.logPath, "--decision", "deny", s.authURL()}, &out, &errOut); code != 0 {
		t.Fatalf("driver exited %d: %s", code, errOut.String())
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.landed.Get("error") != "access_denied" {
		t.Fatalf("the callback got %v", s.landed)
	}
}

func TestDriverSaysWhyItFailed(t *testing.T) {
	s, _ := newServer(t, "json")
	var out, errOut bytes.Buffer
	// A phone on no record gets no code: the driver says so and fails.
	code := run(context.Background(), []string{"--log", s.logPath, "--phone", "050-000-0000", "--wait", "200ms", s.authURL()}, &out, &errOut)
	if code != 1 || !strings.Contains(errOut.String(), "no sign-in code for …0000") {
		t.Fatalf("driver exited %d: %s", code, errOut.String())
	}
	if code := run(context.Background(), []string{s.authURL()}, &out, &errOut); code != 2 {
		t.Fatalf("without --log the driver exited %d, want 2", code)
	}
}

func ptr[T any](v T) *T { return &v }
