package lane

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/otherwise/perform/internal/httpx"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/text"
)

// IdempotencyHeader names the key a client sends with a write so that a
// retry of the same request is answered from the first one's record.
const IdempotencyHeader = "Idempotency-Key"

// ReplayedHeader marks an answer served from an earlier request's record.
const ReplayedHeader = "Idempotent-Replayed"

// RepeatKeyPrefix starts the keys Perform's tool executor derives for a
// write that came without one (internal/tools/executor): the credential,
// the tool and its arguments, so a model's retry of the same write is
// answered from the first. Such a key is kept RepeatWindow, not 24 hours:
// the same write asked for again later is meant again.
const RepeatKeyPrefix = "repeat:"

// RepeatWindow is how long a derived key's answer is replayed.
const RepeatWindow = 10 * time.Minute

// idempotencyLease is how long a claimed key is held past the last sign of
// life of its request: the request renews the hold while it runs (every
// Options.IdempotencyRenewEvery), however long it takes, so a retry never
// runs a live write twice; a claim its process took down with it is
// claimed again a lease after its last renewal.
const idempotencyLease = time.Minute

// inProgressRetryAfter is the wait, in seconds, a refusal of a key still
// in progress asks for: most writes answer well within it.
const inProgressRetryAfter = 2

// maxIdempotencyKey is the longest key accepted, in bytes (ASCII only).
const maxIdempotencyKey = 255

// isWrite reports whether method writes; only writes honour the header.
func isWrite(method string) bool {
	return method == http.MethodPost || method == http.MethodPut || method == http.MethodPatch || method == http.MethodDelete
}

// checkIdempotencyKey validates a key: 1 to 255 visible ASCII characters.
// The refusal describes the key without echoing what cannot be shown.
func checkIdempotencyKey(key string) *Error {
	var problem string
	switch {
	case key == "":
		problem = "got an empty value"
	case len(key) > maxIdempotencyKey:
		problem = fmt.Sprintf("got %d bytes", len(key))
	default:
		for i := 0; i < len(key); i++ {
			if c := key[i]; c < 0x21 || c > 0x7e {
				problem = fmt.Sprintf("got byte 0x%02x at position %d", c, i+1)
				break
			}
		}
	}
	if problem == "" {
		return nil
	}
	return InvalidField(IdempotencyHeader, IdempotencyHeader+" must be 1 to 255 visible ASCII characters; "+problem+".")
}

