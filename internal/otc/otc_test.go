package otc_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/otherwise/perform/internal/otc"
	"github.com/otherwise/perform/internal/otc/otctest"
	"github.com/otherwise/perform/internal/ratelimit"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/store/storetest"
	"github.com/otherwise/perform/internal/testkit"
)

func newLogger(w *testkit.Buffer) *slog.Logger { return slog.New(slog.NewTextHandler(w, nil)) }

var ctx = context.Background()

var t0 = time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)

// TestCodes runs the component's tests on SQLite and on PostgreSQL, one
// store each (each test uses subjects and phones of its own).
func TestCodes(t *testing.T) {
	for name, open := range storetest.Engines(t) {
		t.Run(name, func(t *testing.T) {
			st := open(t)
			for _, tc := range []struct {
				name string
				fn   func(t *testing.T, st store.Store)
			}{
				{"ParallelGuesses", testParallelGuesses},
				{"ParallelRightCodes", testParallelRightCodes},
				{"CodeLife", testCodeLife},
				{"DecoysRevokeAndDoors", testDecoysRevokeAndDoors},
				{"WithStoreRollsBack", testWithStoreRollsBack},
			} {
				t.Run(tc.name, func(t *testing.T) { tc.fn(t, st) })
			}
		})
	}
}

type door struct {
	codes *otc.Codes
	sent  *otctest.Sender
	clock *storetest.FixedClock
}

func newDoor(t *testing.T, st store.Store, o otc.Options) door {
	d := door{sent: otctest.NewSender(), clock: storetest.NewFixedClock(t0)}
	if o.Purpose == "" {
		o.Purpose = "test"
	}
	o.Store, o.Sender, o.Now = st.Codes(), d.sent, d.clock.Now
	d.codes = otc.New(o)
	t.Cleanup(d.codes.Wait)
	return d
}

func unique(prefix string) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// refusal is err's Refusal, failing the test on any other error.
func refusal(t *testing.T, err error) *otc.Refusal {
	t.Helper()
	var r *otc.Refusal
	if !errors.As(err, &r) {
		t.Fatalf("want a refusal, got %v", err)
	}
	return r
}

func wrong(code string) string {
	if code == "000000" {
		return "000001"
	}
	return "000000"
}

// Sixty wrong codes at once at one code: five are compared, the rest are
// refused as locked, nothing else goes wrong, and the right code after
// them is refused. Several rounds, as the race showed itself in some
// rounds and not others.
func testParallelGuesses(t *testing.T, st store.Store) {
	d := newDoor(t, st, otc.Options{})
	const guesses, rounds = 60, 5
	for round := range rounds {
		subject, to := unique("conv-"), unique("+97250")
		if _, err := d.codes.Issue(ctx, otc.Request{Subject: subject, Person: to, To: to, Data: "trn_" + subject}); err != nil {
			t.Fatal(err)
		}
		code := d.sent.Code(t, to, 1)
		var (
			mu       sync.Mutex
			compared int
			locked   int
			others   []error
		)
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
				_, err := d.codes.Verify(ctx, subject, guess)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case errors.Is(err, otc.ErrWrong):
					compared++
				case errors.Is(err, otc.ErrLocked):
					locked++
				default:
					others = append(others, err)
				}
			}()
		}
		close(start)
		wg.Wait()
		if len(others) > 0 || compared != otc.MaxTries || locked != guesses-otc.MaxTries {
			t.Fatalf("round %d: %d wrong codes compared, %d refused as locked, other answers %v; want %d compared, %d locked, no other answer",
				round, compared, locked, others, otc.MaxTries, guesses-otc.MaxTries)
		}
		_, err := d.codes.Verify(ctx, subject, code)
		if !errors.Is(err, otc.ErrLocked) {
			t.Fatalf("round %d: the right code after %d wrong ones = %v, want locked", round, guesses, err)
		}
	}
}

// The right code sent at once from many places is used once.
func testParallelRightCodes(t *testing.T, st store.Store) {
	d := newDoor(t, st, otc.Options{MaxTries: 100})
	subject, to := unique("conv-"), unique("+97250")
	if _, err := d.codes.Issue(ctx, otc.Request{Subject: subject, Person: to, To: to, Data: "trn_1"}); err != nil {
		t.Fatal(err)
	}
	code := d.sent.Code(t, to, 1)
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok, gone := 0, 0
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := d.codes.Verify(ctx, subject, code)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil && res.Data == "trn_1":
				ok++
			case errors.Is(err, otc.ErrNoCode):
				gone++
			default:
				t.Errorf("a right code = %+v, %v", res, err)
			}
		}()
	}
	wg.Wait()
	if ok != 1 || gone != 19 {
		t.Fatalf("20 right codes at once: %d worked, %d found no code; want 1 and 19", ok, gone)
	}
}

