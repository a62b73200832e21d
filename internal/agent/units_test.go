package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/otherwise/perform/internal/agent/fakes"
	"github.com/otherwise/perform/internal/store"
)

func TestChunks(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want []string
	}{
		{"empty", "  \n\n ", nil},
		{"one paragraph", "hello\nworld", []string{"hello\nworld"}},
		{"paragraphs pack together", "a\n\nb\n \n\nc", []string{"a\n\nb\n\nc"}},
		{"crlf", "a\r\n\r\nb", []string{"a\n\nb"}},
	}
	for _, c := range cases {
		if got := Chunks(c.in); !slices.Equal(got, c.want) {
			t.Errorf("%s: Chunks(%q) = %q; want %q", c.name, c.in, got, c.want)
		}
	}
	// Paragraphs that do not fit together go apart, at the blank line.
	a, b := strings.Repeat("א", 2000), strings.Repeat("ב", 2000)
	if got := Chunks(a + "\n\n" + b); !slices.Equal(got, []string{a, b}) {
		t.Errorf("two 2000-character paragraphs: %d chunks", len(got))
	}
	// A long paragraph splits at a line break before a space.
	line := strings.Repeat("word ", 500) // 2500 characters
	got := Chunks(line + "\n" + line)
	if len(got) != 2 || got[0] != strings.TrimSpace(line) || got[1] != strings.TrimSpace(line) {
		t.Errorf("long paragraph of two lines: %d chunks", len(got))
	}
	// Without line breaks, at a space; without spaces, anywhere.
	words := strings.Repeat("שלום ", 1000) // 5000 characters
	got = Chunks(words)
	if len(got) != 2 || strings.HasSuffix(got[0], "של") || utf8.RuneCountInString(got[0]) > chunkMaxRunes {
		t.Errorf("words: %d chunks, first ends %q", len(got), got[0][len(got[0])-8:])
	}
	solid := strings.Repeat("x", 8000)
	got = Chunks(solid)
	if len(got) != 3 || strings.Join(got, "") != solid {
		t.Errorf("solid: %d chunks", len(got))
	}
}

func FuzzChunks(f *testing.F) {
	f.Add("hello\n\nworld")
	f.Add(strings.Repeat("מילה ", 900))
	f.Add(strings.Repeat("x", 3501))
	f.Add("a\r\n\r\n\r\nb \n \n c")
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		chunks := Chunks(s)
		for _, c := range chunks {
			if n := utf8.RuneCountInString(c); n == 0 || n > chunkMaxRunes {
				t.Fatalf("chunk of %d characters", n)
			}
		}
		// Nothing but white space is lost or added.
		strip := func(s string) string { return strings.Join(strings.Fields(s), "") }
		if strip(strings.Join(chunks, "")) != strip(s) {
			t.Fatalf("chunks of %q lose text", s)
		}
	})
}

func TestPhoneKey(t *testing.T) {
	for in, want := range map[string]string{
		"972501234567":     "+972501234567",
		"+972 50-123-4567": "+972501234567",
		"050-123-4567":     "+972501234567",
		"14155550123":      "+14155550123",
		"00972501234567":   "+972501234567",
		"+1 415 555 0123":  "+14155550123",
		"123":              "+123",
	} {
		if got := phoneKey(in); got != want {
			t.Errorf("phoneKey(%q) = %q; want %q", in, got, want)
		}
	}
}

func TestMenuWordsAndGreetings(t *testing.T) {
	for _, s := range []string{"help", "Menu!", " תפריט ", "עזרה?", "/start"} {
		if !isMenuRequest(s) {
			t.Errorf("%q is a menu request", s)
		}
	}
	for _, s := range []string{"Hi!", "שלום", "בוקר טוב 👋", "hey"} {
		if !isGreeting(s) || isMenuRequest(s) {
			t.Errorf("%q is a greeting", s)
		}
	}
	for _, s := range []string{"help me find Dana", "שלום, מה המנוי של דנה?"} {
		if isMenuRequest(s) || isGreeting(s) {
			t.Errorf("%q is a real question", s)
		}
	}
}

func TestHebrewDate(t *testing.T) {
	// 22:30 UTC on Monday is already Tuesday in Israel.
	got := hebrewDate(time.Date(2026, 11, 30, 22, 30, 0, 0, time.UTC))
	if got != "יום שלישי, 1 בדצמבר 2026 (2026-12-01)" {
		t.Fatalf("hebrewDate = %q", got)
	}
}