// requestHash identifies a request for its key: method, path with query
// and body, each length-prefixed so no two requests share an input.
func requestHash(method, pathAndQuery string, body []byte) string {
	h := sha256.New()
	for _, part := range [][]byte{[]byte(method), []byte(pathAndQuery), body} {
		fmt.Fprintf(h, "%d:", len(part))
		h.Write(part)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// keepsAnswer reports whether an answer is final for its key. 5xx and 429
// are not: the next retry must run for real. 401 is not either: the key
// was wrong, not the request.
func keepsAnswer(status int) bool {
	switch {
	case status >= 200 && status < 300:
		return true
	case status == http.StatusUnauthorized, status == http.StatusTooManyRequests:
		return false
	default:
		return status >= 400 && status < 500
	}
}

// SpeakersKey is how an Idempotency-Key is kept: under the person the
// call speaks for (a coach's or trainee's id), when it names one.
func SpeakersKey(subject, key string) string {
	if subject == "" {
		return key
	}
	return subject + "/" + key
}

// idempotent serves a write that carries an Idempotency-Key: the first
// request with a key runs and its answer is stored; a retry with the same
// request gets that answer again; a different request with the key, or a
// retry while the first still runs, is refused.
func (l *Lane) idempotent(w http.ResponseWriter, r *http.Request, rt *route, c *Call, keys []string) {
	if len(keys) > 1 {
		l.writeError(w, r, InvalidField(IdempotencyHeader, fmt.Sprintf("Idempotency-Key was sent %d times; send it once.", len(keys))))
		return
	}
	key := keys[0]
	if e := checkIdempotencyKey(key); e != nil {
		l.writeError(w, r, e)
		return
	}
	body, e := c.body()
	if e != nil {
		l.writeError(w, r, e)
		return
	}
	hash := requestHash(r.Method, r.URL.RequestURI(), body)
	ss := l.store.Studio(c.P.StudioID)
	keep, derived := store.IdempotencyTTL, strings.HasPrefix(key, RepeatKeyPrefix)
	if derived {
		keep = RepeatWindow
	}
	// A key is its speaker's: the people one credential speaks for (the
	// assistant's studio key, for each coach or trainee whose phone wrote)
	// never share a key, so none is answered with another's record.
	rec, started, err := ss.BeginIdempotent(r.Context(), SpeakersKey(c.P.Subject, key), hash, l.now(), idempotencyLease, keep)
	if err != nil {
		l.internal(w, r, "claiming the Idempotency-Key", err)
		return
	}
	shown := text.Truncate(key, 80)
	switch {
	case started:
	case rec.InProgress() && derived:
		l.writeError(w, r, InProgress(fmt.Sprintf("An identical request is still being processed; wait for its answer, or retry in %d seconds (Retry-After) to get it.", inProgressRetryAfter)))
		return
	case rec.InProgress():
		l.writeError(w, r, InProgress(fmt.Sprintf("A request with Idempotency-Key %s is still being processed; retry in %d seconds (Retry-After), under the same key.", shown, inProgressRetryAfter)))
		return
	case rec.RequestHash != hash:
		l.writeError(w, r, InvalidField(IdempotencyHeader, "Idempotency-Key "+shown+" was already used for a different request in the last 24 hours; send a new key for a new request."))
		return
	default:
		body := rec.Body
		if rt.scrubs(c.P) {
			// The first answer may have gone to a studio key with the same key.
			people, err := c.people()
			if err == nil {
				body, err = scrubEnvelope(body, rt.allow, people)
			}
			if err != nil {
				l.internal(w, r, "scrubbing a replayed answer", err)
				return
			}
		}
		l.replay(w, rec.Status, body)
		return
	}

	// The claim is settled even when the client has gone or the handler
	// panics: released unless the answer was stored.
	settle := context.WithoutCancel(r.Context())
	stored := false
	defer func() {
		if stored {
			return
		}
		if err := ss.ReleaseIdempotent(settle, rec); err != nil {
			l.logger.Warn("releasing an Idempotency-Key failed; it frees itself after a minute", "requestId", infoFrom(r.Context()).id, "err", err)
		}
	}()
	// Held while the request lives (stopped before the release above).
	defer l.holdIdempotent(settle, ss, rec)()
	// The write and the storing of its answer commit together, in one
	// transaction the handler's own joins: a process killed after the
	// write committed has stored its answer too, so the retry replays it
	// and the write happens once. The answer is held until the commit, so
	// no client reads a success that was not kept.
	held := httpx.NewHeld(w.Header())
	finished := false
	var panicked any
	run := l.store.InTx
	if rt.fanout {
		// A group write's writes commit each on its own, under its own
		// key (the group's and the trainee's): a retry makes each again
		// as its replay. Only the group's answer is stored here.
		run = func(ctx context.Context, fn func(tx store.Store) error) error { return fn(l.store) }
	}
	err = run(c.Ctx, func(tx store.Store) (err error) {
		if !rt.fanout {
			c.tx = tx
		}
		defer func() {
			c.tx = nil
			if panicked = recover(); panicked != nil {
				err = errRolledBack
			}
		}()
		l.serve(held, r, rt, c)
		if held.Status >= 400 {
			return errRolledBack // a refusal or a failure keeps nothing it began
		}
		// A derived key keeps only a success: a refusal repeated may meet a
		// studio that has changed since (the phone freed, the plan created).
		if keepsAnswer(held.Status) && !(derived && held.Status >= 300) {
			if err := tx.Studio(c.P.StudioID).FinishIdempotent(settle, rec, held.Status, held.Body.Bytes()); err != nil {
				return err
			}
			finished = true
		}
		return nil
	})
	if panicked != nil {
		panic(panicked)
	}
	if err != nil && !errors.Is(err, errRolledBack) {
		l.internal(w, r, "committing a write with an Idempotency-Key", err)
		return
	}
	held.SendTo(w)
	stored = finished
	if held.Status < 400 || !keepsAnswer(held.Status) || derived {
		return
	}
	// A refusal is final for its key: a retry gets the same answer.
	if err := ss.FinishIdempotent(settle, rec, held.Status, held.Body.Bytes()); err != nil {
		l.logger.Warn("storing the answer of an Idempotency-Key failed; a retry will run again", "requestId", infoFrom(r.Context()).id, "err", err)
		return
	}
	stored = true
}

// holdIdempotent renews claim every renewEvery until the returned stop is
// called (and has waited for the renewer): the claim stays its request's
// for as long as the request runs. A failed renewal is retried at the next
// tick; the hold it had lasts a lease, four ticks.
func (l *Lane) holdIdempotent(ctx context.Context, ss store.StudioStore, claim store.IdempotentRecord) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(l.renewEvery)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			held, err := ss.RenewIdempotent(ctx, claim, l.now().Add(idempotencyLease))
			switch {
			case ctx.Err() != nil:
				return
			case err != nil:
				l.logger.Warn("renewing an Idempotency-Key's hold failed; trying again", "key", claim.Key, "err", err)
			case !held:
				return // answered, released or (after a lost lease) taken over
			}
		}
	}()
	return func() { cancel(); <-done }
}

// replay answers a stored answer exactly. X-Request-Id names the request
// that did the work, as the envelope does; this request's own id stays in
// the audit.
func (l *Lane) replay(w http.ResponseWriter, status int, body []byte) {
	var env struct {
		RequestID string `json:"requestId"`
	}
	if json.Unmarshal(body, &env) == nil && env.RequestID != "" {
		w.Header().Set("X-Request-Id", env.RequestID)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set(ReplayedHeader, "true")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