// One code's life: what the Sender gets, the tries, the data a right code
// gives back, once; expiry; a new code replacing the old one.
func testCodeLife(t *testing.T, st store.Store) {
	d := newDoor(t, st, otc.Options{Purpose: "login"})
	subject, to := unique("browser-"), unique("+97250")
	issued, err := d.codes.Issue(ctx, otc.Request{Subject: subject, Person: to, To: to, Data: "+972501234567", Note: "Studio A"})
	if err != nil || !issued.ExpiresAt.Equal(t0.Add(otc.TTL)) {
		t.Fatalf("Issue = %+v, %v", issued, err)
	}
	m := d.sent.Message(t, to, 1)
	if len(m.Code) != otc.Digits || strings.Trim(m.Code, "0123456789") != "" || m.Purpose != "login" || m.Subject != subject ||
		m.TTL != otc.TTL || m.Data != "+972501234567" || m.Note != "Studio A" {
		t.Fatalf("the message sent = %+v", m)
	}
	for i := 1; i < otc.MaxTries; i++ {
		_, err := d.codes.Verify(ctx, subject, wrong(m.Code))
		if r := refusal(t, err); !errors.Is(r.Err, otc.ErrWrong) || r.TriesLeft != otc.MaxTries-i || !strings.Contains(err.Error(), "tries left") {
			t.Fatalf("wrong code #%d = %+v (%v), want %d tries left", i, r, err, otc.MaxTries-i)
		}
	}
	// The fifth try, typed with a space, is right; the code is then used.
	spaced := m.Code[:3] + " " + m.Code[3:]
	res, err := d.codes.Verify(ctx, subject, spaced)
	if err != nil || res.Data != "+972501234567" || res.Tries != otc.MaxTries {
		t.Fatalf("the right code on the last try = %+v, %v", res, err)
	}
	if _, err := d.codes.Verify(ctx, subject, m.Code); !errors.Is(err, otc.ErrNoCode) {
		t.Fatalf("the right code again = %v, want no code", err)
	}

	// The fifth wrong code says it locked the code.
	d.codes.Issue(ctx, otc.Request{Subject: subject, Person: to, To: to})
	code := d.sent.Code(t, to, 2)
	for i := 1; i <= otc.MaxTries; i++ {
		_, err = d.codes.Verify(ctx, subject, wrong(code))
	}
	if r := refusal(t, err); !errors.Is(r.Err, otc.ErrWrong) || r.TriesLeft != 0 || !strings.Contains(err.Error(), "locked") {
		t.Fatalf("the fifth wrong code = %+v (%v)", r, err)
	}

	// A new code replaces the old one, tries and all.
	d.codes.Issue(ctx, otc.Request{Subject: subject, Person: to, To: to})
	fresh := d.sent.Code(t, to, 3)
	if fresh != code {
		if _, err := d.codes.Verify(ctx, subject, code); !errors.Is(err, otc.ErrWrong) {
			t.Fatalf("the replaced code = %v, want wrong", err)
		}
	}
	// It works until its TTL, not at it.
	d.clock.Advance(otc.TTL - time.Millisecond)
	if _, err := d.codes.Verify(ctx, subject, fresh); err != nil {
		t.Fatalf("the code a millisecond before it expires = %v", err)
	}
	d.codes.Issue(ctx, otc.Request{Subject: subject, Person: to, To: to})
	late := d.sent.Code(t, to, 4)
	d.clock.Advance(otc.TTL)
	if _, err := d.codes.Verify(ctx, subject, late); !errors.Is(err, otc.ErrExpired) {
		t.Fatalf("the code at its TTL = %v, want expired", err)
	}
	if err := d.codes.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := d.codes.Verify(ctx, subject, late); !errors.Is(err, otc.ErrNoCode) {
		t.Fatalf("a swept code = %v, want no code", err)
	}
	if _, err := d.codes.Verify(ctx, unique("never-"), "123456"); !errors.Is(err, otc.ErrNoCode) {
		t.Fatalf("a subject never sent a code = %v, want no code", err)
	}
}

