package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/areas/payhook"
	"github.com/otherwise/perform/internal/config"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/secret"
	"github.com/otherwise/perform/internal/server"
	"github.com/otherwise/perform/internal/store"
)

func performWith(t *testing.T, env map[string]string, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, &out, &errOut, func(k string) string { return env[k] })
	return result{code, out.String(), errOut.String()}
}

// perform studio payments-webhook turns a studio's webhook on (its URL
// and secret alone on stdout, once), says how it stands, signs a test
// event the webhook takes, rotates it and turns it off; without
// PERFORM_SECRET_KEY it refuses to turn it on with a sentence.
func TestPaymentsWebhookCommand(t *testing.T) {
	db := sqliteURL(t)
	env := map[string]string{"PERFORM_DATABASE_URL": db, "LOG_LEVEL": "warn", "PERFORM_PUBLIC_URL": "https://perform.example",
		"PERFORM_SECRET_KEY": hex.EncodeToString(secret.NewKey())}
	if r := performWith(t, env, "studio", "create", "--name", "Hooked", "--slug", "hooked"); r.code != 0 {
		t.Fatalf("studio create: %+v", r)
	}
	noKey := map[string]string{"PERFORM_DATABASE_URL": db, "LOG_LEVEL": "warn"}
	if r := performWith(t, noKey, "studio", "payments-webhook", "--studio", "hooked", "--do", "enable"); r.code != 1 || !strings.Contains(r.stderr, "PERFORM_SECRET_KEY") || r.stdout != "" {
		t.Fatalf("enable without a secret key: %+v", r)
	}
	on := performWith(t, env, "studio", "payments-webhook", "--studio", "hooked", "--do", "enable")
	lines := strings.Split(strings.TrimSpace(on.stdout), "\n")
	if on.code != 0 || len(lines) != 2 || !regexp.MustCompile(`^https://perform\.example/v1/hooks/payments/pwh_[a-z2-7]{32}$`).MatchString(lines[0]) || !strings.HasPrefix(lines[1], "whsec_") {
		t.Fatalf("enable: %+v", on)
	}
	url, signing := lines[0], lines[1]
	if r := performWith(t, env, "studio", "payments-webhook", "--studio", "hooked", "--do", "enable"); r.code != 1 || !strings.Contains(r.stderr, "on already") {
		t.Fatalf("enable again: %+v", r)
	}
	status := performWith(t, env, "studio", "payments-webhook", "--studio", "hooked")
	if status.code != 0 || !strings.Contains(status.stdout, "is on (stripe)") || strings.Contains(status.stdout, url) || strings.Contains(status.stdout, signing) {
		t.Fatalf("status: %+v", status)
	}

	st, err := store.Open(context.Background(), db, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	studio, err := st.StudioBySlug(context.Background(), "hooked")
	if err != nil {
		t.Fatal(err)
	}
	tr := domain.Trainee{FirstName: "Noa", LastName: "Test", Phone: "+972501112233"}
	if err := st.Studio(studio.ID).CreateTrainee(context.Background(), &tr); err != nil {
		t.Fatal(err)
	}
	if r := performWith(t, env, "studio", "payments-webhook", "--studio", "hooked", "--do", "test-event", "--trainee", tr.ID, "--amount", "349.999"); r.code != 2 {
		t.Fatalf("a test event of too many decimals: %+v", r)
	}
	te := performWith(t, env, "studio", "payments-webhook", "--studio", "hooked", "--do", "test-event", "--trainee", tr.ID, "--amount", "349.90", "--url", url)
	m := regexp.MustCompile(`^curl -sS -X POST '(.+)' -H 'Content-Type: application/json' -H 'Stripe-Signature: (t=\d+,v1=[0-9a-f]{64})' --data-binary '(.+)'\n$`).FindStringSubmatch(te.stdout)
	if te.code != 0 || m == nil || m[1] != url {
		t.Fatalf("test-event: %+v", te)
	}
	if err := payhook.Verify(m[2], []byte(m[3]), signing, time.Now()); err != nil {
		t.Fatalf("the test event is not signed with the studio's secret: %v", err)
	}
	ev, err := payhook.ParseStripe([]byte(m[3]))
	if err != nil || ev.Kind != payhook.Paid || ev.Amount != 34990 || ev.Currency != "ILS" || ev.TraineeID != tr.ID {
		t.Fatalf("the test event reads %+v, %v", ev, err)
	}

	rot := performWith(t, env, "studio", "payments-webhook", "--studio", "hooked", "--do", "rotate", "--keep-url", "--signing-secret", "whsec_stripes_own_secret_0123")
	if rot.code != 0 || rot.stdout != "" {
		t.Fatalf("rotate keeping the URL with Stripe's secret prints nothing on stdout: %+v", rot)
	}
	if r := performWith(t, env, "studio", "payments-webhook", "--studio", "hooked", "--do", "rotate", "--signing-secret", "short"); r.code != 2 || !strings.Contains(r.stderr, "--signing-secret") {
		t.Fatalf("a short secret: %+v", r)
	}
	if r := performWith(t, env, "studio", "payments-webhook", "--studio", "hooked", "--do", "disable"); r.code != 0 {
		t.Fatalf("disable: %+v", r)
	}
	if r := performWith(t, env, "studio", "payments-webhook", "--studio", "hooked"); !strings.Contains(r.stdout, "is off") {
		t.Fatalf("status after disable: %+v", r)
	}
	audit, err := st.ListAudit(context.Background(), studio.ID, store.Page{Limit: 20})
	if err != nil || audit.Total != 3 {
		t.Fatalf("audit of enable, rotate and disable: %d, %v", audit.Total, err)
	}
}

// The composed server serves the webhook at /v1/hooks/payments/{token}
// beside the lane: a studio turns it on through the lane, and a signed
// test event posted to its URL records her payment; a GET is 405.
func TestServerServesThePaymentsWebhook(t *testing.T) {
	t.Parallel()
	cfg := config.Defaults()
	cfg.DatabaseURL = sqliteURL(t)
	cfg.SecretKey = secret.NewKey()
	cfg.PublicURL = "https://perform.example"
	key := operatorKey(t, cfg.DatabaseURL)
	s, err := server.New(context.Background(), cfg, slog.New(slog.DiscardHandler), plugins(cfg)...)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()

	call := func(method, path, body string, into any) int {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL+"/v1/automation"+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var env struct{ Data json.RawMessage }
		if err := json.NewDecoder(res.Body).Decode(&env); err != nil {
			t.Fatal(err)
		}
		if into != nil {
			_ = json.Unmarshal(env.Data, into)
		}
		return res.StatusCode
	}
	var on payhook.Turned
	if code := call("POST", "/payments-webhook", "", &on); code != 201 || !strings.HasPrefix(on.URL, "https://perform.example/v1/hooks/payments/pwh_") {
		t.Fatalf("turning on: %d %+v", code, on)
	}
	var tr struct{ ID string }
	if code := call("POST", "/trainees", `{"firstName":"Noa","lastName":"Paid","phone":"050-123-9999"}`, &tr); code != 201 {
		t.Fatalf("trainee: %d", code)
	}
	url := srv.URL + strings.TrimPrefix(on.URL, "https://perform.example")
	body := payhook.TestEvent(tr.ID, 35000, "ils", time.Now())
	req, _ := http.NewRequest("POST", url, bytes.NewReader(body))
	req.Header.Set(payhook.SignatureHeader, payhook.Sign(on.SigningSecret, time.Now(), body))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var got struct{ Data payhook.Outcome }
	_ = json.NewDecoder(res.Body).Decode(&got)
	res.Body.Close()
	if res.StatusCode != 200 || got.Data.Outcome != "recorded" || got.Data.PaymentID == "" {
		t.Fatalf("the signed test event: %d %+v", res.StatusCode, got)
	}
	res, err = http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 405 || res.Header.Get("Allow") != "POST" {
		t.Errorf("GET of the webhook: %d, Allow %q", res.StatusCode, res.Header.Get("Allow"))
	}
}
