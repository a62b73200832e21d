// Package otc is the one one-time-code component of every door that
// verifies a phone: the browser sign-in (internal/login) and an agent
// platform's verification of its end user.
//
// A door issues a code for a subject (a browser's pending sign-in, a
// conversation), binding data of its own to it (the phone typed, the
// trainee id); the code goes to a phone through the door's Sender, and a
// right code gives the data back once. The rules live here and nowhere
// else:
//
//   - six digits from crypto/rand, kept only as a SHA-256 bound to the
//     door's purpose and the subject, which is itself kept only hashed;
//   - a code works for TTL (10 minutes) and is used once;
//   - every try is counted, in the one statement that reads the code,
//     before the code is compared: MaxTries (5) are compared, then the
//     code is locked, however many tries arrive at once;
//   - each person is sent at most what the caller's ratelimit.Limiter
//     allows (SendsPerHour an hour by default).
//
// Refusals are *Refusal errors wrapping ErrWrong, ErrLocked, ErrExpired,
// ErrNoCode or ErrThrottled; any other error is the store's or the
// limiter's.
package otc

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"strings"
	"sync"
	"time"

	"github.com/otherwise/perform/internal/phone"
	"github.com/otherwise/perform/internal/ratelimit"
	"github.com/otherwise/perform/internal/store"
)

// The rules a zero Options field takes.
const (
	TTL          = 10 * time.Minute
	MaxTries     = 5
	SendsPerHour = 5
	// SendTimeout bounds one background send.
	SendTimeout = 30 * time.Second
)

// Store is the codes' storage: store.Store's Codes() is one, on SQLite
// and PostgreSQL alike.
type Store = store.CodeStore

// Message is one code on its way to a phone.
type Message struct {
	Purpose string        // the door (Options.Purpose)
	Subject string        // the subject the code proves (Request.Subject)
	To      string        // the phone, E.164
	Code    string        // six digits
	TTL     time.Duration // how long it works
	Data    string        // Request.Data
	Note    string        // Request.Note, for the text (a studio's name)
}

// Sender delivers a code. The door formats the text (its WhatsApp
// gateway, the log in a demo); tests pass otctest.Sender and read the
// codes it was given.
type Sender interface {
	Send(ctx context.Context, m Message) error
}

// SenderFunc is a Sender of one function.
type SenderFunc func(ctx context.Context, m Message) error

// Send calls f.
func (f SenderFunc) Send(ctx context.Context, m Message) error { return f(ctx, m) }

// Options configure New. Purpose, Store and Sender are required.
type Options struct {
	// Purpose names the door ("login", "platform"): the same subject of
	// two doors is two codes, and a code of one never works at the other.
	Purpose string
	Store   Store
	Sender  Sender
	// Sends counts the codes sent to each person (Request.Person, under
	// Purpose+":"), over the caller's window: in Redis to hold across
	// instances, or in the database. Nil: SendsPerHour an hour in memory.
	Sends    ratelimit.Limiter
	TTL      time.Duration // TTL when zero
	MaxTries int           // MaxTries when zero
	Logger   *slog.Logger
	Now      func() time.Time // time.Now when nil
	// Courier, when set, sends the codes as River jobs inserted in the
	// transaction that writes them (WithTx), sealed, with Sender as this
	// door's sender. Nil: each code is sent from this process in the
	// background (tests, and a server without River).
	Courier *Courier
}

// Codes issues and checks one door's codes. It is safe for concurrent use.
type Codes struct {
	purpose  string
	st       Store
	sender   Sender
	sends    ratelimit.Limiter
	ttl      time.Duration
	maxTries int
	logger   *slog.Logger
	now      func() time.Time
	bg       *sync.WaitGroup
	courier  *Courier
	tx       *sql.Tx // the transaction WithTx bound, for the courier's job
}