// A code for nobody (To "") is stored and compared like any other, so a
// door answers the same for a phone on no record; it is sent nowhere.
// Revoke leaves no code; NoSend stores without sending; two doors' codes
// of one subject are two codes.
func testDecoysRevokeAndDoors(t *testing.T, st store.Store) {
	d := newDoor(t, st, otc.Options{Purpose: "login"})
	subject, to := unique("browser-"), unique("+97250")
	if _, err := d.codes.Issue(ctx, otc.Request{Subject: subject, Person: to}); err != nil {
		t.Fatal(err)
	}
	if _, err := d.codes.Verify(ctx, subject, "123456"); !errors.Is(err, otc.ErrWrong) && err != nil {
		t.Fatalf("a decoy's try = %v, want wrong", err)
	}
	if err := d.codes.Revoke(ctx, subject); err != nil {
		t.Fatal(err)
	}
	if _, err := d.codes.Verify(ctx, subject, "123456"); !errors.Is(err, otc.ErrNoCode) {
		t.Fatalf("a revoked code = %v, want no code", err)
	}
	if _, err := d.codes.Issue(ctx, otc.Request{Subject: subject, To: to}); err == nil {
		t.Fatal("a code to a phone without a person to count was issued")
	}
	if _, err := d.codes.Issue(ctx, otc.Request{Subject: subject, Person: to, To: to, NoSend: true}); err != nil {
		t.Fatal(err)
	}

	// Another door, the same subject and phone: its own code.
	other := otc.New(otc.Options{Purpose: "platform", Store: st.Codes(), Sender: d.sent, Now: d.clock.Now})
	if _, err := other.Issue(ctx, otc.Request{Subject: subject, Person: to, To: to, Data: "trn_9"}); err != nil {
		t.Fatal(err)
	}
	other.Wait()
	d.codes.Wait()
	if n := len(d.sent.Sent("")); n != 1 {
		t.Fatalf("%d messages were sent, want 1 (the decoy and the NoSend code go nowhere)", n)
	}
	code := d.sent.Code(t, to, 1)
	if res, err := other.Verify(ctx, subject, code); err != nil || res.Data != "trn_9" {
		t.Fatalf("the other door's code = %+v, %v", res, err)
	}
	// The login door's code of the subject is still there.
	if _, err := d.codes.Verify(ctx, subject, "12345x"); !errors.Is(err, otc.ErrWrong) {
		t.Fatalf("the first door's code after the other door's was used = %v, want wrong", err)
	}
}

// A code written in a transaction that rolls back (a dry run) is not kept.
func testWithStoreRollsBack(t *testing.T, st store.Store) {
	d := newDoor(t, st, otc.Options{})
	subject, to := unique("conv-"), unique("+97250")
	rollback := errors.New("dry run")
	err := st.InTx(ctx, func(tx store.Store) error {
		if _, err := d.codes.WithStore(tx.Codes()).Issue(ctx, otc.Request{Subject: subject, Person: to, To: to, NoSend: true}); err != nil {
			return err
		}
		return rollback
	})
	if !errors.Is(err, rollback) {
		t.Fatal(err)
	}
	if _, err := d.codes.Verify(ctx, subject, "123456"); !errors.Is(err, otc.ErrNoCode) {
		t.Fatalf("a rolled-back code = %v, want no code", err)
	}
}

// Sends are counted per person by the caller's limiter: over it, Issue
// refuses with when to ask again, and the earlier code still works. A
// limiter that fails refuses too (the error is not a refusal).
func TestSendsLimited(t *testing.T) {
	st := storetest.OpenSQLite(t)
	clock := storetest.NewFixedClock(t0)
	d := newDoor(t, st, otc.Options{Sends: ratelimit.NewMemory(2, time.Hour).WithClock(clock.Now)})
	subject, to := unique("browser-"), unique("+97250")
	for range 2 {
		if _, err := d.codes.Issue(ctx, otc.Request{Subject: subject, Person: to, To: to}); err != nil {
			t.Fatal(err)
		}
		d.codes.Wait() // the sends run in the background: one at a time, in order
	}
	_, err := d.codes.Issue(ctx, otc.Request{Subject: subject, Person: to, To: to})
	if r := refusal(t, err); !errors.Is(r.Err, otc.ErrThrottled) || r.RetryAfter != time.Hour {
		t.Fatalf("the third code = %+v", r)
	}
	// A decoy for the same person counts too.
	if _, err := d.codes.Issue(ctx, otc.Request{Subject: unique("b-"), Person: to}); !errors.Is(err, otc.ErrThrottled) {
		t.Fatalf("a decoy over the limit = %v", err)
	}
	if _, err := d.codes.Verify(ctx, subject, d.sent.Code(t, to, 2)); err != nil {
		t.Fatalf("the code before the refusal = %v", err)
	}
	if _, err := d.codes.Issue(ctx, otc.Request{Subject: subject, Person: unique("+97250")}); err != nil {
		t.Fatalf("another person = %v", err)
	}
	clock.Advance(time.Hour)
	if _, err := d.codes.Issue(ctx, otc.Request{Subject: subject, Person: to, To: to}); err != nil {
		t.Fatalf("the next hour = %v", err)
	}

	broken := newDoor(t, st, otc.Options{Sends: failing{}})
	_, err = broken.codes.Issue(ctx, otc.Request{Subject: subject, Person: to, To: to})
	var r *otc.Refusal
	if err == nil || errors.As(err, &r) || !strings.Contains(err.Error(), "counting the codes sent") {
		t.Fatalf("a failing limiter = %v", err)
	}
}

