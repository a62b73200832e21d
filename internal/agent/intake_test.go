package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/store"
)

// Text the database could refuse is refused at the webhook, naming the
// field, before it can join a batch — on both engines alike (Postgres
// refuses NUL; SQLite would store it).
func TestWebhookRefusesBadText(t *testing.T) {
	onSQLite(t, func(t *testing.T, st store.Store) {
		h := newHarness(t, st)
		good := Inbound{Text: "hi", Phone: "972501234567", ConversationID: "c1", SenderName: "Dana"}
		for _, bad := range []string{"a\x00b", "a\x1b[2Jb", "\x7f", "a\u0085b"} {
			for _, field := range []string{"text", "phone", "conversationId", "senderName"} {
				in := good
				switch field {
				case "text":
					in.Text = bad
				case "phone":
					in.Phone = "97250" + bad + "1234567"
				case "conversationId":
					in.ConversationID = bad
				case "senderName":
					in.SenderName = bad
				}
				body, _ := json.Marshal(in)
				r := h.post(testToken, string(body))
				e, _ := r.Body["error"].(map[string]any)
				if r.Status != 422 || e["code"] != "VALIDATION" || !strings.HasPrefix(r.errorMessage(), field+" ") {
					t.Fatalf("%s = %q: %d %v; want 422 naming %s", field, bad, r.Status, r.Body, field)
				}
			}
		}
		// Invalid UTF-8 cannot come through JSON (the decoder replaces it),
		// but HandleInbound's own callers are checked too.
		in := good
		in.Text = "a\xffb"
		var fe *FieldError
		if _, err := h.agent.HandleInbound(context.Background(), in); !errors.As(err, &fe) || fe.Field != "text" || !strings.Contains(fe.Message, "UTF-8") {
			t.Fatalf("invalid UTF-8: %v; want a FieldError on text", err)
		}
		// Newlines, tabs and carriage returns are text.
		ok := good
		ok.Text = "line one\r\nline\ttwo"
		body, _ := json.Marshal(ok)
		if r := h.post(testToken, string(body)); r.Status != 200 || r.accepted() != 1 {
			t.Fatalf("multi-line text: %d %v", r.Status, r.Body)
		}
		if n := pendingCount(t, st); n != 1 {
			t.Fatalf("%d messages stored; want only the good one", n)
		}
	})
}

// A message the database refuses fails alone: its batch falls back to one
// row at a time and every other message of it is stored and scheduled.
func TestIntakeBatchIsolatesABadMessage(t *testing.T) {
	forEngine(t, func(t *testing.T, st store.Store) {
		h := newHarness(t, st, func(o *Options) { o.Debounce = 3600e9 }) // jobs stay scheduled
		const n = 16
		batch := make([]*pendingMessage, n)
		for i := range batch {
			text := fmt.Sprintf("message %d", i)
			if i == 7 {
				text = "bad\x00byte" // past the webhook's check: only the database judges it
			}
			batch[i] = &pendingMessage{phone: fmt.Sprintf("+97250100%04d", i), conversationID: "c", text: text, receivedAt: h.clock.Now().UnixMilli(), done: make(chan error, 1)}
		}
		h.agent.intake.writeBatch(batch)
		for i, m := range batch {
			err := <-m.done
			if i != 7 && err != nil {
				t.Fatalf("message %d failed with the bad one: %v", i, err)
			}
			if i == 7 && st.Engine() == store.EnginePostgres && err == nil {
				t.Fatal("Postgres stored a NUL byte")
			}
		}
		want := n - 1
		if st.Engine() == store.EngineSQLite {
			want = n // SQLite stores NUL; the webhook keeps it from getting here
		}
		if got := pendingCount(t, st); got != want {
			t.Fatalf("%d messages stored; want %d", got, want)
		}
		var jobs int
		if err := st.DB().QueryRow(`SELECT count(*) FROM river_job WHERE kind = 'agent_reply'`).Scan(&jobs); err != nil || jobs != want {
			t.Fatalf("%d reply jobs, %v; want one per stored message (%d)", jobs, err, want)
		}
	})
}

// A close while messages are queued: the writer's batch holds the queued
// messages and stops at the closed queue, with no nil message in it.
func TestIntakeBatchStopsAtAClosedQueue(t *testing.T) {
	t.Parallel()
	in := &intake{queue: make(chan *pendingMessage, maxIntakeBatch)}
	first, second := &pendingMessage{text: "1"}, &pendingMessage{text: "2"}
	in.queue <- second
	close(in.queue)
	batch := in.batchFrom(first)
	if len(batch) != 2 || batch[0] != first || batch[1] != second {
		t.Fatalf("batch %v, want the two messages", batch)
	}
}