// New builds a door's codes. It panics without Purpose, Store or Sender:
// that is a wiring mistake, not a condition to handle.
func New(o Options) *Codes {
	if o.Purpose == "" || o.Store == nil || o.Sender == nil {
		panic("otc.New needs Options.Purpose, Store and Sender")
	}
	c := &Codes{purpose: o.Purpose, st: o.Store, sender: o.Sender, sends: o.Sends, ttl: o.TTL, maxTries: o.MaxTries,
		logger: o.Logger, now: o.Now, bg: &sync.WaitGroup{}, courier: o.Courier}
	if c.courier != nil {
		c.courier.Deliver(o.Purpose, o.Sender)
	}
	if c.ttl <= 0 {
		c.ttl = TTL
	}
	if c.maxTries <= 0 {
		c.maxTries = MaxTries
	}
	if c.logger == nil {
		c.logger = slog.New(slog.DiscardHandler)
	}
	if c.now == nil {
		c.now = time.Now
	}
	if c.sends == nil {
		c.sends = ratelimit.NewMemory(SendsPerHour, time.Hour).WithClock(c.now)
	}
	return c
}

// WithStore is c on another store: a transaction's (store.Store.InTx,
// a dry run's), so the code is written with the rest or not at all. The
// background sends and the send counts are c's.
func (c *Codes) WithStore(st Store) *Codes {
	d := *c
	d.st = st
	return &d
}

// WithTx is c in tx (store.Store.InTx): the code is written there, and
// with a Courier its job is inserted there too, so both commit or neither.
func (c *Codes) WithTx(tx store.Store) *Codes {
	d := *c
	d.st, d.tx = tx.Codes(), tx.SQLTx()
	return &d
}

// TTL is how long a code works.
func (c *Codes) TTL() time.Duration { return c.ttl }

// MaxTries is how many codes are compared before a code is locked.
func (c *Codes) MaxTries() int { return c.maxTries }

// Wait waits for the codes still being sent.
func (c *Codes) Wait() { c.bg.Wait() }

// Request asks for a code.
type Request struct {
	// Subject is what the code proves, chosen by the door: a browser's
	// sign-in, a conversation's hash. A subject has one live code; a new
	// one replaces it, tries and all.
	Subject string
	// Person is whose sends are counted: the phone typed, a studio's
	// trainee. "" counts nothing and is allowed only with To "".
	Person string
	// To is the phone (E.164) the code goes to. "" stores a code that is
	// sent to nobody, so a phone that is on no record reads the same as
	// one that is, and still counts against Person.
	To string
	// Data is bound to the code and given back by the right code (the
	// phone typed, the trainee id): what the code proves.
	Data string
	// Note goes to the Sender as is (a studio's name for the text); it is
	// not stored.
	Note string
	// NoSend stores the code without sending it: a dry run, whose
	// transaction rolls the code back.
	NoSend bool
}

// Issued is a code on its way.
type Issued struct {
	ExpiresAt time.Time
}

// Issue counts one send for r.Person (Count), then writes a new code for
// r.Subject and sends it to r.To (Write). Over the limit it answers a
// Refusal wrapping ErrThrottled and changes nothing: the subject's earlier
// code, if any, still works.
func (c *Codes) Issue(ctx context.Context, r Request) (Issued, error) {
	if err := c.Count(ctx, r); err != nil {
		return Issued{}, err
	}
	return c.Write(ctx, r)
}

// Count counts one send for r.Person: a Refusal wrapping ErrThrottled over
// the limit. A caller whose counter writes to the database counts before
// the transaction it writes the code in.
func (c *Codes) Count(ctx context.Context, r Request) error {
	if r.Subject == "" {
		return errors.New("otc: a code needs a subject")
	}
	if r.Person == "" && r.To != "" {
		return errors.New("otc: a code sent to a phone needs the person its sends are counted for")
	}
	if r.Person == "" {
		return nil
	}
	d, err := c.sends.Allow(ctx, c.purpose+":"+r.Person)
	if err != nil {
		return fmt.Errorf("counting the codes sent: %w", err)
	}
	if !d.Allowed {
		return &Refusal{Err: ErrThrottled, RetryAfter: d.RetryAfter}
	}
	return nil
}