type failing struct{}

func (failing) Allow(context.Context, string) (ratelimit.Decision, error) {
	return ratelimit.Decision{}, errors.New("redis is down")
}

// Two instances sharing a Redis limiter send one person no more than the
// limit between them.
func TestSendsLimitedAcrossInstances(t *testing.T) {
	url := os.Getenv("PERFORM_TEST_REDIS_URL")
	if url == "" {
		t.Skip("PERFORM_TEST_REDIS_URL is not set")
	}
	opts, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	client := redis.NewClient(opts)
	t.Cleanup(func() { client.Close() })
	prefix := unique("perform-test:otc:") + ":"
	st := storetest.OpenSQLite(t)
	a := newDoor(t, st, otc.Options{Sends: ratelimit.NewRedis(client, otc.SendsPerHour, time.Hour).WithPrefix(prefix)})
	b := newDoor(t, st, otc.Options{Sends: ratelimit.NewRedis(client, otc.SendsPerHour, time.Hour).WithPrefix(prefix)})
	to := unique("+97250")
	issued := 0
	for i := range 2 * otc.SendsPerHour {
		d := a
		if i%2 == 1 {
			d = b
		}
		_, err := d.codes.Issue(ctx, otc.Request{Subject: unique("s-"), Person: to, To: to})
		switch {
		case err == nil:
			issued++
		case !errors.Is(err, otc.ErrThrottled):
			t.Fatal(err)
		}
	}
	if issued != otc.SendsPerHour {
		t.Fatalf("two instances issued %d codes to one person, want %d", issued, otc.SendsPerHour)
	}
}

// A Sender's failure is logged without the code; Issue has answered
// already.
func TestSendFailureLogged(t *testing.T) {
	st := storetest.OpenSQLite(t)
	var log testkit.Buffer
	sent := otctest.NewSender()
	sent.Fail = errors.New("gateway answered 502")
	codes := otc.New(otc.Options{Purpose: "login", Store: st.Codes(), Sender: sent, Logger: newLogger(&log)})
	to := unique("+97250")
	if _, err := codes.Issue(ctx, otc.Request{Subject: "s", Person: to, To: to}); err != nil {
		t.Fatal(err)
	}
	codes.Wait()
	code := sent.Code(t, to, 1)
	if s := log.String(); !strings.Contains(s, "could not be sent") || !strings.Contains(s, "502") || strings.Contains(s, code) || strings.Contains(s, to) {
		t.Fatalf("the log = %s", s)
	}
}

func TestNormalize(t *testing.T) {
	for typed, want := range map[string]string{
		"123456": "123456", " 123 456 ": "123456", "123-456": "123456", "١٢٣٤٥٦": "123456",
		"۱۲۳۴۵۶": "123456", "12345a": "12345a", "": "", "123\u00a0456": "123456",
	} {
		if got := otc.Normalize(typed); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", typed, got, want)
		}
	}
}

// Normalize never turns anything that is not six digits, spaces and
// dashes into six ASCII digits, and keeps a code typed with spaces and
// dashes.
func FuzzNormalize(f *testing.F) {
	for _, s := range []string{"123456", "123 456", "12-34-56", "١٢٣٤٥٦", "abcdef", "1234567", "", "\u00a0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, typed string) {
		got := otc.Normalize(typed)
		if isCode(got) {
			digits := 0
			for _, r := range typed {
				if r >= '0' && r <= '9' || r >= '٠' && r <= '٩' || r >= '۰' && r <= '۹' {
					digits++
				} else if !strings.ContainsRune(" -\t\n\r\u00a0\u2010\u2011\u2013", r) {
					t.Fatalf("Normalize(%q) = %q: a code out of a character that is none", typed, got)
				}
			}
			if digits != otc.Digits {
				t.Fatalf("Normalize(%q) = %q from %d digits", typed, got, digits)
			}
		}
		if isCode(typed) && got != typed {
			t.Fatalf("Normalize(%q) = %q, want it kept", typed, got)
		}
		if otc.Normalize(got) != got {
			t.Fatalf("Normalize is not idempotent on %q", typed)
		}
	})
}

func isCode(s string) bool {
	return len(s) == otc.Digits && strings.Trim(s, "0123456789") == ""
}
