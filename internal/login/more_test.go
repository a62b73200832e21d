package login_test

import (
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/agent/fakes"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/store/storetest"
	"github.com/otherwise/perform/internal/testkit"
)

func openSQLite(t *testing.T) store.Store { return storetest.OpenSQLite(t) }

// A phone on a coach of one studio and a trainee of another: the choice
// shows only after the code, and only the records of that phone.
func TestChooseStudio(t *testing.T) {
	engines(t, func(t *testing.T, st store.Store) {
		e := newEnv(t, st, envOpts{})
		w := e.newWorld()
		other := domain.Studio{Name: "Other studio", Slug: "other-" + strings.ToLower(randomSuffix())}
		must(t, st.CreateStudio(ctx, &other))
		tr := domain.Trainee{FirstName: "דנה", LastName: "לוי", Phone: *w.coach.Phone}
		must(t, st.Studio(other.ID).CreateTrainee(ctx, &tr))

		b := e.browser()
		a, csrf := b.startSignIn(*w.coach.Phone, "/private")
		// Before the code, nothing tells the two apart.
		if a.status != http.StatusSeeOther || a.header.Get("Location") != "/login/code" {
			t.Fatalf("POST /login = %d %q", a.status, a.header.Get("Location"))
		}
		if a := b.get("/login/choose"); a.status != http.StatusSeeOther || a.header.Get("Location") != "/login" {
			t.Fatalf("the choice before the code = %d %q", a.status, a.header.Get("Location"))
		}
		if a := b.post("/login/choose", url.Values{"csrf": {csrf}, "person": {tr.ID}}); a.status != http.StatusBadRequest {
			t.Fatalf("choosing before the code = %d", a.status)
		}
		a = b.submitCode(csrf, e.codeFor(*w.coach.Phone, 1))
		if a.status != http.StatusSeeOther || a.header.Get("Location") != "/login/choose" {
			t.Fatalf("the right code = %d %q", a.status, a.header.Get("Location"))
		}
		page := b.get("/login/choose")
		for _, want := range []string{w.studio.Name, "Other studio", w.coach.ID, tr.ID, `<bdi dir="auto">דנה לוי</bdi>`} {
			if !strings.Contains(page.body, want) {
				t.Fatalf("the choice lacks %q: %s", want, page.body)
			}
		}
		if strings.Contains(page.body, w.trainee.ID) {
			t.Fatal("the choice lists a record of another phone")
		}
		// A record of another phone cannot be chosen.
		if a := b.post("/login/choose", url.Values{"csrf": {csrf}, "person": {w.trainee.ID}}); a.status != http.StatusUnprocessableEntity {
			t.Fatalf("choosing another phone's record = %d", a.status)
		}
		a = b.post("/login/choose", url.Values{"csrf": {csrf}, "person": {tr.ID}})
		if a.status != http.StatusSeeOther || a.header.Get("Location") != "/private" {
			t.Fatalf("choosing = %d %q: %s", a.status, a.header.Get("Location"), a.body)
		}
		if a := b.get("/private"); !strings.HasPrefix(a.body, "hello trainee "+tr.ID+" of "+other.ID) {
			t.Fatalf("/private after choosing = %q", a.body)
		}
	})
}

// With no gateway (the demo) the code goes to the log at info, with the
// phone's last digits only, and never onto the page.
func TestCodeInLogWithoutGateway(t *testing.T) {
	st := openSQLite(t)
	e := newEnv(t, st, envOpts{noGateway: true})
	w := e.newWorld()
	b := e.browser()
	_, csrf := b.startSignIn(*w.coach.Phone, "")
	page := b.get("/login/code")
	e.svc.Close()
	log := e.log.String()
	codes := testkit.SentCodes(log)
	if len(codes) != 1 || codes[0].Last4 != "1111" || !strings.Contains(log, "level=INFO") {
		t.Fatalf("the log has no code line: %s", log)
	}
	if strings.Contains(log, strings.TrimPrefix(*w.coach.Phone, "+")) || strings.Contains(log, national(*w.coach.Phone)) {
		t.Fatalf("the log spells the phone out: %s", log)
	}
	if strings.Contains(page.body, codes[0].Code) {
		t.Fatal("the code is on the page")
	}
	if a := b.submitCode(csrf, codes[0].Code); a.status != http.StatusSeeOther {
		t.Fatalf("the logged code = %d: %s", a.status, a.body)
	}
}

// After a full sign-in the database holds no code and no cookie value in
// plain text, in any table, as text or as hex.
func TestNothingSecretStored(t *testing.T) {
	engines(t, func(t *testing.T, st store.Store) {
		e := newEnv(t, st, envOpts{})
		w := e.newWorld()
		b := e.browser()
		_, _ = b.startSignIn(*w.coach.Phone, "")
		signin := b.cookie("perform_signin").Value
		// A second, pending sign-in keeps its code in the database too.
		b2 := e.browser()
		_, _ = b2.startSignIn(w.trainee.Phone, "")
		pending := e.codeFor(w.trainee.Phone, 1)
		code := e.codeFor(*w.coach.Phone, 1)
		page := b.get("/login/code")
		if a := b.submitCode(csrfIn(t, page), code); a.status != http.StatusSeeOther {
			t.Fatalf("sign-in = %d", a.status)
		}
		session := b.cookie("perform_session").Value
		secrets := []string{code, pending, signin, session, b2.cookie("perform_signin").Value}
		dump := dumpDatabase(t, st)
		for _, s := range secrets {
			if strings.Contains(dump, s) || strings.Contains(dump, hex.EncodeToString([]byte(s))) {
				t.Fatalf("the database holds the secret %q in plain text", s)
			}
		}
		if !strings.Contains(dump, w.coach.ID) {
			t.Fatal("the dump does not read the tables (no coach id in it)")
		}
	})
}

