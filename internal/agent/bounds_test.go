package agent

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/agent/fakes"
	"github.com/otherwise/perform/internal/store"
)

// heavyForEngine is forEngine for a test of many turns: under -race, which
// makes each turn several times slower, it runs on SQLite only (go test
// without -race runs it on both engines).
func heavyForEngine(t *testing.T, f func(t *testing.T, st store.Store)) {
	if raceOn {
		onSQLite(t, f)
		return
	}
	forEngine(t, f)
}

// countMessages is how many of the store's messages are in state.
func countMessages(t *testing.T, st store.Store, state string) int {
	t.Helper()
	var n int
	if err := st.DB().QueryRow(`SELECT count(*) FROM agent_messages WHERE state = '` + state + `'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// A flood of 100 WhatsApp messages of 4 KB in one burst: every turn's
// request stays within the turn's bounds, every accepted message is
// claimed by a turn (none dropped, none left pending), and the next short
// question's request replays only excerpts of the history, not the flood.
func TestAFloodIsReadInBoundedTurns(t *testing.T) {
	heavyForEngine(t, func(t *testing.T, st store.Store) {
		h := newHarness(t, st, func(o *Options) { o.Debounce = 3 * time.Second })
		studioWithCoach(t, st, "Studio", "Dana", "050-111-2222", time.Now())
		seedHistory(t, h, "+972501112222")
		h.setScript(func(int, fakes.MessagesRequest) fakes.Reply { return fakes.Text("ok") })
		// A short turn first: its request is the baseline (prefix and a
		// short history).
		h.send("972501112222", "c", "hi")
		h.waitIdle()
		base := len(h.llm.Requests()[0].Raw)

		const flood = 100
		var wg sync.WaitGroup
		for w := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := w; i < flood; i += 8 {
					h.send("972501112222", "c", fmt.Sprintf("message %03d ", i)+strings.Repeat("x", 4096-12))
				}
			}()
		}
		wg.Wait()
		waitJobsIdleFor(t, st, 3*time.Minute)
		if claimed, pending, dropped := countMessages(t, st, "claimed"), countMessages(t, st, "pending"), countMessages(t, st, "dropped"); claimed != flood+1 || pending != 0 || dropped != 0 {
			t.Fatalf("of %d accepted messages %d were claimed, %d are pending, %d dropped", flood+1, claimed, pending, dropped)
		}
		reqs := h.llm.Requests()[1:]
		// Each turn: at most 16 KB of new text, and a history of excerpts.
		bound := base + maxTurnBytes + maxTurnMessages*8 + historyEntries*(historyExcerptRunes+64)
		biggest := 0
		for i, r := range reqs {
			biggest = max(biggest, len(r.Raw))
			if len(r.Raw) > bound {
				t.Fatalf("turn %d's request is %d bytes; the bound is %d (baseline %d)", i, len(r.Raw), bound, base)
			}
		}
		if len(reqs) < flood*4096/maxTurnBytes {
			t.Fatalf("%d turns read %d KB; a turn reads at most %d KB", len(reqs), flood*4, maxTurnBytes>>10)
		}
		h.send("972501112222", "c", "ok thanks")
		h.waitIdle()
		all := h.llm.Requests()
		last := all[len(all)-1]
		if last.LastUserText() != "ok thanks" || len(last.Raw) > base+historyEntries*(historyExcerptRunes+64) {
			t.Fatalf("the question after the flood sent %d bytes (baseline %d)", len(last.Raw), base)
		}
		t.Logf("%d messages of 4 KB: %d turns, the biggest request %d bytes (baseline %d, bound %d); the next question %d bytes", flood, len(reqs), biggest, base, bound, len(last.Raw))
	})
}

// One message longer than a turn reads is kept whole, handed to the model
// cut with a marker, and its sender is told, in her language.
func TestALongMessageIsCutAndTheSenderTold(t *testing.T) {
	onSQLite(t, func(t *testing.T, st store.Store) {
		h := newHarness(t, st)
		studioWithCoach(t, st, "Studio", "Dana", "050-111-2222", time.Now())
		seedHistory(t, h, "+972501112222")
		h.setScript(func(int, fakes.MessagesRequest) fakes.Reply { return fakes.Text("קראתי") })
		for _, tc := range []struct{ text, notice string }{
			{"שלום " + strings.Repeat("א", 30_000), cutNotice("א")},
			{"hello " + strings.Repeat("a", 40_000), cutNotice("a")},
		} {
			before := len(h.sms.Sent())
			h.send("972501112222", "c", tc.text)
			h.waitIdle()
			reqs := h.llm.Requests()
			got := reqs[len(reqs)-1].LastUserText()
			if !strings.HasSuffix(got, cutMarker) || len(got) > maxTurnBytes+len(cutMarker)+2 || !strings.HasPrefix(tc.text, strings.TrimSuffix(got, "\n\n"+cutMarker)) {
				t.Fatalf("the model read %d bytes ending %q", len(got), got[max(0, len(got)-80):])
			}
			var sent []string
			for _, m := range h.sms.Sent()[before:] {
				sent = append(sent, m.Text)
			}
			if len(sent) != 2 || sent[0] != "קראתי" || sent[1] != tc.notice {
				t.Fatalf("the sender got %q; want the reply and %q", sent, tc.notice)
			}
			var stored string
			if err := st.DB().QueryRow(`SELECT text FROM agent_messages ORDER BY seq DESC LIMIT 1`).Scan(&stored); err != nil || stored != tc.text {
				t.Fatalf("the stored message is %d bytes (%v); want it whole, %d", len(stored), err, len(tc.text))
			}
		}
		if cutNotice("a") == cutNotice("א") {
			t.Fatal("the English and Hebrew notices are the same")
		}
	})
}

// weighInScript is a model that obeys the trainee line by line: each step
// logs the weigh-in of the next line of her burst ("שקילה 70.4") it has not
// logged yet, one tool call per step, and answers once all are logged.
func weighInScript(_ int, req fakes.MessagesRequest) fakes.Reply { return weighInModel.Reply(req) }

var weighInModel = fakes.NewWeighInModel("שקילה")

// A backlog bigger than one turn can write (12 weigh-ins, one per model
// step, against a turn's 8 steps) loses none: the turn that runs out of
// steps puts its messages back, and each is answered by a turn of its own.
// Every accepted weigh-in is written once and echoed once.
func TestABacklogBiggerThanATurnIsAllWritten(t *testing.T) {
	heavyForEngine(t, func(t *testing.T, st store.Store) {
		e := newTraineeEnv(t, st)
		e.turnOn(true)
		e.say(danaPhone, "היי")
		e.say(danaPhone, "כן")
		e.setScript(weighInScript)
		e.agent.debounce = 3 * time.Second
		const backlog = 12
		before := len(e.sms.Sent())
		for i := range backlog {
			e.send(danaPhone, "conv-"+danaPhone, fmt.Sprintf("שקילה %.1f", 70+float64(i)/10))
		}
		waitJobsIdleFor(t, st, 3*time.Minute)
		if pending := countMessages(t, st, "pending"); pending != 0 {
			t.Fatalf("%d messages still pending", pending)
		}
		rows, err := st.DB().Query(`SELECT weight_kg FROM weights`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		written := map[float64]int{}
		for rows.Next() {
			var w float64
			if err := rows.Scan(&w); err != nil {
				t.Fatal(err)
			}
			written[w]++
		}
		for i := range backlog {
			if w := 70 + float64(i)/10; written[roundTenth(w)] != 1 {
				t.Errorf("weigh-in %.1f was written %d times", w, written[roundTenth(w)])
			}
		}
		if len(written) != backlog {
			t.Errorf("%d weigh-ins written, %d accepted: %v", len(written), backlog, written)
		}
		echoes := 0
		for _, m := range e.sms.Sent()[before:] {
			echoes += strings.Count(m.Text, "✅ נרשמה שקילה")
		}
		if echoes != backlog {
			t.Errorf("%d weigh-ins echoed; want %d", echoes, backlog)
		}
		var requeued int
		if err := st.DB().QueryRow(`SELECT count(*) FROM agent_turns WHERE outcome = 'requeued'`).Scan(&requeued); err != nil || requeued == 0 {
			t.Errorf("%d turns were requeued (%v); the backlog should have needed one", requeued, err)
		}
	})
}

func roundTenth(w float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(w, 'f', 1, 64), 64)
	return v
}
