package agent

import (
	"context"
	"errors"
	"strings"
	"unicode"

	"github.com/riverqueue/river"

	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/jobs"
	"github.com/otherwise/perform/internal/store"
)

// What one turn puts in front of the model is bounded, whatever a phone
// sends (docs/whatsapp.md, "What a turn reads"):
//
//   - A turn claims the oldest pending messages of the phone, at most
//     maxTurnMessages of them and maxTurnBytes of text; the rest stay
//     pending, and the reply job that claims them is scheduled with the
//     claim, so none is dropped. 20 messages is more than any real burst
//     (a thought typed in several lines); 16 KB is about 8,000 Hebrew or
//     16,000 Latin characters, some 4,000-8,000 tokens, a few times what
//     a coach or trainee writes in one go, and small beside the cached
//     prefix and the history.
//   - A message longer than maxTurnBytes is claimed alone and handed to
//     the model cut, with a marker saying so; the message is kept whole
//     in the store, and the sender is told (cutNotice).
//   - Each replayed history entry is its first historyExcerptRunes
//     characters, so a short question after a flood does not resend it.
//
// With the 24 history entries, a turn's request is the cached prefix plus
// at most about 24×1,000 characters of history and 16 KB of new text. The
// money a phone may spend is not decided here: the budget of model calls
// checks each call (the turn's request size is bounded by these limits).
const (
	maxTurnMessages     = 20
	maxTurnBytes        = 16 << 10
	historyExcerptRunes = 1000
)

// turnBounds are the limits a turn's claim applies.
var turnBounds = store.ClaimBounds{Messages: maxTurnMessages, Bytes: maxTurnBytes}

// claim takes the phone's oldest pending messages that fit a turn into a
// new turn, and, when some stay pending, schedules the reply job that
// claims them in the same transaction. It returns nil when a newer message
// is pending (its own job answers the burst) or nothing fresh is. Messages
// older than an hour are dropped, never answered late.
func (a *Agent) claim(ctx context.Context, phoneKey string, seq int64) (*turn, error) {
	var t turn
	var ok bool
	err := a.st.InTx(ctx, func(tx store.Store) error {
		var err error
		t, ok, err = tx.Agent().ClaimPending(ctx, phoneKey, seq, ids.New(ids.AgentMessage), a.now(), pendingMaxAge, turnBounds)
		if err != nil || !ok || !t.More {
			return err
		}
		return a.followUp(ctx, tx, phoneKey)
	})
	if err != nil || !ok {
		return nil, err
	}
	return &t, nil
}

// followUp schedules, in tx, the reply job that claims the phone's pending
// messages once the running turn ends (it waits for the phone's lease).
func (a *Agent) followUp(ctx context.Context, tx store.Store, phoneKey string) error {
	seqs, err := tx.Agent().PendingSeqs(ctx, phoneKey)
	if err != nil || len(seqs) == 0 {
		return err
	}
	client := a.jobs.Load()
	if client == nil {
		return errors.New("the agent's job client is not set yet")
	}
	_, err = client.InsertTx(ctx, tx.SQLTx(), replyArgs{Phone: phoneKey, Seq: seqs[len(seqs)-1]},
		&river.InsertOpts{MaxAttempts: jobMaxAttempts, Queue: jobs.QueueHolding})
	return err
}

// requeued is the decision of a turn of several messages that ran out of
// model steps before it answered: it sends nothing and remembers nothing,
// and its messages go back to pending, each to be claimed alone by the
// follow-up turns scheduled with it, so no accepted message is left
// unwritten. (The writes the turn made are answered as repeats when a
// follow-up makes them again, and echoed there.) A turn of one message
// that runs out of steps is answered as a failure instead.
func (a *Agent) requeued(t *turn, d decision) decision {
	d.messages, d.history, d.outcome, d.also = nil, nil, "requeued", nil
	d.also = append(d.also, func(ctx context.Context, tx store.Store) error {
		if _, err := tx.Agent().RequeueTurn(ctx, t.ID); err != nil {
			return err
		}
		return a.followUp(ctx, tx, t.Phone)
	})
	return d
}

// cutMarker ends the text of a turn whose message was cut.
const cutMarker = "[… the message was cut here: it is longer than one turn reads (16 KB); the sender is told that only its beginning was read]"

// modelText is the turn's text as the model reads it.
func modelText(t *turn) string {
	if !t.Cut {
		return t.Text
	}
	return t.Text + "\n\n" + cutMarker
}

// cutNotice tells the sender her message was cut, in Hebrew unless she
// wrote with no Hebrew letter at all.
func cutNotice(text string) string {
	if strings.IndexFunc(text, func(r rune) bool { return unicode.Is(unicode.Hebrew, r) }) < 0 {
		return "✂️ Your message was too long, so I read only its beginning. If something is missing, send it in a shorter message."
	}
	return "✂️ ההודעה ארוכה מדי, אז קראתי רק את ההתחלה שלה. אם חסר משהו, שלחו אותו בהודעה קצרה יותר."
}

// excerpt is text's first n characters, marked when cut.
func excerpt(text string, n int) string {
	i := 0
	for j := range text {
		if i == n {
			return text[:j] + " […]"
		}
		i++
	}
	return text
}
