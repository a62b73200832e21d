// Package testkit holds what many packages' tests need alike: a log that
// records and can be waited on (Logs), a clock moved by hand (Clock), a
// buffer safe to write from background goroutines (Buffer), and the
// one-time codes read off a server's log or a message (codes.go). It imports
// nothing of Perform's, so any package's tests can use it.
package testkit

import (
	"bytes"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"
)

// Clock is a clock a test moves by hand: Now reads the time set until Set
// or Advance moves it. Pass its Now as a store's, a lane's or an agent's
// clock. Safe for concurrent use.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock returns a Clock reading t.
func NewClock(t time.Time) *Clock { return &Clock{t: t} }

func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// Advance moves the clock by d (back, when d is negative) and returns the
// new time.
func (c *Clock) Advance(d time.Duration) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
	return c.t
}

// StepClock is a clock never behind the wall clock, each reading at least a
// millisecond after the one before, so rows written one after another get
// distinct, ordered times without the test sleeping.
func StepClock() func() time.Time {
	var (
		mu   sync.Mutex
		last time.Time
	)
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		t := time.Now().UTC().Truncate(time.Millisecond)
		if !t.After(last) {
			t = last.Add(time.Millisecond)
		}
		last = t
		return t
	}
}

// Buffer is a bytes.Buffer safe to write from background goroutines while
// the test reads it (a server's log, a command's output).
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// QuietLogger logs only records at level or above, to stderr: a test's
// output shows what went wrong and nothing routine.
func QuietLogger(level slog.Level) *slog.Logger {
	return slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
}

var stderr io.Writer = os.Stderr

// Bytes is a copy of what was written.
func (b *Buffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return bytes.Clone(b.b.Bytes())
}
