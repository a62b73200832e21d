// Package otctest lets tests read the one-time codes a door sent, without
// reading logs: pass a *Sender as the door's otc.Sender (login.Options
// .Sender, otc.Options.Sender) and ask it for the code a phone was sent.
package otctest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/otc"
)

// Wait bounds how long Code waits for a send (they run in the background).
const Wait = 10 * time.Second

// Sender records every message it is given and sends nothing. Fail, when
// set, is the error Send answers (the message is recorded first).
type Sender struct {
	mu      sync.Mutex
	sent    []otc.Message
	changed chan struct{}
	Fail    error
}

// NewSender is an empty recording sender.
func NewSender() *Sender { return &Sender{changed: make(chan struct{})} }

// Send records m.
func (s *Sender) Send(_ context.Context, m otc.Message) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sent = append(s.sent, m)
	close(s.changed)
	s.changed = make(chan struct{})
	return s.Fail
}

// Sent is every message so far to the phone to (every message when to is
// ""), oldest first.
func (s *Sender) Sent(to string) []otc.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sentLocked(to)
}

func (s *Sender) sentLocked(to string) []otc.Message {
	var out []otc.Message
	for _, m := range s.sent {
		if to == "" || m.To == to {
			out = append(out, m)
		}
	}
	return out
}

// Message waits (up to Wait) for the n-th message (from 1) to the phone to
// and answers it; the test fails without it. Sends run in the background,
// so two codes issued back to back may arrive in either order: call the
// door's Wait (otc.Codes.Wait, login.Service.Close) between them when the
// order matters.
func (s *Sender) Message(t testing.TB, to string, n int) otc.Message {
	t.Helper()
	timer := time.NewTimer(Wait)
	defer timer.Stop()
	for {
		s.mu.Lock()
		sent, changed := s.sentLocked(to), s.changed
		s.mu.Unlock()
		if len(sent) >= n {
			return sent[n-1]
		}
		select {
		case <-changed:
		case <-timer.C:
			t.Fatalf("no code #%d reached %s within %v; %d did", n, to, Wait, len(sent))
			return otc.Message{}
		}
	}
}

// Code waits for the n-th code (from 1) sent to the phone to and answers
// it.
func (s *Sender) Code(t testing.TB, to string, n int) string {
	t.Helper()
	return s.Message(t, to, n).Code
}

// Last is the newest code sent to the phone to, waiting for the first.
func (s *Sender) Last(t testing.TB, to string) string {
	t.Helper()
	s.Message(t, to, 1)
	sent := s.Sent(to)
	return sent[len(sent)-1].Code
}