// dumpDatabase is every value of every table of the store's own schema.
func dumpDatabase(t *testing.T, st store.Store) string {
	t.Helper()
	q := `SELECT name FROM sqlite_master WHERE type = 'table'`
	if st.Engine() == store.EnginePostgres {
		q = `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`
	}
	rows, err := st.DB().QueryContext(ctx, q)
	must(t, err)
	var tables []string
	for rows.Next() {
		var n string
		must(t, rows.Scan(&n))
		tables = append(tables, n)
	}
	rows.Close()
	var out strings.Builder
	for _, table := range tables {
		if strings.HasPrefix(table, "trainee_search") || strings.HasPrefix(table, "sqlite_") {
			continue // full-text shadow tables hold only what trainees hold
		}
		r, err := st.DB().QueryContext(ctx, `SELECT * FROM `+table)
		if err != nil {
			t.Fatalf("read %s: %v", table, err)
		}
		cols, _ := r.Columns()
		for r.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			must(t, r.Scan(ptrs...))
			for _, v := range vals {
				switch v := v.(type) {
				case []byte:
					out.WriteString(string(v) + " " + hex.EncodeToString(v) + "\n")
				default:
					fmt.Fprintf(&out, "%v\n", v)
				}
			}
		}
		must(t, r.Err())
		r.Close()
	}
	return out.String()
}

// A gateway that refuses the message changes nothing on the page; the
// failure is logged, without the code.
func TestGatewayFailure(t *testing.T) {
	st := openSQLite(t)
	e := newEnv(t, st, envOpts{})
	w := e.newWorld()
	var mu sync.Mutex
	var texts []string
	e.sms.Fail = func(n int, s fakes.Sent) int {
		mu.Lock()
		defer mu.Unlock()
		texts = append(texts, s.Text)
		return http.StatusBadGateway
	}
	b := e.browser()
	a, _ := b.startSignIn(*w.coach.Phone, "")
	if a.status != http.StatusSeeOther || a.header.Get("Location") != "/login/code" {
		t.Fatalf("POST /login with a failing gateway = %d %q", a.status, a.header.Get("Location"))
	}
	e.svc.Close()
	log := e.log.String()
	mu.Lock()
	defer mu.Unlock()
	if len(texts) != 1 || !strings.Contains(log, "could not be sent") || !strings.Contains(log, "502") {
		t.Fatalf("the failure was not logged (tries %v): %s", texts, log)
	}
	code := testkit.CodeIn(texts[0])
	if code == "" || strings.Contains(log, code) {
		t.Fatalf("the log holds the code %q: %s", code, log)
	}
}

// A number typed nationally is read in each studio's region too: a US
// studio's trainee signs in with "(415) 555-…", and the code goes to the
// E.164 number on the record.
func TestNationalNumberInStudioRegion(t *testing.T) {
	st := openSQLite(t)
	e := newEnv(t, st, envOpts{})
	us := domain.Studio{Name: "Bay studio", Slug: "bay-" + strings.ToLower(randomSuffix()), Region: "US"}
	must(t, st.CreateStudio(ctx, &us))
	tr := domain.Trainee{FirstName: "Sam", LastName: "Lee", Phone: "+14155550123"}
	must(t, st.Studio(us.ID).CreateTrainee(ctx, &tr))
	b := e.browser()
	a, csrf := b.startSignIn("(415) 555-0123", "")
	if a.status != http.StatusSeeOther {
		t.Fatalf("POST /login = %d: %s", a.status, a.body)
	}
	if a := b.submitCode(csrf, e.codeFor(tr.Phone, 1)); a.status != http.StatusSeeOther {
		t.Fatalf("the code = %d: %s", a.status, a.body)
	}
	if a := b.get("/private"); !strings.HasPrefix(a.body, "hello trainee "+tr.ID) {
		t.Fatalf("/private = %q", a.body)
	}
}

// Submitting the same phone twice within a minute sends one code; after
// the minute a new one replaces it.
func TestOneCodePerMinute(t *testing.T) {
	st := openSQLite(t)
	e := newEnv(t, st, envOpts{})
	w := e.newWorld()
	b := e.browser()
	_, csrf := b.startSignIn(*w.coach.Phone, "")
	first := e.codeFor(*w.coach.Phone, 1)
	e.clock.Advance(59 * time.Second)
	if a := b.post("/login", url.Values{"csrf": {csrf}, "phone": {national(*w.coach.Phone)}}); a.status != http.StatusSeeOther {
		t.Fatalf("the phone again = %d", a.status)
	}
	if n := e.sentTo(*w.coach.Phone); n != 1 {
		t.Fatalf("%d codes within a minute, want 1", n)
	}
	e.clock.Advance(time.Second)
	b.post("/login", url.Values{"csrf": {csrf}, "phone": {*w.coach.Phone}})
	second := e.codeFor(*w.coach.Phone, 2)
	if second != first {
		if a := b.submitCode(csrf, first); a.status != http.StatusUnprocessableEntity {
			t.Fatalf("the replaced code = %d, want refused", a.status)
		}
	}
	if a := b.submitCode(csrf, second); a.status != http.StatusSeeOther {
		t.Fatalf("the new code = %d: %s", a.status, a.body)
	}
}
