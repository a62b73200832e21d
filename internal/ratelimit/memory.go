package ratelimit

import (
	"context"
	"sync"
	"time"
)

// Memory is a fixed-window limiter for one process.
type Memory struct {
	max    int
	window time.Duration
	now    func() time.Time

	mu      sync.Mutex
	windows map[string]*counter
	sweep   time.Time
}

type counter struct {
	start time.Time
	n     int
}

// NewMemory allows max requests per window per key.
func NewMemory(max int, window time.Duration) *Memory {
	return &Memory{max: max, window: window, now: time.Now, windows: map[string]*counter{}}
}

// WithClock makes the limiter read now instead of time.Now (tests, and a
// server running on a set clock).
func (m *Memory) WithClock(now func() time.Time) *Memory {
	if now != nil {
		m.now = now
	}
	return m
}

func (m *Memory) Allow(_ context.Context, key string) (Decision, error) {
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	if now.Sub(m.sweep) > m.window { // forget finished windows so the map stays small
		for k, c := range m.windows {
			if now.Sub(c.start) >= m.window {
				delete(m.windows, k)
			}
		}
		m.sweep = now
	}
	c := m.windows[key]
	if c == nil || now.Sub(c.start) >= m.window {
		c = &counter{start: now}
		m.windows[key] = c
	}
	c.n++
	d := Decision{Allowed: c.n <= m.max, Limit: m.max, Remaining: max(m.max-c.n, 0)}
	if !d.Allowed {
		d.RetryAfter = c.start.Add(m.window).Sub(now)
	}
	return d, nil
}

// Refund gives back one request counted for key in its current window.
func (m *Memory) Refund(_ context.Context, key string) error {
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	if c := m.windows[key]; c != nil && now.Sub(c.start) < m.window && c.n > 0 {
		c.n--
	}
	return nil
}