// Write stores a new code for r.Subject, counted already (Count), and
// sends it to r.To: with a Courier as a job in the transaction WithTx
// bound, else in the background (Wait waits for it). Either way the caller
// answers as fast whether or not anyone is sent a code.
func (c *Codes) Write(ctx context.Context, r Request) (Issued, error) {
	if r.Subject == "" {
		return Issued{}, errors.New("otc: a code needs a subject")
	}
	// With a Courier a code to nobody (a phone on no record) is queued as
	// one to somebody is, a job the worker drops: the request takes as
	// long, and the queue holds as many jobs, whether the phone is known.
	queue := c.courier != nil && !r.NoSend
	if queue && c.tx == nil {
		return Issued{}, errors.New("otc: a code sent as a job is written in the caller's transaction: call Write on Codes.WithTx(tx)")
	}
	code, err := newCode()
	if err != nil {
		return Issued{}, err
	}
	now := c.now()
	key := c.key(r.Subject)
	row := store.OneTimeCode{Key: key, CodeHash: codeHash(key, code), Data: r.Data, CreatedAt: now, ExpiresAt: now.Add(c.ttl)}
	if err := c.st.PutCode(ctx, row); err != nil {
		return Issued{}, err
	}
	m := Message{Purpose: c.purpose, Subject: r.Subject, To: r.To, Code: code, TTL: c.ttl, Data: r.Data, Note: r.Note}
	switch {
	case queue:
		if err := c.courier.enqueue(ctx, c.tx, m); err != nil {
			return Issued{}, err
		}
	case r.To != "" && !r.NoSend:
		c.send(ctx, m)
	}
	return Issued{ExpiresAt: row.ExpiresAt}, nil
}

// send sends m from this process, in the background, past the request's
// end but with its context's values (its logging, its trace).
func (c *Codes) send(ctx context.Context, m Message) {
	c.bg.Add(1)
	go func() {
		defer c.bg.Done()
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), SendTimeout)
		defer cancel()
		if err := c.sender.Send(ctx, m); err != nil {
			c.logger.WarnContext(ctx, "the one-time code could not be sent", "purpose", c.purpose, "phone", phone.Masked(m.To), "err", err)
		}
	}()
}

// Result is a right code's.
type Result struct {
	Data  string // Request.Data of the code
	Tries int    // the tries counted, the right one included
}

// Verify counts one try of subject's code, then compares code (spaces and
// dashes aside). A right code answers its Data and is used up. Otherwise
// it answers a Refusal: ErrWrong (TriesLeft says how many more are
// compared; 0 means locked now), ErrLocked once MaxTries were compared,
// ErrExpired, or ErrNoCode when the subject has no code (none was issued,
// it was used, or replaced and used).
func (c *Codes) Verify(ctx context.Context, subject, code string) (Result, error) {
	key := c.key(subject)
	row, err := c.st.TryCode(ctx, key)
	if errors.Is(err, store.ErrNotFound) {
		return Result{}, &Refusal{Err: ErrNoCode}
	}
	if err != nil {
		return Result{}, err
	}
	if !c.now().Before(row.ExpiresAt) {
		return Result{}, &Refusal{Err: ErrExpired}
	}
	if row.Tries > c.maxTries {
		return Result{}, &Refusal{Err: ErrLocked}
	}
	// Only the tries counted up to MaxTries reach this line, whatever
	// arrives at once: the count came with the row.
	if subtle.ConstantTimeCompare(row.CodeHash, codeHash(key, Normalize(code))) != 1 {
		return Result{}, &Refusal{Err: ErrWrong, TriesLeft: c.maxTries - row.Tries}
	}
	used, err := c.st.UseCode(ctx, key, row.CodeHash)
	if err != nil {
		return Result{}, err
	}
	if !used { // the same right code won a moment earlier, or a new code replaced it
		return Result{}, &Refusal{Err: ErrNoCode}
	}
	return Result{Data: row.Data, Tries: row.Tries}, nil
}

