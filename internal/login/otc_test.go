package login_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/otherwise/perform/internal/login"
	"github.com/otherwise/perform/internal/store"
)

// Sixty wrong codes at once from one browser: four are answered "not
// right" with tries left, every other one says the code no longer works,
// none fails, and the right code after them does not sign in. The codes
// are read from a recording sender, not from a gateway or the log.
func TestParallelWrongCodes(t *testing.T) {
	engines(t, func(t *testing.T, st store.Store) {
		e := newEnv(t, st, envOpts{recorder: true, limits: login.Limits{AddrTries: 1000}})
		w := e.newWorld()
		b := e.browser()
		if a, _ := b.startSignIn(*w.coach.Phone, ""); a.status != http.StatusSeeOther {
			t.Fatalf("POST /login = %d: %s", a.status, a.body)
		}
		code := e.sent.Code(t, *w.coach.Phone, 1)
		csrf := csrfIn(t, b.get("/login/code"))
		const guesses = 60
		var mu sync.Mutex
		answers := map[string]int{}
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range guesses {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				guess := fmt.Sprintf("%06d", i)
				if guess == code {
					guess = wrong(code)
				}
				a := b.post("/login/code", map[string][]string{"csrf": {csrf}, "code": {guess}})
				kind := fmt.Sprint(a.status)
				switch {
				case a.status == http.StatusUnprocessableEntity && strings.Contains(a.body, "tries left"):
					kind = "wrong"
				case a.status == http.StatusBadRequest && strings.Contains(a.body, "no longer works"):
					kind = "gone"
				}
				mu.Lock()
				answers[kind]++
				mu.Unlock()
			}()
		}
		close(start)
		wg.Wait()
		if answers["wrong"] != login.DefaultLimits.MaxTries-1 || answers["gone"] != guesses-answers["wrong"] {
			t.Fatalf("answers to %d wrong codes at once: %v; want %d wrong with tries left and the rest gone", guesses, answers, login.DefaultLimits.MaxTries-1)
		}
		if a := b.submitCode(csrf, code); a.status != http.StatusBadRequest {
			t.Fatalf("the right code after %d wrong ones = %d: %s", guesses, a.status, a.body)
		}
		if _, ok := e.svc.Person(requestWith(b)); ok {
			t.Fatal("signed in after sixty wrong codes")
		}
		if n := len(e.sent.Sent("")); n != 1 {
			t.Fatalf("%d codes were sent, want 1", n)
		}
	})
}

// A code is bound to the phone it was sent for: after the browser types
// another phone, the first phone's code does not sign it in, as either.
func TestCodeBoundToPhone(t *testing.T) {
	st := openSQLite(t)
	e := newEnv(t, st, envOpts{recorder: true})
	w := e.newWorld()
	b := e.browser()
	_, csrf := b.startSignIn(*w.coach.Phone, "")
	first := e.sent.Code(t, *w.coach.Phone, 1)
	if a := b.post("/login", map[string][]string{"csrf": {csrf}, "phone": {w.trainee.Phone}}); a.status != http.StatusSeeOther {
		t.Fatalf("the second phone = %d: %s", a.status, a.body)
	}
	second := e.sent.Code(t, w.trainee.Phone, 1)
	if first != second {
		if a := b.submitCode(csrf, first); a.status != http.StatusUnprocessableEntity {
			t.Fatalf("the first phone's code = %d, want refused: %s", a.status, a.body)
		}
	}
	if a := b.submitCode(csrf, second); a.status != http.StatusSeeOther {
		t.Fatalf("the second phone's code = %d: %s", a.status, a.body)
	}
	if a := b.get("/private"); !strings.HasPrefix(a.body, "hello trainee "+w.trainee.ID) {
		t.Fatalf("/private = %q, want the trainee", a.body)
	}
}
