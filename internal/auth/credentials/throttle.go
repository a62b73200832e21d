package credentials

import (
	"sync"
	"time"
)

// TouchEvery is how often a credential's last use is written at most.
const TouchEvery = time.Minute

// maxTouched bounds the credentials a Throttle remembers; past it, those
// not written within the window are forgotten (credentials are few in
// practice).
const maxTouched = 10_000

// Throttle decides when a credential's last use is written: its first
// use, then at most once per window, from this process (the store also
// refuses more often than that across processes). Safe for concurrent use.
type Throttle struct {
	every time.Duration
	now   func() time.Time

	mu      sync.Mutex
	written map[string]time.Time // credential id → when its last use was last written
}

// NewThrottle is a Throttle of window every on the clock now (nil: time.Now).
func NewThrottle(every time.Duration, now func() time.Time) *Throttle {
	if now == nil {
		now = time.Now
	}
	return &Throttle{every: every, now: now, written: map[string]time.Time{}}
}

// Due reports whether credential id's use now is to be written, and the
// time to write; it counts the write as made.
func (t *Throttle) Due(id string) (time.Time, bool) {
	now := t.now()
	t.mu.Lock()
	defer t.mu.Unlock()
	if last, seen := t.written[id]; seen && now.Sub(last) < t.every {
		return now, false
	}
	t.written[id] = now
	if len(t.written) > maxTouched {
		for k, at := range t.written {
			if now.Sub(at) >= t.every {
				delete(t.written, k)
			}
		}
	}
	return now, true
}