// Revoke forgets subject's code: no code is right for it until the next
// Issue.
func (c *Codes) Revoke(ctx context.Context, subject string) error {
	return c.st.DeleteCode(ctx, c.key(subject))
}

// Sweep forgets the codes of every door that have expired.
func (c *Codes) Sweep(ctx context.Context) error {
	return c.st.SweepCodes(ctx, c.now())
}

// The refusals Verify and Issue answer, each wrapped in a *Refusal.
var (
	ErrWrong     = errors.New("the code is not right")
	ErrLocked    = errors.New("too many wrong codes were tried: the code is locked; ask for a new one")
	ErrExpired   = errors.New("the code expired; ask for a new one")
	ErrNoCode    = errors.New("no code is waiting: none was sent, or it was used; ask for a new one")
	ErrThrottled = errors.New("too many codes were sent to this person; wait and ask again")
)

// Refusal is a typed refusal: errors.Is(err, ErrWrong) and so on tell
// which, errors.As gives the details.
type Refusal struct {
	Err        error         // one of ErrWrong, ErrLocked, ErrExpired, ErrNoCode, ErrThrottled
	TriesLeft  int           // ErrWrong: codes still compared before the code locks
	RetryAfter time.Duration // ErrThrottled: until the person may be sent one again
}

func (r *Refusal) Error() string {
	switch {
	case errors.Is(r.Err, ErrWrong) && r.TriesLeft > 0:
		return fmt.Sprintf("%v; %d tries left", r.Err, r.TriesLeft)
	case errors.Is(r.Err, ErrWrong):
		return fmt.Sprintf("%v, and it is now locked; ask for a new one", r.Err)
	case errors.Is(r.Err, ErrThrottled) && r.RetryAfter > 0:
		return fmt.Sprintf("%v (in %v)", r.Err, r.RetryAfter.Round(time.Second))
	}
	return r.Err.Error()
}

func (r *Refusal) Unwrap() error { return r.Err }

// Digits is a code's length.
const Digits = 6

// newCode is six digits from crypto/rand.
func newCode() (string, error) {
	n, err := rand.Int(rand.Reader, big.NewInt(1_000_000))
	if err != nil {
		return "", fmt.Errorf("drawing a code: %w", err)
	}
	return fmt.Sprintf("%06d", n.Int64()), nil
}

// Normalize is a typed code as compared: without spaces and dashes
// ("123 456", "123-456"), and Unicode digits of other scripts as ASCII.
// Anything else is kept, so it never matches.
func Normalize(typed string) string {
	var b strings.Builder
	b.Grow(Digits)
	for _, r := range typed {
		switch {
		case r == ' ' || r == '-' || r == '\t' || r == '\n' || r == '\r' || r == '\u00a0' || r == '\u2010' || r == '\u2011' || r == '\u2013':
			continue
		case r >= '٠' && r <= '٩': // Arabic-Indic digits, as some keyboards type them
			b.WriteByte(byte('0' + r - '٠'))
		case r >= '۰' && r <= '۹': // Extended Arabic-Indic
			b.WriteByte(byte('0' + r - '۰'))
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// key is what the store keeps for a door's subject.
func (c *Codes) key(subject string) []byte {
	h := sha256.New()
	h.Write([]byte("perform otc subject\x00"))
	h.Write([]byte(c.purpose))
	h.Write([]byte{0})
	h.Write([]byte(subject))
	return h.Sum(nil)
}

// codeHash binds a code to its key: the same code of two subjects or two
// doors hashes differently.
func codeHash(key []byte, code string) []byte {
	h := sha256.New()
	h.Write([]byte("perform otc code\x00"))
	h.Write(key)
	h.Write([]byte(code))
	return h.Sum(nil)
}