// Leases expire on the agent's clock, so these tests move that clock
// instead of sleeping; each negative assertion follows an event it can see
// (a renewal recorded in the database, a lease released and retaken).
func TestLeases(t *testing.T) {
	// Renewal ticks every third of the TTL on the real clock.
	const leaseTTL = 300 * time.Millisecond
	forEngine(t, func(t *testing.T, st store.Store) {
		ctx := context.Background()
		clk := newClock()
		a, err := New(Options{Store: st, Lane: newLaneClientForTest(t, st), SecretKey: make([]byte, 32), LeaseTTL: leaseTTL, Now: clk.Now, Logger: quietLogger()})
		if err != nil {
			t.Fatal(err)
		}
		ag := st.Agent()
		entered := make(chan struct{})
		release := make(chan struct{})
		done := make(chan error, 1)
		go func() {
			done <- a.withLease(ctx, "phone:x", "one", func(ctx context.Context) error {
				close(entered)
				<-release
				return ctx.Err()
			})
		}()
		<-entered
		// The clock passes the lease's life; the holder's next renewal
		// extends it from the new time, and another owner stays out.
		clk.Advance(10 * leaseTTL)
		waitFor(t, "a renewal after the clock moved", func() bool {
			_, exp, err := ag.LeaseExpiry(ctx, "phone:x")
			return err == nil && exp.After(clk.Now())
		})
		if err := a.withLease(ctx, "phone:x", "two", func(context.Context) error { return nil }); !errors.Is(err, errBusy) {
			t.Fatalf("second owner: %v; want errBusy while the first renews", err)
		}
		close(release)
		if err := <-done; err != nil {
			t.Fatalf("first owner: %v", err)
		}
		// Released: the next owner gets it at once.
		if err := a.withLease(ctx, "phone:x", "two", func(context.Context) error { return nil }); err != nil {
			t.Fatal(err)
		}
		if _, _, err := ag.LeaseExpiry(ctx, "phone:x"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("a released lease is still there: %v", err)
		}
		// An abandoned lease (a killed process) is taken over once it expires.
		if ok, err := ag.AcquireLease(ctx, "phone:y", "dead", clk.Now(), leaseTTL); !ok || err != nil {
			t.Fatal(ok, err)
		}
		if ok, _ := ag.AcquireLease(ctx, "phone:y", "alive", clk.Now(), leaseTTL); ok {
			t.Fatal("took an unexpired lease")
		}
		clk.Advance(leaseTTL + time.Millisecond)
		if ok, err := ag.AcquireLease(ctx, "phone:y", "alive", clk.Now(), leaseTTL); !ok || err != nil {
			t.Fatalf("could not take an expired lease: %v", err)
		}
		// steal hands a held lease to another owner, as a takeover after
		// expiry would.
		steal := func(name, from string) error {
			if err := ag.ReleaseLease(ctx, name, from); err != nil {
				return err
			}
			if ok, err := ag.AcquireLease(ctx, name, "thief", clk.Now(), leaseTTL); !ok || err != nil {
				return fmt.Errorf("thief could not take %s: %v", name, err)
			}
			return nil
		}
		// A holder that lost its lease is told so by its next renewal.
		err = a.withLease(ctx, "phone:z", "me", func(ctx context.Context) error {
			if err := steal("phone:z", "me"); err != nil {
				return err
			}
			<-ctx.Done()
			return ctx.Err()
		})
		if !errors.Is(err, errLeaseLost) {
			t.Fatalf("lost lease: %v", err)
		}
		if owner, _, err := ag.LeaseExpiry(ctx, "phone:z"); err != nil || owner != "thief" {
			t.Fatalf("the loser released the thief's lease: %q, %v", owner, err)
		}
		// The fence knows at once, before renewal's next tick: a nested
		// lease does not hide the outer one, and a lease this work never
		// took is an error, not a pass.
		err = a.withLease(ctx, "phone:f", "me", func(ctx context.Context) error {
			return a.withLease(ctx, "studio:s", "me", func(ctx context.Context) error {
				if err := a.fenceLease(ctx, ag, "phone:f"); err != nil {
					return fmt.Errorf("fence of a held lease: %w", err)
				}
				if err := a.fenceLease(ctx, ag, "phone:other"); err == nil || errors.Is(err, errLeaseLost) {
					return fmt.Errorf("fence of a lease never taken: %v", err)
				}
				if err := steal("phone:f", "me"); err != nil {
					return err
				}
				if err := a.fenceLease(ctx, ag, "phone:f"); !errors.Is(err, errLeaseLost) {
					return fmt.Errorf("fence of a taken-over lease: %v; want errLeaseLost", err)
				}
				return nil
			})
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}

func TestSmartSendGateway(t *testing.T) {
	sms := fakes.NewSmartSend()
	defer sms.Close()
	g := NewSmartSend(sms.URL+"/", "the-key", nil)
	if err := g.Send(context.Background(), "conv/with space", "שלום"); err != nil {
		t.Fatal(err)
	}
	sent := sms.Sent()
	if len(sent) != 1 || sent[0].ConversationID != "conv/with space" || sent[0].Text != "שלום" || sent[0].Authorization != "Bearer the-key" {
		t.Fatalf("sent %+v", sent)
	}
	sms.Fail = func(int, fakes.Sent) int { return http.StatusTooManyRequests }
	if err := g.Send(context.Background(), "c", "x"); err == nil || !strings.Contains(err.Error(), "429") {
		t.Fatalf("err = %v; want the status named", err)
	}
	if err := NewSmartSend("", "k", nil).Send(context.Background(), "c", "x"); err == nil || !strings.Contains(err.Error(), "SMARTSEND_API_URL") {
		t.Fatalf("no URL: %v", err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]string
		_ = json.NewDecoder(r.Body).Decode(&body)
		if r.Header.Get("Content-Type") != "application/json" || len(body) != 2 {
			w.WriteHeader(400)
		}
	}))
	defer srv.Close()
	if err := NewSmartSend(srv.URL, "k", nil).Send(context.Background(), "c", "x"); err != nil {
		t.Fatalf("wire shape: %v", err)
	}
}

func TestRecoveryResumesAnOrphanedTurn(t *testing.T) {
	forEngine(t, func(t *testing.T, st store.Store) {
		h := newHarness(t, st)
		studio, _ := studioWithCoach(t, st, "Studio", "Rina", "0501717171", time.Now())
		seedHistory(t, h, "+972501717171")
		ctx := context.Background()
		ag := st.Agent()
		const phone = "+972501717171"
		// orphan writes a turn a dead process claimed at `at` and decided,
		// with the first `sent` of its chunks sent.
		orphan := func(id string, at time.Time, chunks []string, sent int) {
			t.Helper()
			refs, err := ag.InsertMessages(ctx, []store.AgentMessage{{Phone: phone, ConversationID: "c", Text: "q", ReceivedAt: at}})
			if err != nil {
				t.Fatal(err)
			}
			if _, ok, err := ag.ClaimPending(ctx, phone, refs[0].Seq, id, at, pendingMaxAge, store.ClaimBounds{}); !ok || err != nil {
				t.Fatalf("claim %s: %v %v", id, ok, err)
			}
			if err := ag.StartSending(ctx, id, "replied", studio.ID); err != nil {
				t.Fatal(err)
			}
			if err := ag.AddChunks(ctx, id, "c", chunks); err != nil {
				t.Fatal(err)
			}
			for i := range sent {
				if err := ag.MarkChunkSent(ctx, id, i, at); err != nil {
					t.Fatal(err)
				}
			}
		}
		now := h.clock.Now()
		// One so old it must never be sent, and a recent one half sent.
		orphan("amg_old", now.Add(-2*time.Hour), []string{"stale"}, 0)
		orphan("amg_orphan", now, []string{"first", "second"}, 1)
		if err := h.agent.recoverTurns(ctx, "test"); err != nil {
			t.Fatal(err)
		}
		// The harness's periodic recovery job may hold the phone's lease
		// when this pass looks, and then it is the one that finishes the
		// turn: wait for whichever pass took it.
		waitFor(t, "the orphaned turn to be finished", func() bool {
			_, err := ag.OpenTurn(ctx, phone)
			return errors.Is(err, store.ErrNotFound)
		})
		// Another pass finds nothing left to send.
		if err := h.agent.recoverTurns(ctx, "test again"); err != nil {
			t.Fatal(err)
		}
		if got := h.sms.Texts(); !slices.Equal(got, []string{"second"}) {
			t.Fatalf("sent %q; want only the unsent chunk of the recent turn, once", got)
		}
	})
}
